//! docs/methods.md's tables, generated from the method table; the test keeps the file
//! equal to them (`WARPSPEED_BLESS=1` rewrites it).

use super::methods::{Exact, Method, Recv, Sim, C, METHODS};

/// The Markdown table of every row, as docs/methods.md has it (a test keeps the file
/// equal to this).
pub fn docs_table() -> String {
    let mut out = String::new();
    let mut last = None;
    for m in METHODS {
        let m: &Method = m;
        if last != Some(heading(m.recv)) {
            out.push_str(&format!(
                "\n### {}\n\n| method | on | does | C | GPU vs Rust |\n|---|---|---|---|---|\n",
                heading(m.recv)
            ));
            last = Some(heading(m.recv));
        }
        let c = match m.c {
            C::Tmpl(n) => format!("`{n}<T>`"),
            C::Func(n) => format!("`{n}`"),
            C::Math(n) => format!("`{n}f` / `{n}`"),
            C::Len => "the length parameter".into(),
        };
        let exact = match (m.exact, m.panics) {
            (Exact::Bits, None) => "bit-exact".to_string(),
            (Exact::Bits, Some(p)) => format!("bit-exact; {p}"),
            (Exact::Ulps(f, d), _) => format!("within {f} ulp (f32), {d} ulp (f64)"),
            (Exact::HalfUlp, _) => {
                format!("within 1 ulp of the correctly rounded {}; GPU and simulator equal or, rarely, 1 ulp apart", m.recv.text())
            }
        };
        let sim = match m.sim {
            Sim::Std(n) if n != m.name => format!(" (simulator: `{n}`)"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {}{sim} | {c} | {exact} |\n",
            m.signature(),
            m.recv.text(),
            m.doc
        ));
    }
    out
}

fn heading(r: Recv) -> &'static str {
    match r {
        Recv::Slice => "Slices",
        Recv::Int | Recv::Signed | Recv::Unsigned => "Integers",
        Recv::Float => "Floats",
        Recv::E4m3 | Recv::E5m2 => "fp8 (storage types)",
        Recv::F16 | Recv::F16x2 | Recv::Bf16 | Recv::Bf16x2 => "Half precision",
    }
}

const BEGIN: &str = "<!-- generated from macros/src/ir/methods.rs: do not edit by hand -->\n";
const END: &str = "<!-- end of generated tables -->\n";

/// The intrinsics' table: `name(params) -> result` and its line.
pub fn intrinsics_table() -> String {
    use crate::ir::intrinsics::{all, ParamKind, Result};
    let mut out = String::from(
        "\n### Intrinsics and associated functions\n\n| function | does | C |\n|---|---|---|\n",
    );
    for i in all() {
        let params: Vec<String> = i
            .params()
            .iter()
            .map(|p| match p {
                ParamKind::U32 => "u32".to_string(),
                ParamKind::Bool => "bool".to_string(),
                ParamKind::Value => "T".to_string(),
                ParamKind::Lossless => "x".to_string(),
                ParamKind::Scalar(s) => s.rust_name().to_string(),
                ParamKind::SharedDst | ParamKind::TmaDst => "&mut [T]".to_string(),
                ParamKind::GlobalSrc | ParamKind::QuadSrc => "&[T]".to_string(),
                ParamKind::QuadDst => "&mut [T]".to_string(),
                ParamKind::Elem => "T".to_string(),
                ParamKind::TensorMap => "&TensorMap<T>".to_string(),
                ParamKind::Mbarrier => "&Mbarrier".to_string(),
            })
            .collect();
        let width = if i.takes_width() {
            "[, width: u32]"
        } else {
            ""
        };
        let result = match i.result() {
            Result::Fixed(t) => t.to_string(),
            Result::Value => "T".to_string(),
            Result::Quad => "(T, T, T, T)".to_string(),
        };
        let c = match i.c_function(Some("T")) {
            c if c.is_empty() => "a cast".to_string(),
            c if c == "0" => "no value (its methods are the code)".to_string(),
            c => format!("`{c}`"),
        };
        out.push_str(&format!(
            "| `{}({}{width}) -> {result}` | {} | {c} |\n",
            i.rust_name(),
            params.join(", "),
            i.doc()
        ));
    }
    out
}

#[test]
fn docs_methods_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/methods.md");
    let text = std::fs::read_to_string(path).expect("docs/methods.md");
    let (Some(a), Some(b)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/methods.md lacks the generated-table markers");
    };
    let want = format!(
        "{}{BEGIN}{}{}{}",
        &text[..a],
        docs_table(),
        intrinsics_table(),
        &text[b..]
    );
    if want != text {
        if std::env::var("WARPSPEED_BLESS").is_ok_and(|v| v == "1") {
            std::fs::write(path, want).unwrap();
        } else {
            panic!("docs/methods.md differs from the method table: run `WARPSPEED_BLESS=1 cargo test -p warpspeed-macros docs_methods` and review the diff");
        }
    }
}

#[test]
fn every_row_is_reachable_and_unambiguous() {
    use crate::ir::ty::ALL_SCALARS;
    for m in METHODS {
        for s in ALL_SCALARS {
            if m.recv.accepts(s) {
                let found = Method::lookup(m.name, Some(s)).unwrap();
                assert!(
                    std::ptr::eq(found, m),
                    "`{}` on {s:?}: two rows take it",
                    m.name
                );
            }
        }
    }
}

/// The prelude, where the tables' C helpers live.
fn prelude() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime/src/");
    [
        "prelude.cuh",
        "prelude_fp8.cuh",
        "prelude_num.cuh",
        "prelude_hopper.cuh",
        "prelude_wgmma.cuh",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(format!("{dir}{f}")).expect("the prelude"))
    .collect()
}

/// Every helper a method row names is defined in the prelude (CUDA's math functions are
/// checked by NVRTC compiling every method: tests/semantics_prop.rs).
#[test]
fn every_method_helper_is_in_the_prelude() {
    let text = prelude();
    for m in METHODS {
        let name = match m.c {
            C::Tmpl(n) | C::Func(n) => n,
            C::Math(_) | C::Len => continue,
        };
        assert!(
            text.contains(&format!(" {name}(")),
            "`{}`: its C helper `{name}` is not defined in the prelude",
            m.name
        );
    }
}

/// Every intrinsic's C function exists (a prelude helper, a CUDA builtin, or one of the
/// vector types' constructors the prelude's macros define), and every kernel-facing
/// method of the simulator's `ThreadCtx` has an intrinsic row: a function added to one
/// side only would otherwise read as a call of a device function.
#[test]
fn intrinsics_match_the_prelude_and_the_simulator() {
    use crate::ir::intrinsics::{all, Intrinsic, Result};
    let text = prelude();
    for i in all() {
        let f = i.c_function(Some("int"));
        let f = f.split('<').next().unwrap_or_default();
        let vector =
            matches!(i.result(), Result::Fixed(crate::ir::ty::Ty::Scalar(s)) if s.is_vector());
        let ok = f.is_empty()
            || f == "0"
            || f.starts_with("__")
            || text.contains(&format!(" {f}("))
            || (vector && text.contains(&format!("({}, ", &f[..f.rfind('_').unwrap_or(0)])));
        assert!(ok, "{i:?}: its C function `{f}` is not in the prelude");
    }
    let ctx = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../runtime/src/sim/ctx.rs"
    ))
    .expect("runtime/src/sim/ctx.rs")
        // Hopper's ThreadCtx methods live beside their simulator.
        + &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../runtime/src/sim/wgmma.rs"
        ))
        .expect("runtime/src/sim/wgmma.rs");
    // ThreadCtx methods the emitted Rust calls for other constructs than intrinsics.
    let other = [
        "print",
        "arg_scalar",
        "arg_slice",
        "arg_slice_mut",
        "arg_atomic",
        "shared_array",
        "shared_atomic_array",
        "dynamic_shared",
        "sync_grid",
        // A `&TensorMap<T>` parameter and a `SharedArray::<Mbarrier, N>` (sim/tma.rs,
        // sim/mbarrier.rs).
        "arg_tensor_map",
        "shared_mbarriers",
        // Fragment methods (`acc.mma_sync(a, b)`, `a.ldmatrix(&tile, row)`, `stmatrix`:
        // `Call::Fragment`, ir/ty/fragment.rs).
        "mma_sync",
        "ldmatrix",
        "stmatrix",
        "wgmma",
    ];
    let mut ctx_fns = Vec::new();
    for line in ctx.lines() {
        let rest = line
            .trim_start()
            .strip_prefix("pub fn ")
            .or_else(|| line.trim_start().strip_prefix("pub async fn "));
        if let Some(rest) = rest {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            ctx_fns.push(name);
        }
    }
    for name in &ctx_fns {
        assert!(
            Intrinsic::from_name(name).is_some() || other.contains(&name.as_str()),
            "ThreadCtx::{name} has no row in ir/intrinsics.rs (a kernel calling it would read as a device function)"
        );
    }
    for i in all() {
        let on_ctx = i.sim_path().is_none() && !i.is_group();
        if on_ctx {
            assert!(
                ctx_fns.iter().any(|n| n == i.rust_name()),
                "{i:?}: the simulator has no ThreadCtx::{}",
                i.rust_name()
            );
        }
    }
}

/// The documented items of `warpspeed::kernel` (core/src/kernel/) are the table's intrinsics
/// with the table's types, and the group types' methods are the ones ir/groups.rs knows:
/// rustdoc and the IDE show what the macro accepts.
#[test]
fn kernel_module_matches_the_table() {
    use crate::ir::groups::{GroupKind, GroupMethod};
    use crate::ir::intrinsics::{all, ParamKind, Res, Row};
    use quote::ToTokens;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/src/kernel");
    let mut fns: Vec<syn::ItemFn> = Vec::new();
    let mut impls: Vec<syn::ItemImpl> = Vec::new();
    for entry in std::fs::read_dir(dir).expect("core/src/kernel") {
        let path = entry.expect("a file of core/src/kernel").path();
        let text = std::fs::read_to_string(&path).expect("readable");
        let file = syn::parse_file(&text).expect("core/src/kernel parses");
        for item in file.items {
            match item {
                syn::Item::Fn(f) => fns.push(f),
                syn::Item::Impl(i) => impls.push(i),
                _ => {}
            }
        }
    }
    let text = |t: &dyn ToTokens| t.to_token_stream().to_string().replace(' ', "");
    let row_types = |r: &Row| -> (Vec<String>, String) {
        let params = r
            .params
            .iter()
            .map(|p| match p {
                ParamKind::U32 => "u32".to_string(),
                ParamKind::Bool => "bool".to_string(),
                ParamKind::Value | ParamKind::Lossless | ParamKind::Elem => "T".to_string(),
                ParamKind::Scalar(s) => s.rust_name().to_string(),
                ParamKind::SharedDst | ParamKind::TmaDst => "&mut[T]".to_string(),
                ParamKind::GlobalSrc | ParamKind::QuadSrc => "&[T]".to_string(),
                ParamKind::QuadDst => "&mut[T]".to_string(),
                ParamKind::TensorMap => "&TensorMap<'_,T>".to_string(),
                ParamKind::Mbarrier => "&Mbarrier".to_string(),
            })
            .collect();
        let result = match r.result {
            Res::Scalar(s) => s.rust_name().to_string(),
            Res::Unit => String::new(),
            Res::Dim3 => "Dim3".into(),
            Res::Usizes(n) => format!("({})", vec!["usize"; n].join(",")),
            Res::Group(GroupKind::Block) => "ThreadBlock".into(),
            Res::Group(GroupKind::Grid) => "GridGroup".into(),
            Res::Group(GroupKind::Tile(_)) => "ThreadBlockTile<N>".into(),
            Res::Value => "T".into(),
            Res::Quad => "(T,T,T,T)".into(),
        };
        (params, result)
    };
    let fn_types = |f: &syn::ItemFn| -> (Vec<String>, String) {
        let params = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(p) => text(&p.ty),
                syn::FnArg::Receiver(r) => text(r),
            })
            .collect();
        let result = match &f.sig.output {
            syn::ReturnType::Default => String::new(),
            syn::ReturnType::Type(_, t) => text(t),
        };
        (params, result)
    };
    let others = ["outside_kernel", "tiled_partition", "dynamic_shared"];
    for f in &fns {
        let name = f.sig.ident.to_string();
        if others.contains(&name.as_str()) {
            continue;
        }
        let i = crate::ir::intrinsics::Intrinsic::from_name(&name)
            .unwrap_or_else(|| panic!("warpspeed::kernel::{name} has no row in ir/intrinsics.rs"));
        let row = all()
            .position(|j| j == i)
            .map(|k| &crate::ir::intrinsics::TABLE[k]);
        let row = row.expect("a row");
        assert_eq!(
            fn_types(f),
            row_types(row),
            "warpspeed::kernel::{name}: its signature differs from its row"
        );
    }
    for r in crate::ir::intrinsics::TABLE {
        if !r.name.contains("::") {
            assert!(
                fns.iter().any(|f| f.sig.ident == r.name),
                "the intrinsic `{}` has no documented item in core/src/kernel/",
                r.name
            );
        }
    }
    for (ty, kind) in [
        ("ThreadBlock", GroupKind::Block),
        ("ThreadBlockTile<N>", GroupKind::Tile(32)),
        ("GridGroup", GroupKind::Grid),
    ] {
        let methods: Vec<String> = impls
            .iter()
            .filter(|i| text(&i.self_ty) == ty)
            .flat_map(|i| i.items.iter())
            .filter_map(|it| match it {
                syn::ImplItem::Fn(m) => Some(m.sig.ident.to_string()),
                _ => None,
            })
            .collect();
        assert!(
            !methods.is_empty(),
            "core/src/kernel/ has no methods for {ty}"
        );
        for m in &methods {
            assert!(
                GroupMethod::lookup(kind, m).is_some(),
                "{ty}::{m} is documented but ir/groups.rs does not know it"
            );
        }
        for name in GroupMethod::names(kind).split(", ") {
            let name = name.split(' ').next().unwrap_or_default();
            assert!(
                methods.iter().any(|m| m == name),
                "{ty} lacks the documented method `{name}` that ir/groups.rs accepts"
            );
        }
    }
}
