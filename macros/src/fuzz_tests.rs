//! Fuzzing of the macro's expansion: the macro must never panic, whatever tokens it is given.
//!
//! The fuzzed function is `expand::expand_inner`, the exact pipeline `#[gpu_kernel]` and
//! `#[gpu_device]` run (parse, check, typeck, emit C, emit Rust) without the `catch_unwind`
//! safety net of `expand::expand`, so a panic inside is seen here instead of becoming a stub.
//! Three generators, each from a small seeded xorshift PRNG (no dependency):
//! - `soup`: random token trees (keywords, the kernel vocabulary, literals of every kind,
//!   punctuation, nested groups of every delimiter including invisible ones) wrapped as
//!   `fn NAME(PARAMS) -> RET BODY`, with random attributes and macro invocations;
//! - `grammar`: random well-formed-ish functions of the kernel subset (lets, ifs, loops,
//!   indexing, method calls, casts, intrinsics, atomics, shared memory, cooperative groups,
//!   `gpu_print!`, closures, matches, references...), typed most of the time so that the
//!   type checker and the emitters are reached, with random (and invalid) type annotations;
//! - `mutate`: the real `#[gpu_kernel]`/`#[gpu_device]` items of the repository (examples/,
//!   tests/, tests/ui/), extracted with syn, with statements and tokens deleted, duplicated,
//!   swapped, replaced or spliced from other kernels.
//!
//! `cargo test -p warpspeed-macros` runs a short deterministic pass (fixed seed, fixed case
//! count). `WARPSPEED_FUZZ_SECONDS=600` runs for that long on random seeds (one worker per
//! core, at most 8), printing progress; `WARPSPEED_FUZZ_SEED` fixes the seed and
//! `WARPSPEED_FUZZ_CASE=<generator>:<case seed>` replays one case and prints its expansion.
//! A panic fails the test and prints the input, minimized, the message, the location and the
//! macro's frames of the backtrace. docs/fuzzing.md has the results.

use crate::ir::ast::FnKind;
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtOrd};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

// ---- random numbers ------------------------------------------------------------------------

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(splitmix(seed) | 1)
    }
    /// xorshift64*.
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    /// True with probability `p` percent.
    fn pct(&mut self, p: u32) -> bool {
        (self.next() % 100) < p as u64
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

// ---- a token tree model that is `Send` and printable ---------------------------------------

#[derive(Clone, Debug)]
enum Tok {
    /// `r#name` for a raw identifier.
    Ident(String),
    Punct(char, bool),
    Lit(String),
    Group(Delimiter, Vec<Tok>),
}

fn ident(s: impl AsRef<str>) -> Tok {
    Tok::Ident(s.as_ref().to_string())
}

fn punct(s: impl AsRef<str>) -> Vec<Tok> {
    let s = s.as_ref();
    let n = s.chars().count();
    s.chars()
        .enumerate()
        .map(|(i, c)| Tok::Punct(c, i + 1 < n))
        .collect()
}

fn from_ts(ts: TokenStream) -> Vec<Tok> {
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) => Tok::Ident(i.to_string()),
            TokenTree::Punct(p) => Tok::Punct(p.as_char(), p.spacing() == Spacing::Joint),
            TokenTree::Literal(l) => Tok::Lit(l.to_string()),
            TokenTree::Group(g) => Tok::Group(g.delimiter(), from_ts(g.stream())),
        })
        .collect()
}

/// Direct construction: call-site spans, invisible groups kept.
fn to_ts(toks: &[Tok]) -> TokenStream {
    toks.iter()
        .map(|t| -> TokenTree {
            match t {
                Tok::Ident(s) => match s.strip_prefix("r#") {
                    Some(raw) => Ident::new_raw(raw, Span::call_site()).into(),
                    None => Ident::new(s, Span::call_site()).into(),
                },
                Tok::Punct(c, joint) => Punct::new(
                    *c,
                    if *joint {
                        Spacing::Joint
                    } else {
                        Spacing::Alone
                    },
                )
                .into(),
                Tok::Lit(s) => s
                    .parse::<Literal>()
                    .unwrap_or_else(|_| Literal::u8_unsuffixed(0))
                    .into(),
                Tok::Group(d, inner) => Group::new(*d, to_ts(inner)).into(),
            }
        })
        .collect()
}

/// Source text with line breaks (so spans have lines, as in a real file); invisible groups
/// print their content only. `mark_none` shows them as `⟦...⟧` for reports.
fn render(toks: &[Tok], mark_none: bool) -> String {
    let mut s = String::new();
    render_into(toks, &mut s, 0, mark_none);
    s
}

fn render_into(toks: &[Tok], s: &mut String, indent: usize, mark_none: bool) {
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Ident(x) | Tok::Lit(x) => {
                s.push_str(x);
                s.push(' ');
            }
            Tok::Punct(c, joint) => {
                s.push(*c);
                let next_breaks = matches!(toks.get(i + 1), Some(Tok::Punct('/' | '*', _)));
                let lifetime = *c == '\'' && matches!(toks.get(i + 1), Some(Tok::Ident(_)));
                if !(*joint || lifetime) || (*c == '/' && next_breaks) {
                    s.push(' ');
                }
                if *c == ';' && !mark_none {
                    s.push('\n');
                    s.push_str(&"    ".repeat(indent));
                }
            }
            Tok::Group(d, inner) => {
                let (open, close) = match d {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None if mark_none => ("⟦", "⟧"),
                    Delimiter::None => ("", ""),
                };
                s.push_str(open);
                if *d == Delimiter::Brace && !mark_none {
                    s.push('\n');
                    s.push_str(&"    ".repeat(indent + 1));
                }
                render_into(inner, s, indent + 1, mark_none);
                if *d == Delimiter::Brace && !mark_none {
                    s.push('\n');
                    s.push_str(&"    ".repeat(indent));
                }
                s.push_str(close);
                s.push(' ');
                if *d == Delimiter::Brace && !mark_none {
                    s.push('\n');
                    s.push_str(&"    ".repeat(indent));
                }
            }
        }
    }
}

fn count_nodes(toks: &[Tok]) -> usize {
    toks.iter()
        .map(|t| match t {
            Tok::Group(_, inner) => 1 + count_nodes(inner),
            _ => 1,
        })
        .sum()
}

fn has_none_group(toks: &[Tok]) -> bool {
    toks.iter().any(|t| match t {
        Tok::Group(d, inner) => *d == Delimiter::None || has_none_group(inner),
        _ => false,
    })
}

// ---- one case: what the compiler would hand the macro --------------------------------------

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum GenKind {
    Soup,
    Grammar,
    Mutate,
}

impl GenKind {
    fn name(&self) -> &'static str {
        match self {
            GenKind::Soup => "soup",
            GenKind::Grammar => "grammar",
            GenKind::Mutate => "mutate",
        }
    }
    fn parse(s: &str) -> Option<GenKind> {
        Some(match s {
            "soup" => GenKind::Soup,
            "grammar" => GenKind::Grammar,
            "mutate" => GenKind::Mutate,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug)]
struct Case {
    attr: Vec<Tok>,
    item: Vec<Tok>,
    kind: FnKind,
    /// Through source text (real spans with lines), else built directly (call-site spans,
    /// invisible groups kept).
    via_text: bool,
}

impl Case {
    fn streams(&self) -> (TokenStream, TokenStream) {
        if self.via_text {
            let a = render(&self.attr, false).parse::<TokenStream>();
            let i = render(&self.item, false).parse::<TokenStream>();
            if let (Ok(a), Ok(i)) = (a, i) {
                return (a, i);
            }
        }
        (to_ts(&self.attr), to_ts(&self.item))
    }

    fn describe(&self) -> String {
        let what = match self.kind {
            FnKind::Kernel => "gpu_kernel",
            FnKind::Device => "gpu_device",
        };
        let mut s = format!(
            "#[{what}({})]  // built {}\n{}",
            render(&self.attr, true).trim_end(),
            if self.via_text {
                "from source text"
            } else {
                "directly as token trees"
            },
            render(&self.item, !self.via_text).trim_end()
        );
        if !self.via_text && has_none_group(&self.item) {
            s.push_str("\n// ⟦...⟧ is an invisible (Delimiter::None) group");
        }
        s
    }

    fn size(&self) -> usize {
        count_nodes(&self.attr) + count_nodes(&self.item)
    }
}

// ---- catching panics -------------------------------------------------------------------------

thread_local! {
    static CAPTURE: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<PanicReport>> = const { RefCell::new(None) };
}

#[derive(Clone, Debug)]
struct PanicReport {
    message: String,
    location: String,
    backtrace: String,
}

static KNOWN_LOCATIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CAPTURE.with(|c| c.get()) {
                return previous(info);
            }
            let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = info.payload().downcast_ref::<String>() {
                s.clone()
            } else {
                "<non-string payload>".to_string()
            };
            let location = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            // The backtrace only for a location not seen yet: it is slow.
            let new = {
                let mut known = KNOWN_LOCATIONS.lock().unwrap_or_else(|e| e.into_inner());
                if known.contains(&location) {
                    false
                } else {
                    known.push(location.clone());
                    true
                }
            };
            let backtrace = if new {
                let bt = std::backtrace::Backtrace::force_capture().to_string();
                let lines: Vec<&str> = bt.lines().collect();
                let mut keep = String::new();
                for (i, l) in lines.iter().enumerate() {
                    if l.contains("warpspeed_macros::") && !l.contains("fuzz_tests") {
                        keep.push_str(l.trim());
                        if let Some(at) = lines.get(i + 1).filter(|n| n.trim().starts_with("at ")) {
                            keep.push_str("  ");
                            keep.push_str(at.trim());
                        }
                        keep.push('\n');
                    }
                }
                keep
            } else {
                String::new()
            };
            LAST_PANIC.with(|p| {
                *p.borrow_mut() = Some(PanicReport {
                    message,
                    location,
                    backtrace,
                })
            });
        }));
    });
}

enum Outcome {
    /// The expansion ran; `errors`: it reported compile errors; `bad_output`: its tokens do
    /// not parse as Rust items (a soft check, reported, not a failure).
    Done {
        errors: Option<String>,
        bad_output: Option<String>,
    },
    Panic(PanicReport),
}

/// The message of the expansion's first `compile_error!`, if any.
fn first_error(ts: &TokenStream) -> Option<String> {
    let mut it = ts.clone().into_iter();
    while let Some(t) = it.next() {
        if matches!(&t, TokenTree::Ident(i) if i == "compile_error") {
            for t in it.by_ref().take(2) {
                if let TokenTree::Group(g) = t {
                    let msg = g.stream().into_iter().next().map(|l| l.to_string());
                    return Some(msg.unwrap_or_default());
                }
            }
            return Some(String::new());
        }
    }
    None
}

/// The function under test: `expand::expand_inner`, or a stand-in in the harness's own test.
type Expander = fn(TokenStream, TokenStream, FnKind) -> TokenStream;

fn run_case(case: &Case, check_output: bool) -> Outcome {
    run_with(crate::expand::expand_inner, case, check_output)
}

fn run_with(expand: Expander, case: &Case, check_output: bool) -> Outcome {
    let outcome = {
        let (attr, item) = case.streams();
        CAPTURE.with(|c| c.set(true));
        let result = catch_unwind(AssertUnwindSafe(|| expand(attr, item, case.kind)));
        CAPTURE.with(|c| c.set(false));
        match result {
            Ok(ts) => {
                let errors = first_error(&ts);
                let bad_output = if check_output {
                    syn::parse2::<syn::File>(ts).err().map(|e| e.to_string())
                } else {
                    None
                };
                Outcome::Done { errors, bad_output }
            }
            Err(_) => Outcome::Panic(LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or(
                PanicReport {
                    message: "<no panic message captured>".into(),
                    location: String::new(),
                    backtrace: String::new(),
                },
            )),
        }
    };
    // Every stream of this case is dropped: forget their source text (it grows forever).
    proc_macro2::extra::invalidate_current_thread_spans();
    outcome
}

// ---- minimizing a panicking input ------------------------------------------------------------

fn node_paths(toks: &[Tok], prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, t) in toks.iter().enumerate() {
        prefix.push(i);
        out.push(prefix.clone());
        if let Tok::Group(_, inner) = t {
            node_paths(inner, prefix, out);
        }
        prefix.pop();
    }
}

fn container<'a>(toks: &'a mut Vec<Tok>, path: &[usize]) -> Option<&'a mut Vec<Tok>> {
    match path {
        [] | [_] => Some(toks),
        [first, rest @ ..] => match toks.get_mut(*first)? {
            Tok::Group(_, inner) => container(inner, rest),
            _ => None,
        },
    }
}

/// Greedy: delete nodes, replace groups by their content, empty groups, while the input still
/// panics at the same location.
fn minimize(expand: Expander, case: &Case, location: &str) -> Case {
    let still = |c: &Case| matches!(run_with(expand, c, false), Outcome::Panic(p) if p.location == location);
    let mut best = case.clone();
    let mut tries = 0;
    let mut improved = true;
    while improved && tries < 4000 {
        improved = false;
        for in_attr in [true, false] {
            let mut paths = Vec::new();
            node_paths(
                if in_attr { &best.attr } else { &best.item },
                &mut Vec::new(),
                &mut paths,
            );
            // Outer nodes first: deleting them removes the most.
            paths.sort_by_key(|p| p.len());
            for path in paths {
                for action in 0..3 {
                    if tries >= 4000 {
                        break;
                    }
                    let mut cand = best.clone();
                    let toks = if in_attr {
                        &mut cand.attr
                    } else {
                        &mut cand.item
                    };
                    let Some(list) = container(toks, &path) else {
                        continue;
                    };
                    let idx = *path.last().unwrap();
                    if idx >= list.len() {
                        continue;
                    }
                    match (action, &list[idx]) {
                        (0, _) => {
                            list.remove(idx);
                        }
                        (1, Tok::Group(_, inner)) => {
                            let inner = inner.clone();
                            list.splice(idx..=idx, inner);
                        }
                        (2, Tok::Group(d, inner)) if !inner.is_empty() => {
                            list[idx] = Tok::Group(*d, Vec::new());
                        }
                        _ => continue,
                    }
                    tries += 1;
                    if still(&cand) {
                        best = cand;
                        improved = true;
                        break;
                    }
                }
                if improved {
                    break;
                }
            }
            if improved {
                break;
            }
        }
    }
    best
}

// ---- vocabulary ---------------------------------------------------------------------------

#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "union", "gen",
    "macro_rules", "_",
];

#[rustfmt::skip]
const KERNEL_WORDS: &[&str] = &[
    "thread_idx", "block_idx", "block_dim", "grid_dim", "grid_1d", "grid_2d", "grid_3d",
    "grid_stride_1d", "lane_id", "sync_threads", "sync_threads_count", "sync_threads_and",
    "sync_threads_or", "sync_warp", "thread_fence", "thread_fence_block", "thread_fence_system",
    "SharedArray", "dynamic_shared", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
    "shfl_xor_sync", "ballot_sync", "all_sync", "any_sync", "match_any_sync", "active_mask",
    "gpu_print", "gpu_println", "Ordering", "Relaxed", "Acquire", "Release", "AcqRel", "SeqCst",
    "AtomicU32", "AtomicI32", "AtomicU64", "AtomicI64", "AtomicF32", "AtomicF64", "AtomicF16",
    "AtomicF16x2", "AtomicUsize", "fetch_add", "fetch_sub", "fetch_and", "fetch_or",
    "fetch_xor", "fetch_min", "fetch_max", "compare_exchange", "compare_exchange_weak",
    "atomic_inc", "atomic_dec", "load", "store", "swap", "is_ok", "is_err", "unwrap_or_else",
    "this_thread_block", "this_grid", "tiled_partition", "thread_rank", "num_threads",
    "meta_group_rank", "meta_group_size", "ballot", "shfl", "shfl_down", "shfl_up", "shfl_xor",
    "any", "all", "sync", "f16", "f16x2", "from_f32", "from_f64", "to_f32", "to_f64", "lo",
    "hi", "new", "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32",
    "f64", "bool", "char", "str", "String", "Vec", "Option", "Some", "None", "Ok", "Err", "Box",
    "len", "is_empty", "min", "max", "abs", "sqrt", "sin", "cos", "exp", "ln", "powi", "powf",
    "floor", "ceil", "mul_add", "atan2", "count_ones", "leading_zeros", "trailing_zeros",
    "wrapping_add", "wrapping_sub", "wrapping_mul", "rotate_left", "saturating_add", "clamp",
    "to_bits", "from_bits", "from", "try_from", "ilog2", "isqrt", "sin_cos", "checked_add", "step_by", "rev", "iter", "x", "y", "z",
    "MAX", "MIN", "INFINITY", "NAN", "EPSILON", "NEG_INFINITY", "WARP_SIZE", "Dim3",
    "ThreadBlock", "GridGroup", "core", "std", "warpspeed", "prelude", "assert", "debug_assert",
    "panic", "println", "format", "vec", "unreachable", "matches", "dbg", "int", "float",
    "double", "short", "long", "signed", "unsigned", "auto", "register", "volatile", "template",
    "class", "namespace", "__shared__", "__global__", "__device__", "threadIdx", "blockIdx",
    "blockDim", "gridDim", "__syncthreads", "printf", "main", "NULL", "nullptr", "half",
    "ws_f16", "ws_tmp", "ws_add", "x_1", "i", "j", "k", "n", "out", "a", "b", "v", "acc", "tid",
    "idx", "kernel", "fast_math", "doc", "allow", "inline", "cfg", "unchecked", "é", "π", "ŝum",
    "Ünïcode", "a_very_long_identifier_name_that_goes_on_and_on_and_on_1234", "r#match",
    "r#type", "r#int", "r#async", "r#try", "r#dyn", "r#gen", "r#fn", "r#let",
];

#[rustfmt::skip]
const LITERALS: &[&str] = &[
    "0", "1", "2", "3", "7", "31", "32", "33", "64", "255", "256", "1024", "4096", "65536",
    "0u8", "255u8", "256u8", "-1", "-128i8", "-129i8", "127i8", "-1i32", "-2147483648i32",
    "2147483648i32", "4294967295u32", "4294967296u32", "0xFFFFFFFF", "0xffff_ffffu32",
    "0xFFFF_FFFF_FFFF_FFFFu64", "18446744073709551615", "18446744073709551616",
    "340282366920938463463374607431768211455u128", "340282366920938463463374607431768211456",
    "99999999999999999999999999999999999999999999999999u32", "1u128", "1i128", "1usize",
    "1isize", "1_000_000", "5_u32", "0b1010", "0b1111_1111u8", "0o777", "0o8", "1u7", "1f16",
    "1.0f16", "65504.0f16", "1f32", "1f64", "1f33", "1xyz", "1.", "0.0", "-0.0", "1.5",
    "1.5f32", "2.0f64", "3.4e38f32", "3.5e38f32", "1e10", "1e38", "1e39f32", "1e308", "1e309",
    "1e400", "2.5e-308", "1e-45", "1e-46f32", "1e-400", "-1.5e-3", "1E5", "1e+5", "1.0_f32",
    "0.1", "123456789.123456789", "1_f32", "0x1f32", "'a'", "'\\n'", "'\\0'", "'\\u{10FFFF}'",
    "'\\u{0}'", "'é'", "'\\''", "'{'", "'%'", "\"hello\"", "\"\"", "\"{}\"", "\"{} {}\"",
    "\"{x}\"", "\"{:5}\"", "\"{:x}\"", "\"{:.3}\"", "\"{:?}\"", "\"{{}}\"", "\"{\"", "\"}\"",
    "\"%d %s %%\"", "\"\\n\\t\\\\\\\"\"", "\"é π 🚀\"", "\"\\0\"", "\"\\u{7f}\\x01\"", "b'a'",
    "b'\\xff'", "b\"bytes\"", "br\"raw bytes\"", "r\"raw\"", "r#\"raw {} \"quoted\" \"#",
    "c\"cstr\"", "cr\"raw c\"", "\"suffix\"xyz", "'c'u8",
];

#[rustfmt::skip]
const PUNCTS: &[&str] = &[
    "+", "-", "*", "/", "%", "^", "!", "&", "|", "&&", "||", "<<", ">>", "+=", "-=", "*=", "/=",
    "%=", "^=", "&=", "|=", "<<=", ">>=", "=", "==", "!=", ">", "<", ">=", "<=", "@", ".", "..",
    "...", "..=", ",", ";", ":", "::", "->", "=>", "#", "$", "?", "~", "<-",
];

fn pick_ident(r: &mut Rng) -> Tok {
    match r.below(10) {
        0..=1 => ident(r.pick(KEYWORDS)),
        _ => ident(r.pick(KERNEL_WORDS)),
    }
}

fn pick_lit(r: &mut Rng) -> Tok {
    if r.pct(15) {
        // Random numbers and suffixes.
        let sfx = [
            "", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "usize", "f32", "f64",
        ];
        let n = match r.below(4) {
            0 => format!("{}", r.next()),
            1 => format!("{}", r.below(100)),
            2 => format!("{}.{}", r.below(1000), r.below(1000)),
            _ => format!("{:e}", f64::from_bits(r.next()))
                .replace("inf", "1e999")
                .replace("NaN", "0.0"),
        };
        return Tok::Lit(format!("{n}{}", r.pick(&sfx)));
    }
    Tok::Lit(r.pick(LITERALS).to_string())
}

fn pick_delim(r: &mut Rng) -> Delimiter {
    r.pick(&[
        Delimiter::Parenthesis,
        Delimiter::Bracket,
        Delimiter::Brace,
        Delimiter::None,
    ])
}

// ---- generator (a): token soup ----------------------------------------------------------

fn soup(r: &mut Rng, depth: u32, lo: usize, hi: usize) -> Vec<Tok> {
    let len = r.range(lo, hi);
    let mut out = Vec::new();
    for _ in 0..len {
        match r.below(100) {
            0..=34 => out.push(pick_ident(r)),
            35..=54 => out.push(pick_lit(r)),
            55..=84 => out.extend(punct(r.pick(PUNCTS))),
            85..=87 => {
                out.push(Tok::Punct('\'', true));
                out.push(ident(r.pick(&["a", "outer", "static", "_", "inner"])));
            }
            _ if depth > 0 => {
                let n = r.below(6);
                out.push(Tok::Group(pick_delim(r), soup(r, depth - 1, n, n)))
            }
            _ => out.push(pick_ident(r)),
        }
    }
    out
}

/// Soup that syn often accepts: statements of which the random parts sit in macro calls,
/// expressions of few tokens, or types.
/// An expression of random words that syn mostly accepts: atoms (names, literals, calls,
/// method calls, indexing, casts, invisible groups) joined by random operators.
fn soup_expr(r: &mut Rng, depth: u32) -> Vec<Tok> {
    let mut e = Vec::new();
    let n = if depth == 0 { 1 } else { r.range(1, 3) };
    for i in 0..n {
        if i > 0 {
            e.extend(punct(r.pick(&[
                "+", "-", "*", "/", "%", "^", "&", "|", "&&", "||", "<<", ">>", "==", "!=", "<",
                ">", "<=", ">=", "..", "..=", "=",
            ])));
        }
        if r.pct(10) {
            e.extend(punct(r.pick(&["-", "!", "*", "&"])));
        }
        let word = |r: &mut Rng| {
            if r.pct(93) {
                ident(r.pick(KERNEL_WORDS))
            } else {
                pick_ident(r)
            }
        };
        let d = depth.saturating_sub(1);
        match r.below(12) {
            0..=2 => e.push(word(r)),
            3..=4 => e.push(pick_lit(r)),
            5 => {
                e.push(word(r));
                let mut args = Vec::new();
                for j in 0..r.below(4) {
                    if j > 0 {
                        args.extend(punct(","));
                    }
                    args.extend(soup_expr(r, d));
                }
                e.push(Tok::Group(Delimiter::Parenthesis, args));
            }
            6 => {
                e.push(word(r));
                e.extend(punct("."));
                e.push(if r.pct(80) {
                    word(r)
                } else {
                    Tok::Lit(r.pick(&["0", "1", "2"]).into())
                });
                if r.pct(70) {
                    let args = if r.pct(50) {
                        soup_expr(r, d)
                    } else {
                        Vec::new()
                    };
                    e.push(Tok::Group(Delimiter::Parenthesis, args));
                }
            }
            7 => {
                e.push(word(r));
                e.push(Tok::Group(Delimiter::Bracket, soup_expr(r, d)));
            }
            8 => e.push(Tok::Group(
                if r.pct(50) {
                    Delimiter::Parenthesis
                } else {
                    Delimiter::None
                },
                soup_expr(r, d),
            )),
            9 => {
                e.push(word(r));
                e.extend(punct("::"));
                e.push(word(r));
            }
            10 => {
                e.extend(soup_expr(r, d));
                e.push(ident("as"));
                e.push(ident(r.pick(SCALARS)));
            }
            _ => e.extend(soup(r, d, 1, 2)),
        }
    }
    e
}

fn soup_stmt(r: &mut Rng, depth: u32) -> Vec<Tok> {
    let mut s = Vec::new();
    match r.below(10) {
        0 | 7 => {
            s.push(ident("let"));
            s.push(if r.pct(80) {
                ident(r.pick(VAR_NAMES))
            } else {
                pick_ident(r)
            });
            if r.pct(50) {
                s.extend(punct(":"));
                s.extend(soup_type(r, depth));
            }
            s.extend(punct("="));
            if r.pct(80) {
                s.extend(soup_expr(r, depth));
            } else {
                s.extend(soup(r, depth, 1, 3));
            }
            s.extend(punct(";"));
        }
        8 => {
            s.extend(soup_expr(r, depth));
            s.extend(punct(";"));
        }
        1 | 2 | 9 => {
            let mac = r.pick(&[
                "gpu_print",
                "gpu_println",
                "assert",
                "panic",
                "println",
                "vec",
                "unknown",
                "format",
                "debug_assert",
                "matches",
                "gpu_kernel",
            ]);
            s.push(ident(mac));
            s.extend(punct("!"));
            let mut args = Vec::new();
            if r.pct(70) {
                args.push(pick_lit(r));
                args.extend(punct(","));
            }
            if r.pct(60) {
                for j in 0..r.below(4) {
                    if j > 0 {
                        args.extend(punct(","));
                    }
                    args.extend(soup_expr(r, depth));
                }
            } else {
                args.extend(soup(r, depth, 0, 7));
            }
            s.push(Tok::Group(pick_delim(r), args));
            s.extend(punct(";"));
        }
        3 => {
            s.push(pick_ident(r));
            s.push(Tok::Group(Delimiter::Parenthesis, soup(r, depth, 0, 3)));
            s.extend(punct(";"));
        }
        4 => {
            s.extend(soup(r, depth, 1, 4));
            s.extend(punct(";"));
        }
        5 => {
            s.push(pick_ident(r));
            s.push(Tok::Group(Delimiter::Bracket, soup_expr(r, depth)));
            s.extend(punct(r.pick(&["=", "+=", "^=", "<<="])));
            s.extend(soup_expr(r, depth));
            s.extend(punct(";"));
        }
        6 => {
            s.push(ident(
                r.pick(&["if", "while", "for", "loop", "match", "unsafe"]),
            ));
            if r.pct(70) {
                s.extend(soup_expr(r, depth));
            } else {
                s.extend(soup(r, depth, 0, 3));
            }
            s.push(Tok::Group(
                Delimiter::Brace,
                soup_body(r, depth.saturating_sub(1)),
            ));
        }
        _ => s.extend(soup(r, depth, 1, 6)),
    }
    s
}

fn soup_body(r: &mut Rng, depth: u32) -> Vec<Tok> {
    let mut b = Vec::new();
    for _ in 0..r.below(5) {
        b.extend(soup_stmt(r, depth));
    }
    b
}

fn soup_type(r: &mut Rng, depth: u32) -> Vec<Tok> {
    match r.below(10) {
        0 | 6 | 7 => {
            let mut t = punct("&");
            if r.pct(50) {
                t.push(ident("mut"));
            }
            let inner = match r.below(4) {
                0 | 1 => vec![ident(r.pick(SCALARS))],
                2 => vec![ident(r.pick(ATOMICS).0)],
                _ => soup_type(r, depth.saturating_sub(1)),
            };
            t.push(Tok::Group(Delimiter::Bracket, inner));
            t
        }
        8 => vec![ident(r.pick(SCALARS))],
        9 => vec![Tok::Group(
            Delimiter::None,
            soup_type(r, depth.saturating_sub(1)),
        )],
        1 => vec![ident(r.pick(KERNEL_WORDS))],
        2 if depth > 0 => {
            let mut t = vec![ident(r.pick(&[
                "SharedArray",
                "Option",
                "Vec",
                "AtomicU32",
                "f16",
            ]))];
            t.extend(punct("<"));
            t.extend(soup(r, depth - 1, 1, 3));
            t.extend(punct(">"));
            t
        }
        3 => vec![Tok::Group(
            Delimiter::Parenthesis,
            soup(r, depth.saturating_sub(1), 0, 2),
        )],
        4 => vec![Tok::Group(
            Delimiter::Bracket,
            [vec![ident("u32")], punct(";"), vec![pick_lit(r)]].concat(),
        )],
        _ => soup(r, depth.saturating_sub(1), 1, 3),
    }
}

fn soup_attr(r: &mut Rng) -> Vec<Tok> {
    match r.below(12) {
        0..=3 => Vec::new(),
        4 => vec![ident("fast_math")],
        5 => vec![ident("unchecked")],
        6 => [
            vec![ident(r.pick(&["fast_math", "unchecked"]))],
            punct(","),
            vec![ident(r.pick(&["fast_math", "unchecked", "kernel"]))],
        ]
        .concat(),
        7 => [vec![ident("fast_math")], punct("="), vec![pick_lit(r)]].concat(),
        8 => vec![
            ident("fast_math"),
            Tok::Group(pick_delim(r), soup(r, 1, 0, 2)),
        ],
        9 => [punct("::"), vec![ident("fast_math")]].concat(),
        _ => soup(r, 2, 1, 5),
    }
}

fn gen_soup(r: &mut Rng) -> (Vec<Tok>, Vec<Tok>) {
    let depth = r.range(1, 4) as u32;
    let mut item = Vec::new();
    let attrs = if r.pct(70) { 0 } else { r.range(1, 2) };
    for _ in 0..attrs {
        item.extend(punct("#"));
        if r.pct(5) {
            item.extend(punct("!"));
        }
        let inner = match r.below(4) {
            0 => [vec![ident("doc")], punct("="), vec![pick_lit(r)]].concat(),
            1 => vec![
                ident("allow"),
                Tok::Group(Delimiter::Parenthesis, soup(r, 1, 0, 2)),
            ],
            2 => vec![ident(r.pick(&[
                "gpu_kernel",
                "gpu_device",
                "inline",
                "cfg",
                "test",
            ]))],
            _ => soup(r, depth, 1, 4),
        };
        item.push(Tok::Group(Delimiter::Bracket, inner));
    }
    if r.pct(30) {
        item.push(ident("pub"));
        if r.pct(15) {
            item.push(Tok::Group(Delimiter::Parenthesis, soup(r, 1, 1, 2)));
        }
    }
    for q in ["const", "async", "unsafe"] {
        if r.pct(5) {
            item.push(ident(q));
        }
    }
    if r.pct(5) {
        item.push(ident("extern"));
        item.push(pick_lit(r));
    }
    if r.pct(95) {
        item.push(ident("fn"));
    } else {
        item.push(ident(r.pick(&[
            "struct", "enum", "mod", "static", "impl", "trait", "type",
        ])));
    }
    item.push(if r.pct(85) {
        ident(r.pick(FN_NAMES))
    } else {
        pick_ident(r)
    });
    if r.pct(10) {
        item.extend(punct("<"));
        item.extend(soup(r, 1, 1, 3));
        item.extend(punct(">"));
    }
    // Parameters: mostly `name: type` pairs.
    let params = if r.pct(85) {
        let mut p = Vec::new();
        for i in 0..r.below(5) {
            if i > 0 {
                p.extend(punct(","));
            }
            if r.pct(20) {
                p.push(ident("mut"));
            }
            p.push(if r.pct(80) {
                ident(r.pick(VAR_NAMES))
            } else {
                pick_ident(r)
            });
            p.extend(punct(":"));
            p.extend(soup_type(r, depth));
        }
        if r.pct(10) {
            p.extend(punct(","));
        }
        p
    } else {
        soup(r, depth, 0, 7)
    };
    item.push(Tok::Group(
        if r.pct(95) {
            Delimiter::Parenthesis
        } else {
            pick_delim(r)
        },
        params,
    ));
    if r.pct(25) {
        item.extend(punct("->"));
        item.extend(soup_type(r, depth));
    }
    if r.pct(5) {
        item.push(ident("where"));
        item.extend(soup(r, 1, 1, 4));
    }
    let body = if r.pct(85) {
        soup_body(r, depth)
    } else {
        soup(r, depth, 0, 11)
    };
    if r.pct(97) {
        item.push(Tok::Group(Delimiter::Brace, body));
    } else {
        item.extend(punct(";"));
    }
    if r.pct(3) {
        item.extend(soup(r, 1, 1, 4));
    }
    (soup_attr(r), item)
}

// ---- generator (b): functions of the kernel subset ------------------------------------------

const INTS: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize",
];
const SCALARS: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64", "bool",
    "f16", "u32", "i32", "f32", "usize", "f64",
];
const ATOMICS: &[(&str, &str)] = &[
    ("AtomicU32", "u32"),
    ("AtomicI32", "i32"),
    ("AtomicU64", "u64"),
    ("AtomicI64", "i64"),
    ("AtomicF32", "f32"),
    ("AtomicF64", "f64"),
    ("AtomicF16", "f16"),
    ("AtomicF16x2", "f16x2"),
    ("AtomicUsize", "usize"),
];
#[rustfmt::skip]
const WEIRD_TYPES: &[&str] = &[
    "()", "String", "&str", "Vec<u32>", "Option<u32>", "[u32; 4]", "[u32]", "&&[u32]",
    "&[&[u32]]", "*const u32", "*mut f32", "Box<u32>", "impl Fn(u32) -> u32", "dyn Send",
    "fn(u32) -> u32", "(u32, u32)", "(u32,)", "!", "_", "Self", "T", "u128", "i128", "char",
    "f16x2", "Dim3", "ThreadBlock", "&[f16x2]", "&mut [bool]", "&[AtomicBool]",
    "&SharedArray<u32, 4>", "SharedArray<u32, 4>", "&mut u32", "&u32", "core::primitive::u32",
    "std::sync::atomic::AtomicU32", "&[core::sync::atomic::AtomicU32]", "&[warpspeed::f16]",
    "&'static [u32]", "&'a mut [u32]", "&mut [[u32; 2]]", "&[(u32, f32)]", "u32<u32>",
    "<u32 as Trait>::X", "&[Option<u32>]", "&[u32; 3]", "&mut &mut [u32]", "&[usize]",
    "&mut [AtomicU32]", "&[AtomicU128]", "&[AtomicF16x2]", "&[f16]", "&mut [f16x2]",
];
#[rustfmt::skip]
const VAR_NAMES: &[&str] = &[
    "i", "j", "k", "n", "x", "y", "acc", "sum", "tmp", "idx", "tid", "lane", "v", "w", "a", "b",
    "int", "float", "double", "char_", "short", "long", "auto", "register", "signed", "ws_tmp",
    "ws_f16", "threadIdx", "__shared__", "x_1", "i_1", "printf", "main", "new", "volatile",
    "template", "class", "namespace", "r#match", "r#type", "r#int", "_x", "é", "π", "NULL",
    "nullptr", "half", "min", "max", "sqrt", "y_1", "static_cast", "goto", "this", "asm",
    "restrict", "sizeof", "true_", "default", "case", "switch", "operator", "delete",
];
#[rustfmt::skip]
const FN_NAMES: &[&str] = &[
    "k", "kernel", "add", "scan", "main", "int", "printf", "r#match", "ws_kernel", "helper",
    "__global__", "é", "launch", "ITEM", "SourceItem", "warpspeed", "core", "std", "super_",
    "threadIdx", "sync_threads", "x_1", "mod_", "crate_", "launch_cooperative",
];
#[rustfmt::skip]
const FMT_PIECES: &[&str] = &[
    "{}", "{} ", "{:5}", "{:05}", "{:.3}", "{:8.2}", "{:x}", "{:X}", "{:08x}", "{:?}", "{:>8}",
    "{:<4}", "{:^4}", "{0}", "{1}", "{:e}", "{:+}", "{:#x}", "{{", "}}", "{", "}", "%d", "%s",
    "%%", "%", "\\n", "\\t", "\\\\", "\\\"", "é", "🚀", "x = ", " ", "{:.0}", "{:.100}",
    "{:1000}", "{:width$}", "{:.*}", "{x}", "{y}", "{undefined}", "{:}", "{ }", "\\0", "\\u{0}",
];

#[derive(Clone)]
enum VTy {
    Scalar(&'static str),
    Slice(&'static str, bool),
    /// The element type (`u32` for `AtomicU32`).
    Atomics(&'static str),
    Shared(&'static str),
    Block,
    Tile,
}

#[derive(Clone)]
struct Var {
    name: String,
    ty: VTy,
    mutable: bool,
}

struct Gram<'a> {
    r: &'a mut Rng,
    vars: Vec<Var>,
    fuel: i32,
    loops: u32,
    labels: Vec<String>,
    kind: FnKind,
    ret: Option<&'static str>,
    /// No deliberately invalid choices: more cases get through to the emitters.
    clean: bool,
}

impl Gram<'_> {
    /// A deliberately invalid or unsupported choice, with probability `p` percent (never in
    /// a clean function).
    fn weird(&mut self, p: u32) -> bool {
        !self.clean && self.r.pct(p)
    }

    fn name(&mut self) -> String {
        if self.r.pct(60) {
            self.r.pick(&VAR_NAMES[..16]).to_string()
        } else {
            self.r.pick(VAR_NAMES).to_string()
        }
    }

    fn scalar(&mut self) -> &'static str {
        self.r.pick(SCALARS)
    }

    fn vars_of(&self, f: impl Fn(&VTy) -> bool) -> Vec<Var> {
        // Later declarations shadow earlier ones.
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for v in self.vars.iter().rev() {
            if seen.contains(&v.name.as_str()) {
                continue;
            }
            seen.push(&v.name);
            if f(&v.ty) {
                out.push(v.clone());
            }
        }
        out
    }

    fn ty_text(&mut self, t: &'static str) -> String {
        if self.weird(4) {
            self.r.pick(WEIRD_TYPES).to_string()
        } else {
            t.to_string()
        }
    }

    fn lit(&mut self, t: &str) -> String {
        let weird = self.weird(8);
        let r = &mut *self.r;
        if weird {
            return r.pick(LITERALS).to_string();
        }
        let suffix = r.pct(40);
        let clean = self.clean;
        match t {
            "bool" => r.pick(&["true", "false"]).to_string(),
            "f32" | "f64" => {
                let v = r.pick(&[
                    "0.0", "1.0", "0.5", "2.5", "1e-3", "3.4e38", "1e39", "1e-45", "65504.0",
                    "0.1", "123.456", "1e300", "1.", "1e400",
                ]);
                if suffix || t == "f32" && r.pct(70) {
                    format!("{v}{t}")
                } else {
                    v.to_string()
                }
            }
            "f16" => format!(
                "f16::from_f32({}f32)",
                r.pick(&["0.0", "1.5", "65504.0", "1e-8", "70000.0"])
            ),
            "f16x2" => "f16x2::new(f16::from_f32(1.0f32), f16::from_f32(2.0f32))".to_string(),
            _ => {
                let signed = t.starts_with('i');
                let v = match r.below(6) {
                    3 | 4 if clean => format!("{}", r.below(100)),
                    0 => "0".to_string(),
                    1 => "1".to_string(),
                    2 => format!("{}", r.below(64)),
                    3 => format!("{}", r.below(100_000)),
                    4 => r
                        .pick(&[
                            "255",
                            "256",
                            "65535",
                            "2147483647",
                            "2147483648",
                            "4294967295",
                            "4294967296",
                            "9223372036854775807",
                            "18446744073709551615",
                            "0xFF",
                            "0xFFFF_FFFF",
                            "0b1010",
                            "0o17",
                            "1_000",
                        ])
                        .to_string(),
                    _ => format!("{}", r.below(10)),
                };
                let v = if signed && r.pct(20) {
                    format!("-{v}")
                } else {
                    v
                };
                if suffix {
                    format!("{v}{t}")
                } else {
                    v
                }
            }
        }
    }

    /// An expression meant to have type `t` (sometimes not).
    fn expr(&mut self, t: &'static str, depth: u32) -> String {
        self.fuel -= 1;
        if self.weird(3) {
            let other = self.scalar();
            if other != t {
                return self.expr(other, depth.saturating_sub(1));
            }
        }
        if depth == 0 || self.fuel <= 0 {
            return self.atom(t);
        }
        let d = depth - 1;
        let is_int = INTS.contains(&t);
        let is_float = t == "f32" || t == "f64";
        match self.r.below(24) {
            0..=3 => self.atom(t),
            4..=7 if is_int || is_float || t == "f16" => {
                let ops: &[&str] = if is_int {
                    &["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]
                } else {
                    &["+", "-", "*", "/", "%"]
                };
                let op = self.r.pick(ops);
                let rt = if (op == "<<" || op == ">>") && self.r.pct(50) {
                    self.r.pick(INTS)
                } else {
                    t
                };
                format!("{} {op} {}", self.expr(t, d), self.expr(rt, d))
            }
            4..=7 if t == "bool" => {
                if self.r.pct(50) {
                    let u = self
                        .r
                        .pick(&["u32", "i32", "f32", "usize", "f64", "u8", "f16"]);
                    let op = self.r.pick(&["<", ">", "<=", ">=", "==", "!="]);
                    format!("{} {op} {}", self.expr(u, d), self.expr(u, d))
                } else {
                    let op = self.r.pick(&["&&", "||", "&", "|", "^", "==", "!="]);
                    format!("{} {op} {}", self.expr("bool", d), self.expr("bool", d))
                }
            }
            8 => format!("({})", self.expr(t, d)),
            9 if t == "bool" => format!("!{}", self.expr("bool", d)),
            9 if is_int || is_float || t == "f16" => {
                if t.starts_with('u') && self.r.pct(70) {
                    format!("!{}", self.expr(t, d))
                } else {
                    format!("-{}", self.expr(t, d))
                }
            }
            10 | 11 if is_int || is_float => {
                let from = self.r.pick(&[
                    "u8", "u32", "i32", "i64", "u64", "usize", "f32", "f64", "bool", "i8", "isize",
                    "u16", "char",
                ]);
                let from = if from == "char" { "u8" } else { from };
                let ty = self.ty_text(t);
                format!("({} as {ty})", self.expr(from, d))
            }
            12 | 13 => {
                let slices =
                    self.vars_of(|v| matches!(v, VTy::Slice(e, _) | VTy::Shared(e) if *e == t));
                if slices.is_empty() {
                    return self.atom(t);
                }
                let s = self.r.pick(&slices).name.clone();
                format!("{s}[{}]", self.expr("usize", d))
            }
            14 => self.method(t, d),
            15 => self.intrinsic(t, d),
            16 => format!(
                "if {} {{ {} }} else {{ {} }}",
                self.expr("bool", d),
                self.expr(t, d),
                self.expr(t, d)
            ),
            17 => {
                let n = self.name();
                let ty = self.ty_text(t);
                let inner = self.expr(t, d);
                format!("{{ let {n}: {ty} = {inner}; {n} }}")
            }
            18 => {
                let f = self
                    .r
                    .pick(&["helper", "dev", "square", "int", "unknown_fn"])
                    .to_string();
                let args: Vec<String> = (0..self.r.below(4))
                    .map(|_| {
                        let a = self.scalar();
                        self.expr(a, d)
                    })
                    .collect();
                format!("{f}({})", args.join(", "))
            }
            19 if !self.clean => self.odd_expr(t, d),
            20 if is_int || is_float => {
                let consts: &[&str] = if is_int {
                    if self.clean {
                        &["MAX", "MIN"]
                    } else {
                        &["MAX", "MIN", "BITS"]
                    }
                } else {
                    &["MAX", "MIN", "INFINITY", "NAN", "EPSILON", "NEG_INFINITY"]
                };
                format!("{t}::{}", self.r.pick(consts))
            }
            21 => self.match_expr(t, d),
            22 => {
                // A tuple value, read back by a field.
                let other = self.scalar();
                let (a, b) = (self.expr(t, d), self.expr(other, d));
                if self.r.pct(50) {
                    format!("({a}, {b}).0")
                } else {
                    format!("({b}, ({a},)).1 .0")
                }
            }
            _ => self.atom(t),
        }
    }

    /// A `match` giving a `t`: on an integer or a bool, with literals, ranges, `|`,
    /// bindings, guards, constants and `_` (exhaustive when clean).
    fn match_expr(&mut self, t: &'static str, d: u32) -> String {
        let st = self
            .r
            .pick(&["u8", "i8", "i32", "u64", "usize", "isize", "bool", "i16"]);
        let scrutinee = self.expr(st, d);
        let mut arms = String::new();
        for _ in 0..self.r.range(0, 4) {
            let pat = if st == "bool" {
                self.r.pick(&["true", "false", "true | false"]).to_string()
            } else {
                let (a, b) = (self.r.below(20), self.r.below(20));
                match self.r.below(if self.clean { 6 } else { 9 }) {
                    0 => format!("{a}"),
                    1 => format!("{} ..= {}", a.min(b), a.max(b)),
                    2 => format!("{a}.."),
                    3 => format!("{a} | {b}"),
                    4 => format!("n @ {}..{}", a.min(b), a.max(b) + 1),
                    5 => format!("{st}::MAX | {st}::MIN"),
                    6 => format!("{b}..={a}"),
                    7 => "LIMIT".to_string(),
                    _ => format!("{a}.0"),
                }
            };
            let guard = if self.r.pct(20) {
                format!(" if {}", self.expr("bool", d))
            } else {
                String::new()
            };
            let body = self.expr(t, d);
            let _ = write!(arms, "{pat}{guard} => {body}, ");
        }
        if self.clean || self.r.pct(70) {
            let body = self.expr(t, d);
            let _ = write!(arms, "_ => {body},");
        }
        format!("match {scrutinee} {{ {arms} }}")
    }

    fn atom(&mut self, t: &'static str) -> String {
        let vars = self.vars_of(|v| matches!(v, VTy::Scalar(s) if *s == t));
        if !vars.is_empty() && self.r.pct(65) {
            return self.r.pick(&vars).name.clone();
        }
        if self.weird(3) {
            return self.name();
        }
        self.lit(t)
    }

    fn method(&mut self, t: &'static str, d: u32) -> String {
        let is_int = INTS.contains(&t);
        let is_float = t == "f32" || t == "f64";
        if t == "usize" && self.r.pct(40) {
            let slices =
                self.vars_of(|v| matches!(v, VTy::Slice(..) | VTy::Atomics(_) | VTy::Shared(_)));
            if let Some(s) = slices.first() {
                return format!("{}.len()", s.name);
            }
        }
        if t == "u32" && self.r.pct(30) {
            let u = self.r.pick(INTS);
            let m = self.r.pick(&[
                "count_ones",
                "leading_zeros",
                "trailing_zeros",
                "count_zeros",
                "leading_ones",
                "trailing_ones",
            ]);
            return format!("{}.{m}()", self.expr(u, d));
        }
        if is_float {
            return match self.r.below(4) {
                0 => format!(
                    "{}.{}()",
                    self.expr(t, d),
                    self.r.pick(&[
                        "sqrt", "sin", "cos", "exp", "ln", "floor", "ceil", "abs", "round",
                        "trunc", "tanh", "fract", "signum", "cbrt"
                    ])
                ),
                1 => format!(
                    "{}.{}({})",
                    self.expr(t, d),
                    self.r.pick(&["min", "max", "powf", "atan2"]),
                    self.expr(t, d)
                ),
                2 => format!("{}.powi({})", self.expr(t, d), self.expr("i32", d)),
                _ => format!(
                    "{}.mul_add({}, {})",
                    self.expr(t, d),
                    self.expr(t, d),
                    self.expr(t, d)
                ),
            };
        }
        if is_int {
            return match self.r.below(3) {
                0 => format!(
                    "{}.{}({})",
                    self.expr(t, d),
                    self.r
                        .pick(&["min", "max", "wrapping_add", "wrapping_sub", "wrapping_mul"]),
                    self.expr(t, d)
                ),
                1 if t.starts_with('i') => format!("{}.abs()", self.expr(t, d)),
                _ => self.atomic_op(t, d),
            };
        }
        if t == "f16" {
            return match self.r.below(3) {
                0 => format!("f16::from_f32({})", self.expr("f32", d)),
                1 => format!("f16::from_f64({})", self.expr("f64", d)),
                _ => format!("{}.{}()", self.expr("f16x2", d), self.r.pick(&["lo", "hi"])),
            };
        }
        if t == "bool" {
            let atomics = self.vars_of(|v| matches!(v, VTy::Atomics(_)));
            if let Some(a) = atomics.first() {
                let VTy::Atomics(e) = a.ty else {
                    unreachable!()
                };
                let (name, i, x, y) = (
                    a.name.clone(),
                    self.expr("usize", d),
                    self.expr(e, d),
                    self.expr(e, d),
                );
                let (o1, o2) = (
                    self.r.pick(&["Relaxed", "AcqRel", "SeqCst", "Release"]),
                    self.r.pick(&["Relaxed", "Acquire", "SeqCst"]),
                );
                let m = self.r.pick(&["is_ok", "is_err"]);
                return format!(
                    "{name}[{i}].compare_exchange({x}, {y}, Ordering::{o1}, Ordering::{o2}).{m}()"
                );
            }
        }
        self.atom(t)
    }

    fn atomic_op(&mut self, t: &'static str, d: u32) -> String {
        let atomics = self.vars_of(|v| matches!(v, VTy::Atomics(e) if *e == t));
        let Some(a) = atomics.first().cloned() else {
            return self.atom(t);
        };
        let target = format!("{}[{}]", a.name, self.expr("usize", d));
        let ord = |r: &mut Rng| -> String {
            if r.pct(90) {
                format!(
                    "Ordering::{}",
                    r.pick(&["Relaxed", "Acquire", "Release", "AcqRel", "SeqCst"])
                )
            } else {
                r.pick(&[
                    "core::sync::atomic::Ordering::Relaxed",
                    "Relaxed",
                    "ordering",
                    "Ordering::Consume",
                    "1",
                ])
                .to_string()
            }
        };
        match self.r.below(6) {
            0 => format!("{target}.load({})", ord(self.r)),
            1 => {
                let v = self.expr(t, d);
                let o1 = ord(self.r);
                let o2 = ord(self.r);
                let cx = self.r.pick(&["compare_exchange", "compare_exchange_weak"]);
                let tail = self.r.pick(&[
                    ".unwrap_or_else(|v| v)",
                    ".unwrap_or_else(|x| y)",
                    ".unwrap()",
                    "",
                ]);
                format!("{target}.{cx}({}, {v}, {o1}, {o2}){tail}", self.expr(t, d))
            }
            2 if t == "u32" => {
                format!(
                    "{target}.{}({})",
                    self.r.pick(&["atomic_inc", "atomic_dec"]),
                    self.expr("u32", d)
                )
            }
            _ => {
                let op = self.r.pick(&[
                    "fetch_add",
                    "fetch_sub",
                    "fetch_and",
                    "fetch_or",
                    "fetch_xor",
                    "fetch_min",
                    "fetch_max",
                    "swap",
                ]);
                let v = self.expr(t, d);
                format!("{target}.{op}({v}, {})", ord(self.r))
            }
        }
    }

    fn intrinsic(&mut self, t: &'static str, d: u32) -> String {
        match t {
            "u32" => match self.r.below(9) {
                0 => format!(
                    "{}().{}",
                    self.r
                        .pick(&["thread_idx", "block_idx", "block_dim", "grid_dim"]),
                    self.r.pick(&["x", "y", "z", "w"])
                ),
                1 => "lane_id()".to_string(),
                2 => format!(
                    "ballot_sync({}, {})",
                    self.expr("u32", d),
                    self.expr("bool", d)
                ),
                3 => format!("sync_threads_count({})", self.expr("bool", d)),
                4 => "active_mask()".to_string(),
                5 => format!(
                    "match_any_sync({}, {})",
                    self.expr("u32", d),
                    self.expr("u32", d)
                ),
                6 => self.group_call("u32"),
                7 => "WARP_SIZE".to_string(),
                _ => self.shuffle(t, d),
            },
            "usize" => match self.r.below(4) {
                0 => "grid_1d()".to_string(),
                1 => format!("grid_2d().{}", self.r.pick(&["0", "1", "x"])),
                2 => "thread_idx().x as usize".to_string(),
                _ => self.shuffle(t, d),
            },
            "bool" => match self.r.below(4) {
                0 => format!(
                    "{}({})",
                    self.r.pick(&["sync_threads_and", "sync_threads_or"]),
                    self.expr("bool", d)
                ),
                1 => format!(
                    "{}({}, {})",
                    self.r.pick(&["all_sync", "any_sync"]),
                    self.expr("u32", d),
                    self.expr("bool", d)
                ),
                2 => self.group_call("bool"),
                _ => format!("{}.is_empty()", self.r.pick(&["out", "a", "x"])),
            },
            _ => self.shuffle(t, d),
        }
    }

    fn shuffle(&mut self, t: &'static str, d: u32) -> String {
        let f = self.r.pick(&[
            "shfl_sync",
            "shfl_up_sync",
            "shfl_down_sync",
            "shfl_xor_sync",
        ]);
        let mask = if self.r.pct(70) {
            "0xffffffff".to_string()
        } else {
            self.expr("u32", d)
        };
        let v = self.expr(t, d);
        let lane = self.expr("u32", d);
        if self.r.pct(30) {
            format!("{f}({mask}, {v}, {lane}, {})", self.lit("u32"))
        } else {
            format!("{f}({mask}, {v}, {lane})")
        }
    }

    fn group_call(&mut self, t: &'static str) -> String {
        let groups = self.vars_of(|v| matches!(v, VTy::Block | VTy::Tile));
        let Some(g) = groups.first() else {
            return self.lit(t);
        };
        let m = match t {
            "bool" => self.r.pick(&["any", "all"]),
            _ => self.r.pick(&[
                "thread_rank",
                "num_threads",
                "meta_group_rank",
                "meta_group_size",
                "ballot",
                "shfl",
                "shfl_down",
            ]),
        };
        let args = match m {
            "any" | "all" | "ballot" => self.expr("bool", 1),
            "shfl" | "shfl_down" => format!("{}, {}", self.expr(t, 1), self.expr("u32", 1)),
            _ => String::new(),
        };
        format!("{}.{m}({args})", g.name)
    }

    /// Syntax outside the subset (or at its edge), to hit the error paths.
    fn odd_expr(&mut self, t: &'static str, d: u32) -> String {
        match self.r.below(16) {
            0 => format!(
                "match {} {{ 0 => {}, _ => {} }}",
                self.expr("u32", d),
                self.expr(t, d),
                self.expr(t, d)
            ),
            1 => format!("(|q: {t}| q)({})", self.expr(t, d)),
            2 => format!("*&{}", self.expr(t, d)),
            3 => format!("({}, {}).0", self.expr(t, d), self.expr(t, d)),
            4 => format!(
                "[{}, {}][{}]",
                self.expr(t, d),
                self.expr(t, d),
                self.expr("usize", d)
            ),
            5 => format!("[{}; 4][0]", self.expr(t, d)),
            6 => format!("{}?", self.expr(t, d)),
            7 => format!("unsafe {{ {} }}", self.expr(t, d)),
            8 => format!("S {{ x: {} }}.x", self.expr(t, d)),
            9 => format!("loop {{ break {}; }}", self.expr(t, d)),
            10 => format!("{}.await", self.expr(t, d)),
            11 => format!("{t}::from({})", self.expr(t, d)),
            12 => format!("core::cmp::min({}, {})", self.expr(t, d), self.expr(t, d)),
            13 => format!(
                "{}[{}..{}].len()",
                self.r.pick(&["out", "a", "x"]),
                self.expr("usize", d),
                self.expr("usize", d)
            ),
            14 => format!("{{ {} }}", self.expr(t, d)),
            _ => format!("(x = {})", self.expr(t, d)),
        }
    }

    fn stmts(&mut self, depth: u32, n: usize) -> String {
        let mark = self.vars.len();
        let mut s = String::new();
        for _ in 0..n {
            if self.fuel <= 0 {
                break;
            }
            s.push_str(&self.stmt(depth));
            s.push('\n');
        }
        self.vars.truncate(mark);
        s
    }

    fn block(&mut self, depth: u32) -> String {
        let n = self.r.range(0, 4);
        format!("{{\n{}}}", self.stmts(depth, n))
    }

    fn stmt(&mut self, depth: u32) -> String {
        self.fuel -= 1;
        let d = depth.saturating_sub(1);
        let ed = self.r.range(0, 3) as u32;
        match self.r.below(40) {
            0..=6 => {
                let t = self.scalar();
                let name = self.name();
                let mutable = self.r.pct(40);
                let annot = if self.r.pct(40) {
                    format!(": {}", self.ty_text(t))
                } else {
                    String::new()
                };
                let init = self.expr(t, ed);
                self.vars.push(Var {
                    name: name.clone(),
                    ty: VTy::Scalar(t),
                    mutable,
                });
                if self.weird(3) {
                    return format!("let {}{name}{annot};", if mutable { "mut " } else { "" });
                }
                format!(
                    "let {}{name}{annot} = {init};",
                    if mutable { "mut " } else { "" }
                )
            }
            7..=10 => {
                let outs = self.vars_of(|v| matches!(v, VTy::Slice(_, true) | VTy::Shared(_)));
                if outs.is_empty() {
                    return self.stmt(depth);
                }
                let o = self.r.pick(&outs).clone();
                let (VTy::Slice(e, _) | VTy::Shared(e)) = o.ty else {
                    unreachable!()
                };
                let op = if self.r.pct(75) {
                    "="
                } else {
                    self.r
                        .pick(&["+=", "-=", "*=", "/=", "%=", "^=", "|=", "&=", "<<=", ">>="])
                };
                let idx = self.expr("usize", ed);
                let val = self.expr(e, ed);
                format!("{}[{idx}] {op} {val};", o.name)
            }
            11..=12 => {
                let muts: Vec<Var> = self
                    .vars_of(|v| matches!(v, VTy::Scalar(_)))
                    .into_iter()
                    .filter(|v| v.mutable || !self.clean && self.r.pct(5))
                    .collect();
                if muts.is_empty() {
                    return self.stmt(depth);
                }
                let v = self.r.pick(&muts).clone();
                let VTy::Scalar(t) = v.ty else { unreachable!() };
                let op = if self.r.pct(60) {
                    "="
                } else {
                    self.r
                        .pick(&["+=", "-=", "*=", "/=", "%=", "^=", "|=", "&=", "<<=", ">>="])
                };
                format!("{} {op} {};", v.name, self.expr(t, ed))
            }
            13..=15 if depth > 0 => {
                let c = self.expr("bool", ed);
                let then = self.block(d);
                match self.r.below(3) {
                    0 => format!("if {c} {then}"),
                    1 => format!("if {c} {then} else {}", self.block(d)),
                    _ => format!(
                        "if {c} {then} else if {} {} else {}",
                        self.expr("bool", ed),
                        self.block(d),
                        self.block(d)
                    ),
                }
            }
            16..=18 if depth > 0 => {
                let t = self
                    .r
                    .pick(&["usize", "u32", "i32", "u64", "i64", "u8", "isize", "i8"]);
                let v = self.name();
                let lo = self.expr(t, ed.min(1));
                let hi = self.expr(t, ed.min(1));
                let range = match self.r.below(8) {
                    4 | 5 if self.clean => format!("{lo}..{hi}"),
                    0 => format!("{lo}..={hi}"),
                    1 => format!("({lo}..{hi}).rev()"),
                    2 => format!("({lo}..{hi}).step_by({})", self.expr("usize", 1)),
                    3 => format!("({lo}..={hi}).step_by({}).rev()", self.expr("usize", 1)),
                    4 => format!("{}.iter()", self.r.pick(&["out", "a", "x"])),
                    5 => format!("{lo}.."),
                    _ => format!("{lo}..{hi}"),
                };
                let label = if self.r.pct(20) {
                    let l = format!("'l{}", self.labels.len());
                    self.labels.push(l.clone());
                    Some(l)
                } else {
                    None
                };
                self.vars.push(Var {
                    name: v.clone(),
                    ty: VTy::Scalar(t),
                    mutable: false,
                });
                self.loops += 1;
                let body = self.block(d);
                self.loops -= 1;
                self.vars.pop();
                let pat = if self.r.pct(10) { "_".to_string() } else { v };
                match label {
                    Some(l) => {
                        self.labels.pop();
                        format!("{l}: for {pat} in {range} {body}")
                    }
                    None => format!("for {pat} in {range} {body}"),
                }
            }
            19 if depth > 0 => {
                self.loops += 1;
                let c = self.expr("bool", ed);
                let body = self.block(d);
                self.loops -= 1;
                format!("while {c} {body}")
            }
            20 if depth > 0 => {
                let label = if self.r.pct(30) {
                    let l = format!("'l{}", self.labels.len());
                    self.labels.push(l.clone());
                    Some(l)
                } else {
                    None
                };
                self.loops += 1;
                let body = self.block(d);
                self.loops -= 1;
                match label {
                    Some(l) => {
                        self.labels.pop();
                        format!("{l}: loop {{ {body} break {l}; }}")
                    }
                    None => format!("loop {{ {body} break; }}"),
                }
            }
            21 => {
                if self.loops == 0 && !self.weird(10) {
                    return format!("{};", self.intrinsic_stmt());
                }
                let kw = self.r.pick(&["break", "continue"]);
                if !self.labels.is_empty() && self.r.pct(40) {
                    let l = self.r.pick(&self.labels).clone();
                    format!("{kw} {l};")
                } else if self.weird(5) {
                    format!("{kw} 'nowhere;")
                } else {
                    format!("{kw};")
                }
            }
            22..=24 => format!("{};", self.intrinsic_stmt()),
            25 => {
                let t = self.r.pick(&[
                    "u32",
                    "f32",
                    "i32",
                    "f64",
                    "u64",
                    "f16",
                    "AtomicU32",
                    "AtomicF32",
                    "i64",
                    "u8",
                    "bool",
                ]);
                let name = self.name();
                let n = self.r.pick(&[
                    "1", "32", "256", "1024", "0", "4096", "12289", "N", "2 * 128", "{ 64 }",
                    "(8)", "1usize", "-1",
                ]);
                let elem: &'static str = match t {
                    "AtomicU32" => "u32",
                    "AtomicF32" => "f32",
                    other => other,
                };
                if t.starts_with("Atomic") {
                    self.vars.push(Var {
                        name: name.clone(),
                        ty: VTy::Atomics(elem),
                        mutable: false,
                    });
                } else {
                    self.vars.push(Var {
                        name: name.clone(),
                        ty: VTy::Shared(elem),
                        mutable: false,
                    });
                }
                if self.r.pct(20) {
                    format!("let {name} = dynamic_shared::<{t}>();")
                } else if self.r.pct(10) {
                    format!("let {name}: SharedArray<{t}, {n}> = SharedArray::new();")
                } else {
                    format!("let {name} = SharedArray::<{t}, {n}>::new();")
                }
            }
            26 => {
                let name = self.name();
                if self.r.pct(50) {
                    self.vars.push(Var {
                        name: name.clone(),
                        ty: VTy::Block,
                        mutable: false,
                    });
                    format!("let {name} = this_thread_block();")
                } else {
                    let blocks = self.vars_of(|v| matches!(v, VTy::Block));
                    let n = if self.clean {
                        self.r.pick(&[2u32, 4, 8, 16, 32])
                    } else {
                        self.r.pick(&[2u32, 4, 8, 16, 32, 3, 64, 0, 1])
                    };
                    let (parent, decl) = match blocks.first() {
                        Some(b) => (b.name.clone(), String::new()),
                        None if self.clean => (
                            "blk".to_string(),
                            "let blk = this_thread_block(); ".to_string(),
                        ),
                        None => ("this_thread_block()".to_string(), String::new()),
                    };
                    self.vars.push(Var {
                        name: name.clone(),
                        ty: VTy::Tile,
                        mutable: false,
                    });
                    let amp = if self.weird(20) { "&" } else { "" };
                    format!("{decl}let {name} = tiled_partition::<{n}>({amp}{parent});")
                }
            }
            27 => {
                let mut fmt = String::new();
                let mut nargs = 0;
                for _ in 0..self.r.below(6) {
                    let p = self.r.pick(FMT_PIECES);
                    if p.starts_with('{')
                        && !p.starts_with("{{")
                        && !p.contains(char::is_alphabetic)
                        || p.contains(":x")
                    {
                        nargs += 1;
                    }
                    fmt.push_str(p);
                }
                if self.r.pct(20) {
                    nargs = self.r.below(4);
                }
                let args: Vec<String> = (0..nargs)
                    .map(|_| {
                        let t = self.scalar();
                        self.expr(t, 1)
                    })
                    .collect();
                let mac = self.r.pick(&[
                    "gpu_print",
                    "gpu_println",
                    "gpu_print",
                    "warpspeed::gpu_print",
                ]);
                let sep = if args.is_empty() { "" } else { ", " };
                if self.weird(5) {
                    return format!("{mac}!({});", args.join(", "));
                }
                format!("{mac}!(\"{fmt}\"{sep}{});", args.join(", "))
            }
            28 => {
                if self.kind == FnKind::Device {
                    if let Some(t) = self.ret {
                        return format!("return {};", self.expr(t, ed));
                    }
                }
                "return;".to_string()
            }
            29 if depth > 0 => {
                let blk = self.block(d);
                if self.r.pct(20) {
                    format!("unsafe {blk}")
                } else {
                    blk
                }
            }
            30 => {
                let t = self.scalar();
                format!("{};", self.expr(t, ed))
            }
            31 => {
                let t = self.scalar();
                let f = self.r.pick(&["helper", "dev", "square"]);
                let args: Vec<String> = (0..self.r.below(3))
                    .map(|_| {
                        let a = self.scalar();
                        self.expr(a, 1)
                    })
                    .collect();
                let call = format!("{f}({})", args.join(", "));
                let name = self.name();
                self.vars.push(Var {
                    name: name.clone(),
                    ty: VTy::Scalar(t),
                    mutable: false,
                });
                match self.r.below(3) {
                    0 => format!("let {name}: {t} = {call};"),
                    1 => format!("{call};"),
                    _ => format!("let {name} = {call};"),
                }
            }
            32 if !self.clean => {
                let t = self.scalar();
                let c = self.expr("bool", 1);
                format!("{};", self.odd_stmt(t, c))
            }
            33 if depth > 0 => {
                // Device functions return values through a tail expression too.
                let t = self.scalar();
                let v = self.expr(t, 1);
                format!(
                    "if {} {{ {} }}",
                    self.expr("bool", 1),
                    if self.kind == FnKind::Device && self.r.pct(50) {
                        format!("return {v};")
                    } else {
                        format!("let _ = {v};")
                    }
                )
            }
            _ => {
                let t = self.scalar();
                let name = self.name();
                let v = self.expr(t, ed);
                self.vars.push(Var {
                    name: name.clone(),
                    ty: VTy::Scalar(t),
                    mutable: false,
                });
                format!("let {name} = {v};")
            }
        }
    }

    fn intrinsic_stmt(&mut self) -> String {
        match self.r.below(8) {
            0 | 1 => "sync_threads()".to_string(),
            2 => format!("sync_warp({})", self.expr("u32", 1)),
            3 => self
                .r
                .pick(&[
                    "thread_fence()",
                    "thread_fence_block()",
                    "thread_fence_system()",
                ])
                .to_string(),
            4 => {
                let groups = self.vars_of(|v| matches!(v, VTy::Block | VTy::Tile));
                match groups.first() {
                    Some(g) => format!("{}.sync()", g.name),
                    None => "this_thread_block().sync()".to_string(),
                }
            }
            5 => {
                if self.r.pct(50) {
                    "this_grid().sync()".to_string()
                } else {
                    "let g = this_grid(); g.sync()".to_string()
                }
            }
            _ => {
                let t = self
                    .r
                    .pick(&["u32", "i32", "u64", "f32", "f64", "usize", "f16", "i64"]);
                let atomics = self.vars_of(|v| matches!(v, VTy::Atomics(e) if *e == t));
                if atomics.is_empty() {
                    "sync_threads()".to_string()
                } else {
                    let op = self.atomic_op(t, 1);
                    if self.r.pct(30) {
                        format!(
                            "{}[0].store({}, Ordering::{})",
                            atomics[0].name,
                            self.expr(t, 1),
                            self.r.pick(&["Relaxed", "Release", "SeqCst", "Acquire"])
                        )
                    } else {
                        op
                    }
                }
            }
        }
    }

    fn odd_stmt(&mut self, t: &'static str, c: String) -> String {
        match self.r.below(20) {
            0 => format!("let (p, q) = ({}, {})", self.expr(t, 1), self.expr(t, 1)),
            1 => format!("let f = |z: {t}| z"),
            2 => format!("let r = &{}", self.expr(t, 1)),
            3 => format!("let arr = [{}; 4]", self.expr(t, 1)),
            4 => format!(
                "let arr: [{t}; 2] = [{}, {}]",
                self.expr(t, 1),
                self.expr(t, 1)
            ),
            5 => format!(
                "match {} {{ 0 => {{}}, 1 | 2 => sync_threads(), _ => {{}} }}",
                self.expr("u32", 1)
            ),
            6 => format!("if let Some(z) = {} {{ }}", self.expr(t, 1)),
            7 => format!("while let Some(z) = {} {{ break; }}", self.expr(t, 1)),
            8 => format!("let Some(z) = {} else {{ return; }}", self.expr(t, 1)),
            9 => "fn inner() {}".to_string(),
            10 => "struct S;".to_string(),
            11 => format!("assert!({c})"),
            12 => format!("println!(\"{{}}\", {})", self.expr(t, 1)),
            13 => "let v = vec![1, 2, 3]".to_string(),
            14 => format!("let s = &out[{}..]", self.expr("usize", 1)),
            15 => format!("let s: &mut [{t}] = out"),
            16 => format!("out.swap(0, {})", self.expr("usize", 1)),
            17 => "let x = async { 1 }".to_string(),
            18 => format!("let _: {} = {}", self.r.pick(WEIRD_TYPES), self.expr(t, 1)),
            _ => format!(
                "let (a, _) : ({t}, {t}) = ({}, {})",
                self.expr(t, 1),
                self.expr(t, 1)
            ),
        }
    }
}

fn gen_grammar(r: &mut Rng) -> (Vec<Tok>, Vec<Tok>, FnKind) {
    let kind = if r.pct(70) {
        FnKind::Kernel
    } else {
        FnKind::Device
    };
    let ret = if kind == FnKind::Device && r.pct(60) {
        Some(r.pick(SCALARS))
    } else {
        None
    };
    let mut g = Gram {
        r,
        vars: Vec::new(),
        fuel: 0,
        loops: 0,
        labels: Vec::new(),
        kind,
        ret,
        clean: false,
    };
    g.clean = g.r.pct(50);
    g.fuel = g.r.range(20, 160) as i32;
    let mut params = Vec::new();
    for _ in 0..g.r.below(6) {
        let name = g.name();
        let (ty, vty): (String, VTy) = match g.r.below(10) {
            0..=2 => {
                let e = g.scalar();
                let ty = g.ty_text(e);
                (format!("&mut [{ty}]"), VTy::Slice(e, true))
            }
            3..=4 => {
                let e = g.scalar();
                let ty = g.ty_text(e);
                (format!("&[{ty}]"), VTy::Slice(e, false))
            }
            5 => {
                let (a, e) = g.r.pick(ATOMICS);
                let path = if g.r.pct(20) {
                    format!("core::sync::atomic::{a}")
                } else {
                    a.to_string()
                };
                (format!("&[{path}]"), VTy::Atomics(e))
            }
            6 if !g.clean => (g.r.pick(WEIRD_TYPES).to_string(), VTy::Scalar("u32")),
            _ => {
                let e = g.scalar();
                (g.ty_text(e), VTy::Scalar(e))
            }
        };
        let mutable = g.r.pct(10);
        let pat = if g.weird(3) {
            format!("({name}, _)")
        } else if mutable {
            format!("mut {name}")
        } else {
            name.clone()
        };
        // `#[len(..)]`, well formed or not, on any parameter.
        let attr = if g.r.pct(15) {
            let other = g.vars.last().map_or("n".to_string(), |v| v.name.clone());
            let e = g.r.pick(&[
                "{o}",
                "{o} * {o}",
                "2 * {o} + 1",
                "{o} - 1",
                "{o}.len()",
                "",
                "(({o}))",
                "18446744073709551616",
                "{o} * {o} * {o} * {o}",
                "x",
            ]);
            format!("#[len({})] ", e.replace("{o}", &other))
        } else if g.weird(2) {
            "#[inline] ".to_string()
        } else {
            String::new()
        };
        params.push(format!("{attr}{pat}: {ty}"));
        g.vars.push(Var {
            name,
            ty: vty,
            mutable,
        });
    }
    if g.weird(3) {
        params.insert(0, g.r.pick(&["self", "&self", "&mut self"]).to_string());
    }
    let n = g.r.range(1, 8);
    let depth = g.r.range(1, 4) as u32;
    let body = g.stmts_keep(depth, n);
    let tail = match (kind, ret) {
        (FnKind::Device, Some(t)) if g.r.pct(80) => g.expr(t, 2),
        _ => String::new(),
    };
    let mut text = String::new();
    if g.weird(15) {
        text.push_str(g.r.pick(&[
            "/// Docs.\n",
            "#[allow(unused)]\n",
            "#[inline]\n",
            "#[doc = \"x\"]\n",
            "#[allow(clippy::all)]\n",
            "#[cfg(test)]\n",
            "#[gpu_kernel]\n",
        ]));
    }
    if g.r.pct(30) {
        text.push_str(g.r.pick(&["pub ", "pub(crate) ", "pub(super) ", "pub(in crate::a) "]));
    }
    if g.weird(4) {
        text.push_str(g.r.pick(&[
            "const ",
            "async ",
            "unsafe ",
            "extern \"C\" ",
            "unsafe extern \"C\" ",
        ]));
    }
    let name = g.r.pick(FN_NAMES).to_string();
    let generics = if g.weird(3) {
        g.r.pick(&["<T>", "<T: Copy>", "<const N: usize>", "<'a>"])
            .to_string()
    } else {
        String::new()
    };
    let ret_text = match ret {
        Some(t) => format!(" -> {}", g.ty_text(t)),
        None if g.weird(5) => format!(" -> {}", g.r.pick(&["()", "u32", "!", "Result<(), ()>"])),
        None => String::new(),
    };
    let variadic = if g.weird(1) { ", ..." } else { "" };
    write!(
        text,
        "fn {name}{generics}({}{variadic}){ret_text} {{\n{body}{tail}\n}}",
        params.join(", ")
    )
    .unwrap();
    let attr = if g.clean && kind == FnKind::Device {
        if g.r.pct(20) {
            "unchecked"
        } else {
            ""
        }
    } else if g.r.pct(25) {
        g.r.pick(&[
            "fast_math",
            "unchecked",
            "fast_math, unchecked",
            "unchecked, fast_math,",
            "fast_math, fast_math",
        ])
    } else {
        ""
    }
    .to_string();
    let item = text
        .parse::<TokenStream>()
        .map(from_ts)
        .unwrap_or_else(|_| soup(g.r, 2, 10, 10));
    let attr = attr.parse::<TokenStream>().map(from_ts).unwrap_or_default();
    proc_macro2::extra::invalidate_current_thread_spans();
    (attr, item, kind)
}

impl Gram<'_> {
    /// The function's body: its statements see the parameters (kept in scope).
    fn stmts_keep(&mut self, depth: u32, n: usize) -> String {
        let mut s = String::new();
        for _ in 0..n {
            if self.fuel <= 0 {
                break;
            }
            s.push_str(&self.stmt(depth));
            s.push('\n');
        }
        s
    }
}

// ---- generator (c): the repository's kernels, mutated ---------------------------------------

#[derive(Clone, Debug)]
pub(crate) struct Seed {
    attr: Vec<Tok>,
    item: Vec<Tok>,
    kind: FnKind,
}

impl Seed {
    /// The attribute's arguments, the item without the attribute, and which macro it is.
    pub(crate) fn parts(&self) -> (TokenStream, TokenStream, FnKind) {
        (to_ts(&self.attr), to_ts(&self.item), self.kind)
    }
}

fn macro_kind(attrs: &[syn::Attribute]) -> Option<(usize, FnKind, Vec<Tok>)> {
    for (i, a) in attrs.iter().enumerate() {
        let Some(last) = a.path().segments.last() else {
            continue;
        };
        let kind = if last.ident == "gpu_kernel" {
            FnKind::Kernel
        } else if last.ident == "gpu_device" {
            FnKind::Device
        } else {
            continue;
        };
        let args = match &a.meta {
            syn::Meta::List(l) => from_ts(l.tokens.clone()),
            _ => Vec::new(),
        };
        return Some((i, kind, args));
    }
    None
}

struct Collect(Vec<Seed>);

impl Collect {
    fn take<T: quote::ToTokens + Clone>(
        &mut self,
        node: &T,
        attrs: impl Fn(&mut T) -> &mut Vec<syn::Attribute>,
    ) {
        let mut node = node.clone();
        let Some((i, kind, attr)) = macro_kind(attrs(&mut node)) else {
            return;
        };
        attrs(&mut node).remove(i);
        self.0.push(Seed {
            attr,
            item: from_ts(node.to_token_stream()),
            kind,
        });
    }
}

impl<'ast> syn::visit::Visit<'ast> for Collect {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        match item {
            syn::Item::Fn(f) => self.take(f, |f| &mut f.attrs),
            syn::Item::Struct(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Enum(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Const(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Static(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Mod(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Impl(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Trait(s) => self.take(s, |s| &mut s.attrs),
            syn::Item::Type(s) => self.take(s, |s| &mut s.attrs),
            _ => {}
        }
        syn::visit::visit_item(self, item);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.take(f, |f| &mut f.attrs);
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        self.take(f, |f| &mut f.attrs);
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if !p.ends_with("target")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("target"))
            {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every `#[gpu_kernel]`/`#[gpu_device]` item of examples/ and tests/ (tests/ui/ included:
/// the kernels the macro must reject), in a fixed order.
fn load_corpus() -> Vec<Seed> {
    load_corpus_from(&["examples", "tests"])
}

/// Every `#[gpu_kernel]`/`#[gpu_device]` item (outside a `macro_rules!`) of the
/// repository's folders `dirs`, in a fixed order.
pub(crate) fn load_corpus_from(dirs: &[&str]) -> Vec<Seed> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for d in dirs {
        rust_files(&root.join(d), &mut files);
    }
    files.sort();
    let mut c = Collect(Vec::new());
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        if !text.contains("gpu_kernel") && !text.contains("gpu_device") {
            continue;
        }
        if let Ok(file) = syn::parse_file(&text) {
            syn::visit::Visit::visit_file(&mut c, &file);
        }
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    c.0
}

/// A random node of the tree (by path), for mutation.
fn random_path(r: &mut Rng, toks: &[Tok]) -> Option<Vec<usize>> {
    let mut paths = Vec::new();
    node_paths(toks, &mut Vec::new(), &mut paths);
    if paths.is_empty() {
        None
    } else {
        Some(paths.swap_remove(r.below(paths.len())))
    }
}

fn node_at<'a>(toks: &'a mut Vec<Tok>, path: &[usize]) -> Option<&'a mut Tok> {
    let list = container(toks, path)?;
    list.get_mut(*path.last()?)
}

/// The brace groups' contents split into statements at top-level `;`.
fn brace_paths(toks: &[Tok], prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    for (i, t) in toks.iter().enumerate() {
        if let Tok::Group(d, inner) = t {
            prefix.push(i);
            if *d == Delimiter::Brace {
                out.push(prefix.clone());
            }
            brace_paths(inner, prefix, out);
            prefix.pop();
        }
    }
}

fn split_stmts(toks: &[Tok]) -> Vec<Vec<Tok>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for t in toks {
        cur.push(t.clone());
        let end = matches!(t, Tok::Punct(';', _)) || matches!(t, Tok::Group(Delimiter::Brace, _));
        if end {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn random_subtree(r: &mut Rng, corpus: &[Seed]) -> Option<Tok> {
    let other = &r.pick(corpus).item;
    let mut paths = Vec::new();
    node_paths(other, &mut Vec::new(), &mut paths);
    if paths.is_empty() {
        return None;
    }
    let p = r.pick(&paths).clone();
    let mut copy = other.clone();
    node_at(&mut copy, &p).cloned()
}

fn mutate(r: &mut Rng, item: &mut Vec<Tok>, corpus: &[Seed]) {
    match r.below(20) {
        // Statement level: keeps the syntax more often.
        0..=4 => {
            let mut braces = Vec::new();
            brace_paths(item, &mut Vec::new(), &mut braces);
            let Some(bp) = (!braces.is_empty()).then(|| r.pick(&braces).clone()) else {
                return;
            };
            let donor_stmt = {
                let other = &r.pick(corpus).item;
                let mut ob = Vec::new();
                brace_paths(other, &mut Vec::new(), &mut ob);
                ob.first().map(|_| {
                    let p = r.pick(&ob).clone();
                    let mut copy = other.clone();
                    match node_at(&mut copy, &p) {
                        Some(Tok::Group(_, inner)) => {
                            let s = split_stmts(inner);
                            if s.is_empty() {
                                Vec::new()
                            } else {
                                r.pick(&s).clone()
                            }
                        }
                        _ => Vec::new(),
                    }
                })
            };
            let Some(Tok::Group(_, inner)) = node_at(item, &bp) else {
                return;
            };
            let mut stmts = split_stmts(inner);
            let n = stmts.len();
            match r.below(5) {
                0 if n > 0 => {
                    stmts.remove(r.below(n));
                }
                1 if n > 0 => {
                    let s = stmts[r.below(n)].clone();
                    stmts.insert(r.below(n + 1), s);
                }
                2 if n > 1 => {
                    let (a, b) = (r.below(n), r.below(n));
                    stmts.swap(a, b);
                }
                3 => {
                    if let Some(s) = donor_stmt {
                        let at = r.below(n + 1);
                        stmts.insert(at, s);
                    }
                }
                _ if n > 0 => {
                    // Wrap a run of statements in a block, loop or if.
                    let a = r.below(n);
                    let b = r.range(a, n - 1);
                    let run: Vec<Tok> = stmts.drain(a..=b).flatten().collect();
                    let mut w = match r.below(4) {
                        0 => vec![ident("loop")],
                        1 => vec![ident("if"), ident("true")],
                        2 => vec![ident("for"), ident("i"), ident("in"), Tok::Lit("0".into())]
                            .into_iter()
                            .chain(punct(".."))
                            .chain([Tok::Lit("4".into())])
                            .collect(),
                        _ => vec![],
                    };
                    w.push(Tok::Group(Delimiter::Brace, run));
                    stmts.insert(a, w);
                }
                _ => {}
            }
            *inner = stmts.into_iter().flatten().collect();
        }
        _ => {
            let Some(p) = random_path(r, item) else {
                return;
            };
            let what = r.below(16);
            let donor = if what == 10 {
                random_subtree(r, corpus)
            } else {
                None
            };
            let list = container(item, &p).unwrap();
            let i = *p.last().unwrap();
            match what {
                0 | 1 => {
                    list.remove(i);
                }
                2 => {
                    let t = list[i].clone();
                    list.insert(i, t);
                }
                3 if list.len() > 1 => {
                    let j = r.below(list.len());
                    list.swap(i, j);
                }
                4 | 5 => {
                    // Same category replacement.
                    list[i] = match &list[i] {
                        Tok::Ident(_) => pick_ident(r),
                        Tok::Lit(_) => pick_lit(r),
                        Tok::Punct(..) => Tok::Punct(
                            r.pick(&[
                                '+', '-', '*', '/', '%', '^', '&', '|', '<', '>', '=', '!', '.',
                                ',', ';', ':',
                            ]),
                            r.pct(20),
                        ),
                        Tok::Group(_, inner) => Tok::Group(pick_delim(r), inner.clone()),
                    };
                }
                6 => {
                    // An operator for another.
                    if let Tok::Punct(c, _) = list[i] {
                        let ops = ['+', '-', '*', '/', '%', '^', '&', '|', '<', '>'];
                        if ops.contains(&c) {
                            list[i] = Tok::Punct(r.pick(&ops), false);
                        }
                    }
                }
                7 => {
                    // A type or scalar name for another.
                    if let Tok::Ident(s) = &list[i] {
                        if SCALARS.contains(&s.as_str()) || ATOMICS.iter().any(|a| a.0 == s) {
                            list[i] = if r.pct(70) {
                                ident(r.pick(SCALARS))
                            } else {
                                ident(r.pick(ATOMICS).0)
                            };
                        }
                    }
                }
                8 => {
                    // Numbers: off by one, at a boundary, huge.
                    if let Tok::Lit(s) = &list[i] {
                        if s.starts_with(|c: char| c.is_ascii_digit()) {
                            let digits: String =
                                s.chars().take_while(|c| c.is_ascii_digit()).collect();
                            let rest = &s[digits.len()..];
                            let n: u128 = digits.parse().unwrap_or(0);
                            let m = match r.below(6) {
                                0 => n.wrapping_add(1),
                                1 => n.saturating_sub(1),
                                2 => 0,
                                3 => n.wrapping_mul(1 << 20),
                                4 => u128::MAX,
                                _ => 1u128 << r.below(70),
                            };
                            let rest = if r.pct(20) {
                                r.pick(&[
                                    "", "u8", "i8", "u32", "i64", "usize", "f32", "f64", "u128",
                                ])
                                .to_string()
                            } else {
                                rest.to_string()
                            };
                            list[i] = Tok::Lit(format!("{m}{rest}"));
                        }
                    }
                }
                9 => {
                    let t = list[i].clone();
                    list[i] = Tok::Group(
                        if r.pct(50) {
                            Delimiter::Parenthesis
                        } else {
                            Delimiter::None
                        },
                        vec![t],
                    );
                }
                10 => {
                    if let Some(t) = donor {
                        list[i] = t;
                    }
                }
                11 => {
                    let extra = soup(r, 1, 1, 2);
                    list.splice(i..i, extra);
                }
                12 => {
                    if let Tok::Group(_, inner) = &list[i] {
                        let inner = inner.clone();
                        list.splice(i..=i, inner);
                    }
                }
                13 => {
                    // A name for another name already in the function.
                    if let Tok::Ident(_) = list[i] {
                        list[i] = ident(r.pick(VAR_NAMES));
                    }
                }
                _ => {
                    list.insert(i, pick_ident(r));
                }
            }
        }
    }
}

fn gen_mutate(r: &mut Rng, corpus: &[Seed]) -> (Vec<Tok>, Vec<Tok>, FnKind) {
    let seed = r.pick(corpus).clone();
    let mut item = seed.item;
    let mut attr = seed.attr;
    let mut kind = seed.kind;
    let n = match r.below(10) {
        0 => 0,
        1..=5 => 1,
        6..=7 => 2,
        _ => r.range(3, 12),
    };
    for _ in 0..n {
        mutate(r, &mut item, corpus);
    }
    if r.pct(5) || n == 0 && r.pct(50) {
        attr = soup_attr(r);
    }
    if r.pct(5) || n == 0 && r.pct(50) {
        kind = if kind == FnKind::Kernel {
            FnKind::Device
        } else {
            FnKind::Kernel
        };
    }
    (attr, item, kind)
}

// ---- driving ---------------------------------------------------------------------------------

fn make_case(gen: &GenKind, case_seed: u64, corpus: &[Seed]) -> Case {
    let mut r = Rng::new(case_seed);
    let via_text = r.pct(80);
    let (attr, item, kind) = match gen {
        GenKind::Soup => {
            let (a, i) = gen_soup(&mut r);
            (
                a,
                i,
                if r.pct(60) {
                    FnKind::Kernel
                } else {
                    FnKind::Device
                },
            )
        }
        GenKind::Grammar => gen_grammar(&mut r),
        GenKind::Mutate if !corpus.is_empty() => gen_mutate(&mut r, corpus),
        GenKind::Mutate => {
            let (a, i) = gen_soup(&mut r);
            (a, i, FnKind::Kernel)
        }
    };
    Case {
        attr,
        item,
        kind,
        via_text,
    }
}

fn pick_gen(r: &mut Rng) -> GenKind {
    match r.below(100) {
        0..=24 => GenKind::Soup,
        25..=64 => GenKind::Grammar,
        _ => GenKind::Mutate,
    }
}

#[derive(Default, Clone)]
struct Stats {
    cases: u64,
    /// Per generator: [cases, rejected by syn (not a function), compile errors from the
    /// macro's own stages, expanded without errors (C and Rust emitted)].
    per_gen: BTreeMap<GenKind, [u64; 4]>,
    /// With `WARPSPEED_FUZZ_ERRORS`: how often each first error message came.
    errors: BTreeMap<(GenKind, String), u64>,
    bad_outputs: u64,
    bad_output_examples: Vec<String>,
    slowest: (Duration, String),
}

struct Finding {
    gen: GenKind,
    case_seed: u64,
    report: PanicReport,
    original: String,
    minimized: String,
    count: u64,
}

#[derive(Default)]
struct Shared {
    findings: Mutex<BTreeMap<String, Finding>>,
    stats: Mutex<Stats>,
    /// Per worker: the case in progress (generator, seed, start), for the hang watchdog.
    current: Mutex<Vec<Option<(GenKind, u64, Instant)>>>,
    cases: AtomicU64,
    stop: AtomicBool,
}

fn worker(id: usize, run_seed: u64, budget: Budget, corpus: Arc<Vec<Seed>>, shared: Arc<Shared>) {
    install_hook();
    let mut r = Rng::new(run_seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut local = Stats::default();
    let mut i: u64 = 0;
    let check_output = true;
    let show_errors = std::env::var_os("WARPSPEED_FUZZ_ERRORS").is_some();
    loop {
        match budget {
            Budget::Cases(n) if i >= n => break,
            Budget::Until(t) if Instant::now() >= t => break,
            _ => {}
        }
        if shared.stop.load(AtOrd::Relaxed) {
            break;
        }
        let gen = pick_gen(&mut r);
        let case_seed = r.next();
        let case = make_case(&gen, case_seed, &corpus);
        let start = Instant::now();
        shared.current.lock().unwrap()[id] = Some((gen.clone(), case_seed, start));
        let outcome = run_case(&case, check_output);
        let took = start.elapsed();
        shared.current.lock().unwrap()[id] = None;
        i += 1;
        shared.cases.fetch_add(1, AtOrd::Relaxed);
        let e = local.per_gen.entry(gen.clone()).or_default();
        e[0] += 1;
        if took > local.slowest.0 {
            local.slowest = (took, format!("{}:{case_seed}", gen.name()));
        }
        match outcome {
            Outcome::Done { errors, bad_output } => {
                if let Some(msg) = errors {
                    if msg.contains("applies to a function:") {
                        e[1] += 1;
                    } else {
                        e[2] += 1;
                    }
                    if show_errors {
                        let short: String = msg.chars().take(70).collect();
                        *local.errors.entry((gen.clone(), short)).or_default() += 1;
                    }
                } else {
                    e[3] += 1;
                }
                if let Some(err) = bad_output {
                    local.bad_outputs += 1;
                    if local.bad_output_examples.len() < 3 {
                        local.bad_output_examples.push(format!(
                            "{}:{case_seed}: {err}\n{}",
                            gen.name(),
                            case.describe()
                        ));
                    }
                }
            }
            Outcome::Panic(report) => {
                let known = {
                    let mut f = shared.findings.lock().unwrap();
                    match f.get_mut(&report.location) {
                        Some(found) => {
                            found.count += 1;
                            true
                        }
                        None => false,
                    }
                };
                if !known {
                    let min = minimize(crate::expand::expand_inner, &case, &report.location);
                    let finding = Finding {
                        gen: gen.clone(),
                        case_seed,
                        original: format!("// {} token trees\n{}", case.size(), case.describe()),
                        minimized: format!("// {} token trees\n{}", min.size(), min.describe()),
                        report: report.clone(),
                        count: 1,
                    };
                    eprintln!(
                        "\n!!! PANIC (new location) found by {}:{case_seed}\n{}",
                        gen.name(),
                        format_finding(&finding)
                    );
                    shared
                        .findings
                        .lock()
                        .unwrap()
                        .entry(report.location.clone())
                        .or_insert(finding);
                }
            }
        }
    }
    local.cases = i;
    let mut s = shared.stats.lock().unwrap();
    s.cases += local.cases;
    for (g, counts) in local.per_gen {
        let e = s.per_gen.entry(g).or_default();
        for (x, y) in e.iter_mut().zip(counts) {
            *x += y;
        }
    }
    s.bad_outputs += local.bad_outputs;
    for (k, n) in local.errors {
        *s.errors.entry(k).or_default() += n;
    }
    for ex in local.bad_output_examples {
        if s.bad_output_examples.len() < 5 {
            s.bad_output_examples.push(ex);
        }
    }
    if local.slowest.0 > s.slowest.0 {
        s.slowest = local.slowest;
    }
}

fn format_finding(f: &Finding) -> String {
    format!(
        "panic: {}\n  at {}\n  found by {}:{} (replay: WARPSPEED_FUZZ_CASE={}:{}), {} time(s)\n  macro frames:\n{}\n  minimized input:\n{}\n  original input:\n{}\n",
        f.report.message,
        f.report.location,
        f.gen.name(),
        f.case_seed,
        f.gen.name(),
        f.case_seed,
        f.count,
        f.report.backtrace.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n"),
        f.minimized,
        f.original
    )
}

#[derive(Clone, Copy)]
enum Budget {
    Cases(u64),
    Until(Instant),
}

/// Large enough for any sane nesting, like rustc's own 8 MiB main thread.
const STACK: usize = 64 << 20;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn fuzz_expand_never_panics() {
    install_hook();
    let corpus = Arc::new(load_corpus());
    if let Ok(spec) = std::env::var("WARPSPEED_FUZZ_CASE") {
        return replay(&spec, &corpus);
    }
    let seconds = env_u64("WARPSPEED_FUZZ_SECONDS");
    let run_seed = env_u64("WARPSPEED_FUZZ_SEED").unwrap_or_else(|| {
        if seconds.is_some() {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        } else {
            0x5eed_0005
        }
    });
    let (workers, budget) = match seconds {
        Some(s) => {
            let cores = std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1);
            let w = env_u64("WARPSPEED_FUZZ_WORKERS")
                .map(|w| w as usize)
                .unwrap_or(cores.min(8));
            (
                w.max(1),
                Budget::Until(Instant::now() + Duration::from_secs(s)),
            )
        }
        None => (
            1,
            Budget::Cases(env_u64("WARPSPEED_FUZZ_CASES").unwrap_or(3000)),
        ),
    };
    eprintln!(
        "fuzz: seed {run_seed:#x}, {workers} worker(s), {} kernels in the corpus, {}",
        corpus.len(),
        match budget {
            Budget::Cases(n) => format!("{n} cases"),
            Budget::Until(_) => format!("{} s", seconds.unwrap()),
        }
    );
    let shared = Arc::new(Shared::default());
    *shared.current.lock().unwrap() = vec![None; workers];
    let started = Instant::now();
    let handles: Vec<_> = (0..workers)
        .map(|id| {
            let (corpus, shared) = (corpus.clone(), shared.clone());
            std::thread::Builder::new()
                .name(format!("fuzz-{id}"))
                .stack_size(STACK)
                .spawn(move || worker(id, run_seed, budget, corpus, shared))
                .unwrap()
        })
        .collect();
    // Progress and the hang watchdog.
    let mut last_report = Instant::now();
    while handles.iter().any(|h| !h.is_finished()) {
        std::thread::sleep(Duration::from_millis(200));
        if seconds.is_some() && last_report.elapsed() >= Duration::from_secs(30) {
            last_report = Instant::now();
            let n = shared.cases.load(AtOrd::Relaxed);
            let t = started.elapsed().as_secs_f64();
            eprintln!(
                "fuzz: {t:.0} s, {n} cases ({:.0}/s), {} distinct panic location(s)",
                n as f64 / t,
                shared.findings.lock().unwrap().len()
            );
        }
        let hung = shared
            .current
            .lock()
            .unwrap()
            .iter()
            .flatten()
            .find(|c| c.2.elapsed() > Duration::from_secs(60))
            .cloned();
        if let Some((gen, seed, _)) = hung {
            let case = make_case(&gen, seed, &corpus);
            eprintln!(
                "fuzz: HANG: a case has run for over 60 s (replay: WARPSPEED_FUZZ_CASE={}:{seed}):\n{}",
                gen.name(),
                case.describe()
            );
            std::process::exit(101);
        }
    }
    for h in handles {
        h.join().unwrap();
    }
    let elapsed = started.elapsed();
    let stats = shared.stats.lock().unwrap().clone();
    let findings = shared.findings.lock().unwrap();
    eprintln!(
        "fuzz: done: {} cases in {:.1} s ({:.0}/s), seed {run_seed:#x}, {} distinct panic location(s)",
        stats.cases,
        elapsed.as_secs_f64(),
        stats.cases as f64 / elapsed.as_secs_f64(),
        findings.len()
    );
    for (g, [n, syn_errs, errs, ok]) in &stats.per_gen {
        eprintln!(
            "fuzz:   {:8} {n:9} cases: {syn_errs:9} rejected by syn, {errs:9} with the macro's own errors, {ok:9} expanded without errors (C emitted)",
            g.name()
        );
    }
    eprintln!(
        "fuzz:   slowest case {:.1} ms ({}); outputs that do not parse as Rust items: {}",
        stats.slowest.0.as_secs_f64() * 1e3,
        stats.slowest.1,
        stats.bad_outputs
    );
    for gen in [GenKind::Soup, GenKind::Grammar, GenKind::Mutate] {
        let mut top: Vec<_> = stats
            .errors
            .iter()
            .filter(|((g, _), _)| *g == gen)
            .collect();
        top.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
        for ((_, msg), n) in top.into_iter().take(15) {
            eprintln!("fuzz:   {:8} {n:7} x {msg}", gen.name());
        }
    }
    for ex in &stats.bad_output_examples {
        eprintln!("fuzz:   output not parsable: {ex}\n");
    }
    if !findings.is_empty() {
        let mut msg = String::new();
        for f in findings.values() {
            writeln!(msg, "{}", format_finding(f)).unwrap();
        }
        panic!("the macro panicked on {} input(s):\n{msg}", findings.len());
    }
}

/// `WARPSPEED_FUZZ_CASE=grammar:1234`: one case, its input and expansion.
fn replay(spec: &str, corpus: &[Seed]) {
    let (g, seed) = spec
        .split_once(':')
        .expect("WARPSPEED_FUZZ_CASE=<generator>:<seed>");
    let gen = GenKind::parse(g).expect("generator: soup, grammar or mutate");
    let seed: u64 = seed.trim().parse().expect("a decimal case seed");
    let case = make_case(&gen, seed, corpus);
    eprintln!("input:\n{}\n", case.describe());
    let (attr, item) = case.streams();
    match catch_unwind(AssertUnwindSafe(|| {
        crate::expand::expand_inner(attr, item, case.kind)
    })) {
        Ok(ts) => eprintln!("expansion:\n{ts}"),
        Err(_) => panic!("the macro panicked on this input"),
    }
}

/// Inputs on which the fuzzer once found a panic, minimized.
const FOUND: &[&str] = &[
    // A method on a receiver that never has a value: no method is resolved (2026-11-22).
    "fn e98() { let i = grid_1d(); if i < return.len() {} }",
    // A 2-D shared tile whose element count overflows u64 (2026-11-23).
    "fn t(o: &mut [u32]) { let t = SharedArray::<[u32; 14812710283509236051u64], 16>::new(); o[0] = t[0][0]; }",
    // A division by a literal 0 inside a loop over an empty range, whose contradictory
    // facts prove 0 positive: the prover divided its bound by 0 (2026-11-29).
    "fn t(n: usize, o: &mut [u32]) { for i in n..0 { let y = 3u32 % 5 / 0; o[i] = y; } }",
];

#[test]
fn found_panics_stay_fixed() {
    install_hook();
    for src in FOUND {
        let case = Case {
            attr: Vec::new(),
            item: from_ts(src.parse().unwrap()),
            kind: FnKind::Kernel,
            via_text: true,
        };
        if let Outcome::Panic(p) = run_case(&case, false) {
            panic!("{src}: {} at {}", p.message, p.location);
        }
    }
}

/// Nested shapes of expressions: `open^n mid close^n`, with the depth the test uses.
const NESTED: &[(&str, &str, &str, usize)] = &[
    ("(", "x", ")", 48),
    ("{ ", "x", " }", 48),
    ("-", "x", "", 48),
    ("!", "b", "", 48),
    ("out[", "0", "]", 48),
    // An `if` expression nested in the `then` or `else` block of another, with no
    // statements: the expansion time doubles with each level (see `nested_if_expressions`).
    ("if b { ", "x", " } else { 0 }", 12),
    ("if b { x } else { ", "0", " }", 12),
    ("if b { x } else ", "{ 0 }", "", 48),
    ("if b { let _z = 1; ", "x", " } else { 0 }", 48),
    ("loop { ", "break", "; }", 48),
    ("(x + ", "1", ")", 48),
    ("(", "1", " as u32)", 48),
    ("f(", "x", ")", 48),
];

/// Expands `let y: u32 = open^depth mid close^depth;` in a kernel; the time it took, or the
/// panic.
fn nested_case(open: &str, mid: &str, close: &str, depth: usize) -> Result<Duration, String> {
    let e = format!("{}{mid}{}", open.repeat(depth), close.repeat(depth));
    let src = format!("fn k(out: &mut [u32], x: u32, b: bool) {{ let y: u32 = {e}; out[0] = y; }}");
    let case = Case {
        attr: Vec::new(),
        item: from_ts(src.parse().unwrap()),
        kind: FnKind::Kernel,
        via_text: true,
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    let start = Instant::now();
    match run_case(&case, false) {
        Outcome::Panic(p) => Err(format!(
            "`{open}` `{mid}` `{close}` x{depth}: {} at {}",
            p.message, p.location
        )),
        Outcome::Done { .. } => Ok(start.elapsed()),
    }
}

/// Deep nesting must not panic, nor overflow rustc's 8 MiB main-thread stack (the thread
/// here has that size; an overflow aborts the test binary). `WARPSPEED_FUZZ_DEPTH=n` sets
/// the depth of every shape but the exponential ones.
#[test]
fn fuzz_deep_nesting() {
    install_hook();
    let depth = env_u64("WARPSPEED_FUZZ_DEPTH").map(|d| d as usize);
    let h = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            install_hook();
            let mut failures = Vec::new();
            for &(open, mid, close, d) in NESTED {
                let d = if d == 48 { depth.unwrap_or(d) } else { d };
                if depth.is_some() {
                    eprint!("deep nesting: `{open}` `{mid}` `{close}` x{d}: ");
                }
                match nested_case(open, mid, close, d) {
                    Ok(t) if depth.is_some() => eprintln!("{:.1} ms", t.as_secs_f64() * 1e3),
                    Ok(_) => {}
                    Err(e) => failures.push(e),
                }
            }
            failures
        })
        .unwrap();
    let failures = h.join().expect("deep nesting");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Known defect, found by the fuzzing (docs/fuzzing.md): `emit::cuda::expr::effect` of an
/// `if` calls `ternary_able`, which computes `effect` of the `then` tail, and then visits the
/// same children again, so an `if` expression nested in the block of another doubles the
/// time per level (depth 20: ~0.1 s, 22: ~0.35 s, 30: minutes; in release ~10x less).
#[test]
fn nested_if_expressions_are_not_exponential() {
    install_hook();
    for (open, mid, close) in [
        ("if b { ", "x", " } else { 0 }"),
        ("if b { x } else { ", "0", " }"),
    ] {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                install_hook();
                for depth in (16..=40).step_by(2) {
                    if tx
                        .send((depth, nested_case(open, mid, close, depth)))
                        .is_err()
                    {
                        return;
                    }
                }
            })
            .unwrap();
        let mut times = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok((depth, Ok(t))) => times.push(format!("{depth}: {:.0} ms", t.as_secs_f64() * 1e3)),
                Ok((_, Err(e))) => panic!("{e}"),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(_) => panic!(
                    "`{open}` `{mid}` `{close}` nested: over 5 s before depth 40; times by depth: {}",
                    times.join(", ")
                ),
            }
        }
    }
}

/// The harness itself: a panic deep in the input is caught, located and minimized.
#[test]
fn fuzz_harness_catches_and_minimizes() {
    install_hook();
    fn contains_boom(ts: TokenStream) -> bool {
        ts.into_iter().any(|t| match t {
            TokenTree::Ident(i) => i == "boom",
            TokenTree::Group(g) => contains_boom(g.stream()),
            _ => false,
        })
    }
    fn fake(_attr: TokenStream, item: TokenStream, _kind: FnKind) -> TokenStream {
        if contains_boom(item.clone()) {
            panic!("boom found");
        }
        item
    }
    let src = "fn k(out: &mut [u32]) { let i = 1; if i > 0 { out[(i + boom) as usize] = 2; } }";
    for via_text in [true, false] {
        let case = Case {
            attr: vec![ident("fast_math")],
            item: from_ts(src.parse().unwrap()),
            kind: FnKind::Kernel,
            via_text,
        };
        proc_macro2::extra::invalidate_current_thread_spans();
        let Outcome::Panic(p) = run_with(fake, &case, false) else {
            panic!("the panic was not caught");
        };
        assert_eq!(p.message, "boom found");
        assert!(p.location.contains("fuzz_tests.rs"), "{}", p.location);
        let min = minimize(fake, &case, &p.location);
        assert_eq!(render(&min.item, true).trim(), "boom");
        assert!(min.attr.is_empty());
        assert!(matches!(run_with(fake, &min, false), Outcome::Panic(_)));
    }
}
