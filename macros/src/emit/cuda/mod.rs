//! The CUDA C backend: typed kernel AST -> self-contained C++17 for NVRTC.
//!
//! `write_function` gives a prototype and a definition. The writer never re-derives
//! meaning: every type comes from the checker's [`Types`]. Expressions become C strings;
//! when a Rust expression needs statements in C (a block, an `if` with statements, `&&`
//! whose right side has them), those are written first into temporaries, in Rust's
//! evaluation order. Each statement is preceded by a `#line` directive naming the Rust
//! line, with [`FILE_MARKER`] where the file name goes (the host emitter puts `file!()`
//! there).

mod effect;
mod expr;
pub use expr::const_arg_c;
mod groups;
mod hopper;
mod keywords;
mod matching;
mod namer;
mod print;
mod slices;
mod stmt;
mod structs;
mod texture;
mod version;

use crate::analysis::proof;
use crate::analysis::typeck::Types;
use crate::ir::ast::*;
use crate::ir::ty::{Len, Scalar, Ty};
pub use crate::ir::visit::{visit_children, walk_block, Child};
pub use namer::fn_name;
use namer::Namer;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Where the Rust file name goes in `#line` directives.
pub const FILE_MARKER: &str = "\u{1}WS_FILE\u{1}";

pub struct CFunction {
    pub prototype: String,
    pub definition: String,
    /// The C name of the function (the kernel's entry point).
    pub c_name: String,
    /// A kernel's checks that a launch may prove, by site (`WS_P(n)`): each the
    /// conditions, any one of which proves it (`proof::launch`).
    pub provable: Vec<Vec<proof::Poly>>,
}

pub fn write_function(f: &Function, types: &Types) -> CFunction {
    let mut w = FnWriter::new(types);
    w.unchecked = f.unchecked;
    // A 16-byte `cp_async` needs its destination 16-byte aligned, as `ldmatrix` its rows.
    crate::ir::visit::walk_block(&f.body, &mut |e| {
        if let ExprKind::Intrinsic(i, _) = &e.kind {
            w.ldmatrix |= i.c_takes_site();
            w.tma |= i.rust_name() == "tma_load_2d";
        }
    });
    if f.kind == FnKind::Kernel {
        w.facts.block = f.block.as_ref().map(|b| b.each_ref().map(proof::array_len));
        w.launch_known = Some(launch_known(f, types));
    }
    let mut calls = false;
    collect_called(&f.body, &mut |name| {
        calls = true;
        w.namer.reserve(&fn_name(name));
    });
    // The record of the thread's first failure in a device function (`ws_dk`, see
    // `ws_at_k` in the prelude): every device function takes it, and a kernel that calls
    // one holds it and records it when it returns.
    w.call_record = match f.kind {
        FnKind::Device => CallRecord::Param,
        FnKind::Kernel if calls => CallRecord::Held,
        FnKind::Kernel => CallRecord::None,
    };
    let c_name = fn_name(&f.name.to_string());
    let mut params = Vec::new();
    // `mut` array parameters: (declaration, name, the argument it copies).
    let mut array_copies = Vec::new();
    for p in &f.params {
        let name = w.namer.fresh(&p.name.to_string());
        match p.ty {
            ParamTy::Scalar(s) => params.push(format!("{} {name}", s.c_name())),
            // By reference to const: the callee cannot change it, so this is Rust's copy
            // (a `mut` one is copied in the prologue, below).
            ParamTy::Array { .. } => {
                let ty = p.ty.ty();
                if p.mutable {
                    let arg = w.namer.fresh(&format!("{}_in", p.name));
                    params.push(format!("const {}", c_decl(&ty, &format!("(&{arg})"))));
                    array_copies.push((c_decl(&ty, &name), name.clone(), arg));
                } else {
                    params.push(format!("const {}", c_decl(&ty, &format!("(&{name})"))));
                }
            }
            ParamTy::Texture2D(_) => params.extend(w.texture_params(p.var, &name)),
            // The CUtensorMap, a `__grid_constant__` (the TMA reads it where the launch put
            // it), and its box word (prelude_hopper.cuh).
            ParamTy::TensorMap(_) => {
                let word = w.namer.fresh(&format!("{name}_box"));
                params.push(format!("const __grid_constant__ ws_tensor_map {name}"));
                params.push(format!("const unsigned long long {word}"));
                w.tma_box.insert(p.var, word);
            }
            // A 2-D shared tile: a pointer to its rows, and the number of rows.
            ParamTy::Rows { elem, width } => {
                let len = w.namer.fresh(&format!("{name}_len"));
                params.push(format!("{} (*{name})[{width}]", elem.c_name()));
                params.push(format!("unsigned long long {len}"));
                w.slice_len.insert(p.var, len);
            }
            ParamTy::Slice { .. } | ParamTy::Atomics(_) => {
                let (elem, mutable) = match p.ty {
                    ParamTy::Slice { elem, mutable } => (elem, mutable),
                    ParamTy::Atomics(elem) => (elem, true),
                    ParamTy::Scalar(_)
                    | ParamTy::Array { .. }
                    | ParamTy::Texture2D(_)
                    | ParamTy::TensorMap(_)
                    | ParamTy::Rows { .. } => unreachable!(),
                };
                let len = w.namer.fresh(&format!("{name}_len"));
                let cnst = if mutable { "" } else { "const " };
                params.push(format!("{cnst}{}* __restrict__ {name}", elem.c_name()));
                params.push(format!("unsigned long long {len}"));
                w.slice_len.insert(p.var, len);
            }
        }
        if p.shared {
            w.shared_vars.insert(p.var);
        }
        w.bind_var(p.var, name);
    }
    if w.call_record == CallRecord::Param {
        params.push(format!("ws_defer& {CALL_RECORD}"));
    }
    let params = params.join(", ");
    let head = match f.kind {
        FnKind::Kernel => {
            // A declared block shape is the most threads the kernel runs with: NVRTC may
            // then give each thread more registers.
            // A constant extent is its macro, whose value the program's assembly defines.
            // A kernel that moves registers between warpgroups (`setmaxnreg_*`) also says
            // one block an SM: ptxas then fixes the registers a thread has at entry, which
            // `setmaxnreg` needs (without it ptxas drops the instruction, C7508).
            let mut setmaxnreg = false;
            crate::ir::visit::walk_block(&f.body, &mut |e| {
                if let ExprKind::Intrinsic(i, _) = &e.kind {
                    setmaxnreg |= i.rust_name().starts_with("setmaxnreg_");
                }
            });
            // Else the kernel's own `min_blocks_per_multiprocessor`, which caps the
            // registers a thread may take so that that many blocks fit an SM.
            let min_blocks = match (setmaxnreg, f.min_blocks_per_multiprocessor) {
                (true, _) => ", 1".to_string(),
                (false, Some(n)) => format!(", {n}"),
                (false, None) => String::new(),
            };
            let bounds = f
                .block
                .as_ref()
                .map(|b| format!("__launch_bounds__({}{min_blocks}) ", launch_bounds(b)))
                .unwrap_or_default();
            format!("extern \"C\" __global__ void {bounds}{c_name}({params})")
        }
        FnKind::Device => {
            let ret = f
                .ret
                .as_ref()
                .map(|r| c_type(&r.0))
                .unwrap_or("void".into());
            format!("{}__device__ {ret} {c_name}({params})", template_head(f))
        }
    };
    let macros = const_param_macros(f, types);
    let prototype = match f.kind {
        FnKind::Kernel => String::new(),
        FnKind::Device => format!("{macros}{head};"),
    };
    w.out.push_str(&macros);
    w.line_directive(f.name.span().start().line);
    w.raw(&format!("{head} {{"));
    w.indent += 1;
    if w.call_record == CallRecord::Held {
        w.raw(&format!("ws_defer {CALL_RECORD} = {{}};"));
    }
    w.declared_lengths(f);
    for (decl, name, arg) in array_copies {
        w.raw(&format!("{decl};"));
        w.raw(&format!("ws_copy({name}, {arg});"));
    }
    let dest = if f.ret.is_some() {
        stmt::Dest::Return
    } else {
        stmt::Dest::Discard
    };
    w.block_body(&f.body, &dest);
    if w.call_record == CallRecord::Held {
        w.raw(&format!("ws_defer_flush({CALL_RECORD});"));
    }
    w.indent -= 1;
    w.raw("}");
    CFunction {
        prototype,
        definition: w.out,
        c_name,
        provable: w.provable,
    }
}

/// The values a launch of kernel `f` knows, as the prover's atoms stand for them: its
/// unsigned immutable scalar parameters, its slice parameters' lengths, the block and
/// grid, and module constants.
fn launch_known(f: &Function, types: &Types) -> HashSet<proof::LaunchValue> {
    let mut known: HashSet<proof::LaunchValue> = (0..3)
        .flat_map(|axis| {
            [
                proof::LaunchValue::BlockDim(axis),
                proof::LaunchValue::GridDim(axis),
            ]
        })
        .collect();
    known.extend((0..types.consts.len()).map(proof::LaunchValue::Const));
    for p in &f.params {
        match p.ty {
            ParamTy::Scalar(s) if s.is_int() && !s.is_signed_int() && !p.mutable => {
                known.insert(proof::LaunchValue::Var(p.var));
            }
            ParamTy::Slice { .. } | ParamTy::Atomics(_) if !p.shared => {
                known.insert(proof::LaunchValue::Len(p.var));
            }
            _ => {}
        }
    }
    known
}

/// The threads of a declared block shape, as a C constant expression: `256`, or
/// `ws_c0 * 2` where an extent is a constant's macro.
fn launch_bounds(b: &[Len; 3]) -> String {
    let lit: u64 = b
        .iter()
        .filter_map(|l| match l {
            Len::Lit(v) => Some(*v),
            Len::Const(_) => None,
        })
        .product();
    let mut parts: Vec<String> = b
        .iter()
        .filter_map(|l| match l {
            Len::Const(c) => Some(format!("({})", c.c_name())),
            Len::Lit(_) => None,
        })
        .collect();
    if lit != 1 || parts.is_empty() {
        parts.push(lit.to_string());
    }
    parts.join(" * ")
}

/// `template<unsigned long long ws_tp_B> `: a const-generic device function is a C++
/// template over its const parameters, which each call names (`f<4>(..)`), as Rust's does.
fn template_head(f: &Function) -> String {
    if f.const_params.is_empty() || f.kind != FnKind::Device {
        return String::new();
    }
    let params: Vec<String> = f
        .const_params
        .iter()
        .map(|(name, s)| format!("{} {}", s.c_name(), template_param(name)))
        .collect();
    format!("template<{}> ", params.join(", "))
}

/// In a const-generic device function, the constants' macros that stand for its const
/// parameters (`B`, `B as f32`) read the template's parameters: `#define ws_c0_B ws_tp_B`.
/// Written before its prototype and its definition (the host gives the other constants'
/// values before the definition only).
fn const_param_macros(f: &Function, types: &Types) -> String {
    let mut out = String::new();
    for c in &types.consts {
        let Some(name) = const_param_of(f, &c.expr) else {
            continue;
        };
        let value = match c.cast {
            Some(to) => format!("(({}){})", to.c_name(), template_param(name)),
            None => template_param(name),
        };
        let m = c.c_name();
        let _ = writeln!(out, "#undef {m}\n#define {m} {value}");
    }
    out
}

/// A const-generic device function's template parameter for its const parameter `name`.
pub fn template_param(name: &proc_macro2::Ident) -> String {
    format!("ws_tp_{name}")
}

/// The const parameter of device function `f` that the constant expression `e` is (a
/// kernel's const parameters are values, which the launch gives).
pub fn const_param_of<'f>(f: &'f Function, e: &syn::Expr) -> Option<&'f proc_macro2::Ident> {
    let syn::Expr::Path(p) = e else { return None };
    if f.kind != FnKind::Device {
        return None;
    }
    let id = p.path.get_ident()?;
    f.const_params.iter().map(|(c, _)| c).find(|c| *c == id)
}

impl FnWriter<'_> {
    /// Makes the `#[len(..)]` declarations known to the prover. A kernel's launch checks
    /// them on the host; a device function checks them here, at its entry, and returns
    /// without touching memory when a slice is too short (`unchecked` removes that check,
    /// and with it every check the declarations would have removed).
    fn declared_lengths(&mut self, f: &Function) {
        if self.unchecked {
            return;
        }
        for p in &f.params {
            let Some(decl) = &p.len else { continue };
            self.facts.declare_len(p.var, &decl.expr);
            let need = self.len_c(&decl.expr);
            let len = self.slice_len[&p.var].clone();
            if f.kind == FnKind::Kernel {
                // The launch checked it: telling the compiler lets it drop the same check
                // at the entry of every device function inlined here (measured on an H100:
                // Life with its lengths declared 1.08x unchecked without this, 1.00x with).
                self.raw(&format!("__builtin_assume(!({len} < {need}));"));
                continue;
            }
            let ret = match &f.ret {
                Some((t, _)) => format!("return ws_zero<{}>();", c_type(t)),
                None => "return;".into(),
            };
            let what = format!("{}\\t{}\\t{}", f.name, p.name, decl.text);
            self.line_directive(decl.line);
            self.raw(&format!(
                "if ({len} < {need}) {{ ws_len_report({need}, {len}, {}u, \"{FILE_MARKER}\", \"{what}\"); {ret} }}",
                decl.line
            ));
        }
    }

    /// A declared length as C, saturating at `u64::MAX`.
    fn len_c(&self, e: &LenExpr) -> String {
        match e {
            LenExpr::Lit(v) => format!("{v}ull"),
            LenExpr::Param(v, _) => format!("(unsigned long long){}", self.var_names[v]),
            LenExpr::Add(a, b) => format!("ws_len_add({}, {})", self.len_c(a), self.len_c(b)),
            LenExpr::Mul(a, b) => format!("ws_len_mul({}, {})", self.len_c(a), self.len_c(b)),
        }
    }
}

/// Calls `f` with the last path segment of every device-function call in `b`.
fn collect_called(b: &Block, f: &mut dyn FnMut(&str)) {
    walk_block(b, &mut |e| {
        if let ExprKind::Call(path, _, _) = &e.kind {
            if let Some(seg) = path.segments.last() {
                f(&seg.ident.to_string());
            }
        }
    });
}

/// The C name of the record a kernel passes to its device functions.
const CALL_RECORD: &str = "ws_dk";

/// Where a function's `ws_dk` comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CallRecord {
    /// A kernel that calls no device function has none.
    None,
    /// A kernel that calls one declares it, and records it at each return.
    Held,
    /// A device function takes it from its caller, and its checks of global memory
    /// write their failures into it.
    Param,
}

struct LoopLabels {
    rust: Option<String>,
    brk: String,
    cont: String,
    used_brk: bool,
    used_cont: bool,
}

pub(crate) struct FnWriter<'a> {
    types: &'a Types,
    /// `#[gpu_kernel(unchecked)]`: index without bounds checks.
    unchecked: bool,
    out: String,
    indent: usize,
    namer: Namer,
    var_names: HashMap<VarId, String>,
    slice_len: HashMap<VarId, String>,
    /// The length temporary of each sub-slice expression written (`slices.rs`).
    sub_lens: HashMap<ExprId, String>,
    /// The width, height and mode parameters of each texture parameter.
    tex_names: HashMap<VarId, texture::TexNames>,
    /// The box word parameter of each tensor-map parameter.
    tma_box: HashMap<VarId, String>,
    /// The function calls `tma_load_2d`: its shared arrays are declared `__align__(1024)`.
    tma: bool,
    /// Shared arrays' lengths (rows of a 2-D tile), for the prover.
    shared_len: HashMap<VarId, proof::Poly>,
    /// Variables that are shared memory (static arrays and `dynamic_shared`), whose checked
    /// accesses use `ws_at_shared`.
    shared_vars: HashSet<VarId>,
    /// The function calls `ldmatrix`, `stmatrix` or `cp_async`, whose rows (copies) must be
    /// 16-byte aligned: its shared arrays are declared `__align__(16)`.
    ldmatrix: bool,
    /// The function calls `wgmma`, whose 128B-swizzled tiles must be 1024-byte aligned: its
    /// shared arrays are declared `__align__(1024)`.
    wgmma: bool,
    /// What is known at the current point, for the prover.
    facts: proof::Facts,
    /// A kernel's parameters whose values its launch knows (`launch_known`): the checks
    /// the prover cannot remove may be proven at launch with them. `None` in a device
    /// function.
    launch_known: Option<HashSet<proof::LaunchValue>>,
    /// The conditions of each check site written so far (`CFunction::provable`).
    provable: Vec<Vec<proof::Poly>>,
    /// The variables in scope, innermost last (`bind_var`; each block truncates it).
    scope: Vec<VarId>,
    /// The loop being written with a copy whose checks its entry proves (`version.rs`).
    loop_entry: Option<version::LoopEntry>,
    /// How many loops have been versioned so far (names their flags).
    entry_versions: usize,
    /// This function's `ws_dk`.
    call_record: CallRecord,
    last_line: usize,
    loops: Vec<LoopLabels>,
    labels: usize,
}

impl<'a> FnWriter<'a> {
    fn new(types: &'a Types) -> Self {
        FnWriter {
            types,
            unchecked: false,
            out: String::new(),
            indent: 0,
            namer: Namer::default(),
            var_names: HashMap::new(),
            slice_len: HashMap::new(),
            sub_lens: HashMap::new(),
            tex_names: HashMap::new(),
            tma_box: HashMap::new(),
            tma: false,
            shared_len: HashMap::new(),
            shared_vars: HashSet::new(),
            ldmatrix: types.calls.values().any(|c| {
                use crate::ir::ty::fragment::FragMethod;
                matches!(
                    c,
                    crate::ir::call::Call::Fragment(
                        FragMethod::LdMatrix(_) | FragMethod::StMatrix(_)
                    )
                )
            }),
            wgmma: types.calls.values().any(|c| {
                matches!(
                    c,
                    crate::ir::call::Call::Fragment(crate::ir::ty::fragment::FragMethod::Wgmma(..))
                )
            }),
            facts: proof::Facts::default(),
            launch_known: None,
            provable: Vec::new(),
            scope: Vec::new(),
            loop_entry: None,
            entry_versions: 0,
            call_record: CallRecord::None,
            last_line: 0,
            loops: Vec::new(),
            labels: 0,
        }
    }

    fn raw(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn line_directive(&mut self, line: usize) {
        if line != 0 && line != self.last_line {
            self.last_line = line;
            let _ = writeln!(self.out, "#line {line} \"{FILE_MARKER}\"");
        }
    }

    /// Variable `var` is written `name` in C from here to the end of its block.
    fn bind_var(&mut self, var: VarId, name: String) {
        self.var_names.insert(var, name);
        self.scope.push(var);
    }

    fn prover(&mut self) -> proof::Prover<'_> {
        proof::Prover::new(self.types, &mut self.facts)
    }

    fn ty(&self, e: &Expr) -> &'a Ty {
        &self.types.expr[e.id]
    }

    fn scalar(&self, e: &Expr) -> Scalar {
        self.ty(e).scalar().unwrap_or(Scalar::I32)
    }

    fn var_name(&self, e: &Expr) -> String {
        self.types
            .var(e)
            .and_then(|v| self.var_names.get(&v).cloned())
            .unwrap_or_else(|| "0".into())
    }

    /// A temporary holding `value` (of type `ty`), declared now.
    fn hoist(&mut self, ty: &Ty, value: &str) -> String {
        let t = self.namer.temp();
        let decl = c_decl(ty, &t);
        if let Ty::Array(..) = ty {
            self.raw(&format!("{decl};"));
            self.store(&t, ty, value);
        } else {
            self.raw(&format!("{decl} = {value};"));
        }
        t
    }

    /// `target = value;` for a value of type `ty`: arrays, which C does not assign, are
    /// copied element by element (`ws_copy`), as Rust copies them.
    fn store(&mut self, target: &str, ty: &Ty, value: &str) {
        if let Ty::Array(..) = ty {
            self.raw(&format!("ws_copy({target}, {value});"));
        } else {
            self.raw(&format!("{target} = {value};"));
        }
    }
}

/// The C name of a `#[gpu_struct]` field (Rust names that are C or CUDA words get a
/// suffix), in the struct's C definition and at every use.
pub fn c_field_name(name: &str) -> String {
    if keywords::is_reserved(name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// The C type of a value (arrays are declared with [`c_decl`]).
pub fn c_type(ty: &Ty) -> String {
    match ty {
        Ty::Scalar(s) => s.c_name().to_string(),
        Ty::Dim3 => "ws_dim3".into(),
        // `grid_2d()`'s and `grid_3d()`'s, by the prelude's short names.
        Ty::Tuple(items)
            if (2..=3).contains(&items.len()) && items.iter().all(|t| *t == Ty::USIZE) =>
        {
            format!("ws_usize{}", items.len())
        }
        Ty::Tuple(items) => {
            let items: Vec<String> = items.iter().map(c_type).collect();
            format!("ws_tuple{}<{}>", items.len(), items.join(", "))
        }
        Ty::Array(..) => c_decl(ty, ""),
        Ty::Fragment(f) => f.c_type(),
        _ => "int".into(),
    }
}

/// A declaration of `name` with type `ty`: `int x`, `float a[4][4]`.
pub fn c_decl(ty: &Ty, name: &str) -> String {
    match ty {
        Ty::Array(elem, Len::Lit(n)) => c_decl(elem, &format!("{name}[{n}]")),
        Ty::Array(elem, Len::Const(c)) => c_decl(elem, &format!("{name}[{}]", c.c_name())),
        other => format!("{} {name}", c_type(other)),
    }
}
