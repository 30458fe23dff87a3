//! The kernel AST: what `#[gpu_kernel]` understood of the user's function. Every node keeps
//! its span, so later stages put errors on the user's exact tokens. Expressions carry an
//! [`ExprId`] under which the type checker records their type.

use crate::ir::ty::{Len, Scalar, Ty};
use proc_macro2::{Ident, Span};

pub type ExprId = usize;
pub type VarId = usize;

/// A const generic argument of a device function's call (the C backend spells it).
#[derive(Clone, Debug, PartialEq)]
pub enum ConstArg {
    /// An integer literal, its decimal digits and whether it is negated (`{ -5 }`).
    Int { digits: String, negative: bool },
    /// `true` or `false`.
    Bool(bool),
    /// In a const-generic device function, its own const parameter (a template
    /// parameter of its C).
    Param(Ident),
    /// A constant whose value Rust gives (a module-level `const`, a kernel's const
    /// parameter): [`Function::generic_args`]`[i]`.
    Value(usize),
}

/// A `#[gpu_kernel]` or `#[gpu_device]` function.
pub struct Function {
    pub kind: FnKind,
    pub vis: syn::Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    /// Device functions may return a scalar or a tuple of them; kernels return nothing.
    pub ret: Option<(Ty, Span)>,
    pub body: Block,
    /// Parameters whose type was rejected (already reported): bound to an error type so
    /// their uses raise no second error.
    pub error_params: Vec<(Ident, VarId)>,
    /// The written return type was rejected (already reported): the body's value is not
    /// checked against it.
    pub ret_rejected: bool,
    pub fast_math: bool,
    /// `#[gpu_kernel(unchecked)]`: the C indexes without bounds checks (the simulator
    /// still checks).
    pub unchecked: bool,
    /// `#[gpu_kernel(block = (x, y, z))]`: the block shape every launch must have, each
    /// extent a literal or a constant of [`Function::consts`] (a const parameter `B`). The
    /// launch checks it, NVRTC gets it as `__launch_bounds__`, and the bounds prover knows
    /// `thread_idx().x < x`.
    pub block: Option<[Len; 3]>,
    /// `#[gpu_kernel(block = .., min_blocks_per_multiprocessor = N)]`: NVRTC gets
    /// `__launch_bounds__(threads, N)` and keeps each thread's registers low enough for
    /// `N` blocks an SM.
    pub min_blocks_per_multiprocessor: Option<u32>,
    /// Number of expression ids handed out.
    pub expr_count: usize,
    /// The module-level constants the parser met as array lengths (`N`, `config::N`,
    /// `{ 2 * N }`), by [`ConstRef::id`](crate::ir::ty::ConstRef); the type checker adds
    /// the bare names it finds to be constants.
    pub consts: Vec<syn::Expr>,
    /// The constants the function's calls pass as const generic arguments whose value
    /// Rust gives (`f::<TILE>`, a kernel's `f::<B>`), by [`ConstArg::Value`]'s index: the C
    /// macro `ws_g{i}` each.
    pub generic_args: Vec<syn::Expr>,
    /// A generic function's const parameters, with their types (which their uses have).
    /// A device function's C is a template over them (`ws_tp_B`).
    pub const_params: Vec<(Ident, Scalar)>,
    pub docs: Vec<syn::Attribute>,
    /// `#[allow(..)]` on the function: applied to the simulator body, where rustc lints it.
    pub allows: Vec<syn::Attribute>,
    /// The `#[gpu_struct]`s the function may name (`Scalar::Struct`'s index is into this
    /// table), each with the path the function names it by.
    pub structs: Vec<crate::ir::structs::StructDef>,
    /// The device functions the body calls, as their macros described them
    /// (`parse/callees.rs`).
    pub callees: Vec<Callee>,
}

/// A device function a call names: the call's path as written, without generic arguments
/// (`helpers::lerp`), and the callee's signature as it wrote it.
#[derive(Clone)]
pub struct Callee {
    pub key: String,
    pub sig: syn::Signature,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FnKind {
    Kernel,
    Device,
}

pub struct Param {
    pub name: Ident,
    pub mutable: bool,
    pub ty: ParamTy,
    pub var: VarId,
    /// `AtomicU32` as written in `&[AtomicU32]`: the simulator checks it names the real type.
    pub atomic_path: Option<syn::Path>,
    /// `#[len(n * n)]` on a slice parameter: the least length the function needs (a
    /// `&mut SharedArray<T, N>` parameter declares `N`).
    pub len: Option<LenDecl>,
    /// A `&SharedArray<..>` or `&mut SharedArray<..>` parameter: its memory is the
    /// block's shared memory (the C's checked accesses stay shared ones).
    pub shared: bool,
}

/// `#[len(EXPR)]` on a slice parameter: the slice has at least EXPR elements. A kernel's
/// launch checks it before anything runs, a device function at its entry; inside, indexes
/// proven below it are not checked again.
pub struct LenDecl {
    pub expr: LenExpr,
    /// As written, for messages: `n * n`.
    pub text: String,
    /// The attribute's 1-based Rust line.
    pub line: usize,
}

/// The expression of a [`LenDecl`]: literals and unsigned integer parameters under `+`, `*`.
pub enum LenExpr {
    Lit(u64),
    /// A scalar parameter, by variable and name.
    Param(VarId, Ident),
    Add(Box<LenExpr>, Box<LenExpr>),
    Mul(Box<LenExpr>, Box<LenExpr>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ParamTy {
    Scalar(Scalar),
    Slice {
        elem: Scalar,
        mutable: bool,
    },
    /// `&[AtomicU32]` and friends: memory updated with atomic methods.
    Atomics(Scalar),
    /// `&Texture2D<T>` (or `Texture2D<T>`): read with `tex.fetch(x, y)` (kernels only).
    Texture2D(Scalar),
    /// `&TensorMap<T>`: a TMA tensor map, read by `tma_load_2d` (kernels only).
    TensorMap(Scalar),
    /// `&mut SharedArray<[T; W], H>` (device functions only): a 2-D shared tile, rows of
    /// `width` elements (its C is a pointer to rows and the number of rows).
    Rows {
        elem: Scalar,
        width: u64,
    },
    /// `[T; N]` or `[[T; M]; N]` by value (device functions only): `dims` is `[N, M]`, `M`
    /// 0 for one dimension.
    Array {
        elem: Scalar,
        dims: [u64; 2],
    },
}

impl ParamTy {
    pub fn ty(self) -> Ty {
        match self {
            ParamTy::Scalar(s) => Ty::Scalar(s),
            ParamTy::Slice { elem, mutable } => Ty::Slice(elem, mutable),
            ParamTy::Atomics(elem) => Ty::Atomics(elem),
            ParamTy::Texture2D(elem) => Ty::Texture2D(elem),
            ParamTy::TensorMap(elem) => Ty::TensorMap(elem),
            ParamTy::Rows { elem, width } => Ty::Rows(elem, Len::Lit(width)),
            ParamTy::Array { elem, dims: [n, 0] } => {
                Ty::Array(Box::new(Ty::Scalar(elem)), Len::Lit(n))
            }
            ParamTy::Array { elem, dims: [n, m] } => Ty::Array(
                Box::new(Ty::Array(Box::new(Ty::Scalar(elem)), Len::Lit(m))),
                Len::Lit(n),
            ),
        }
    }
}

pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of the block: its last expression without a semicolon.
    pub tail: Option<Box<Expr>>,
    /// The last expression had no semicolon but was refused (reported): the block's
    /// value is unknown, not `()`, so no second error says the types differ.
    pub tail_refused: bool,
    pub span: Span,
}

pub enum Stmt {
    Let(Let),
    /// An expression statement; the flag says whether it ends with `;`.
    Expr(Expr, bool),
}

pub struct Let {
    pub pat: Pat,
    pub ty: Option<(Ty, Span)>,
    pub init: Option<Expr>,
    pub span: Span,
}

pub enum Pat {
    Bind {
        name: Ident,
        mutable: bool,
        var: VarId,
    },
    Tuple(Vec<Pat>, Span),
    Wild,
}

pub struct Expr {
    pub id: ExprId,
    pub kind: ExprKind,
    pub span: Span,
    /// The span of the expression's last token: with `span`, the whole range errors point at
    /// (stable proc macros cannot join spans).
    pub end: Span,
    /// 1-based Rust source line, for `#line` and bounds messages.
    pub line: usize,
}

impl Expr {
    /// First and last token, for errors that underline the whole expression.
    pub fn range(&self) -> (Span, Span) {
        (self.span, self.end)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    pub fn rust_token(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Debug)]
pub enum Lit {
    Int(u128, Option<Scalar>),
    /// The value as written, parsed as f64 (f32 literals are re-parsed from `text`).
    Float {
        text: String,
        suffix: Option<Scalar>,
    },
    Bool(bool),
}

pub struct RangeLoop {
    pub start: Box<Expr>,
    pub end: Box<Expr>,
    pub inclusive: bool,
    /// `.step_by(k)` (a `usize` expression).
    pub step: Option<Box<Expr>>,
    pub rev: bool,
    /// `.step_by(k).rev()`: the forward sequence, walked backwards.
    pub step_then_rev: bool,
    /// `#[unroll]` or `#[unroll(n)]` on the loop: NVRTC's `#pragma unroll`.
    pub unroll: Option<Unroll>,
    /// Hidden variables for the start and the end, each computed once before the loop:
    /// the bounds prover names an end that is no sum of products of variables by them
    /// (`row_ptr[row + 1] as usize`), so the loop's checks may be proven at its entry.
    pub ends: [VarId; 2],
}

/// An unroll hint: `#[unroll]` unrolls completely (the trip count must be a constant
/// NVRTC can see), `#[unroll(n)]` by a factor of n.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unroll {
    Full,
    By(u32),
}

pub enum ExprKind {
    Lit(Lit),
    /// A numeric constant of the standard library (`u32::MAX`, `core::f32::consts::PI`).
    Const(crate::ir::numeric_consts::NumConst),
    /// A local or parameter; which one is the type checker's answer (`Types::var`).
    Var(Ident),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Cast(Box<Expr>, Scalar),
    Index(Box<Expr>, Box<Expr>),
    /// `.x`/`.y`/`.z` of a `Dim3`, `.0` of a tuple.
    Field(Box<Expr>, Member),
    Method(Box<Expr>, Ident, Vec<Expr>),
    Intrinsic(crate::ir::intrinsics::Intrinsic, Vec<Expr>),
    /// A call of a `#[gpu_device]` function, with the const arguments its turbofish
    /// gives (`f::<f32, 4>` -> `[4]`: the C template's arguments; the types pick the
    /// overload from the arguments).
    Call(syn::Path, Vec<ConstArg>, Vec<Expr>),
    Assign(Box<Expr>, Box<Expr>),
    AssignOp(BinOp, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Block, Option<Box<Expr>>),
    /// `match` on an integer or a bool.
    Match(Box<Expr>, Vec<Arm>),
    While(Option<Ident>, Box<Expr>, Block),
    Loop(Option<Ident>, Block),
    For(Option<Ident>, Pat, RangeLoop, Block),
    Break(Option<Ident>),
    Continue(Option<Ident>),
    Return(Option<Box<Expr>>),
    Block(Block),
    /// `[a, b, c]`
    Array(Vec<Expr>),
    /// `(a, b)`: a tuple value.
    Tuple(Vec<Expr>),
    /// `[value; N]`
    Repeat(Box<Expr>, Len),
    /// A module-level constant named by a path (`config::N`); a bare `N` is a `Var` until
    /// the type checker finds no local of that name.
    ConstItem(syn::Path),
    /// `SharedArray::<T, N>::new()`: block-wide memory, declared by a `let`.
    SharedArray(SharedDecl),
    /// `dynamic_shared::<T>()`: the block's shared memory sized by the launch.
    DynamicShared(Scalar),
    /// `FragmentAcc::<f32, M16N8K16>::zeroed()`: a tensor-core fragment, every element 0.
    Fragment(crate::ir::ty::fragment::Frag),
    /// `tiled_partition::<N>(group)`: a tile of N threads.
    TiledPartition(u32, Box<Expr>),
    /// `gpu_print!("..", args)`: `printf` on the GPU, ordered output on the simulator.
    Print(Print),
    /// `Ordering::Relaxed`, ...: the memory order of an atomic method.
    Ordering(MemOrder, syn::Path),
    /// `Params { dt: 0.1, n: 3 }`: a `#[gpu_struct]` value.
    StructLit(StructLit),
    /// `&x` or `&mut x` (true) of a slice, a shared array or a row of a 2-D tile: the same
    /// memory, handed to a device function or bound by a `let` (references to locals and
    /// scalars are refused by the type checker).
    Ref(bool, Box<Expr>),
    /// `&x[a..b]`, `&mut x[a..]`, `&x[..b]`, `&x[..]`: a sub-slice with its own length.
    SubSlice(Box<SubSlice>),
}

/// A sub-slice `&x[a..b]` (`mutable` for `&mut`): elements `a` to `b` (exclusive) of the
/// slice `base`; a missing `start` is 0 and a missing `end` the length. Checked as Rust
/// checks it, `a <= b <= len`, before any element is touched.
pub struct SubSlice {
    pub base: Expr,
    pub start: Option<Expr>,
    pub end: Option<Expr>,
    pub mutable: bool,
    /// A half of `let (a, b) = x.split_at_mut(mid);` (the split's number, 0 for `a`, 1
    /// for `b`): disjoint from the other half, which the call arguments' aliasing check
    /// knows.
    pub split: Option<(usize, u8)>,
}

/// A `#[gpu_struct]` literal: the struct, its path as written, and the fields in the
/// order written (Rust evaluates them in that order).
pub struct StructLit {
    pub ty: Scalar,
    pub path: syn::Path,
    pub fields: Vec<(Ident, Expr)>,
}

/// One arm of a `match`: `1 | 3..=5 => body`, `n @ 10.. if n % 2 == 0 => body`, `_ => body`.
pub struct Arm {
    /// The alternatives of `|`.
    pub pats: Vec<MatchPat>,
    /// `n` or `n @ ..`: the scrutinee's value, named in the guard and the body.
    pub binding: Option<Binding>,
    pub guard: Option<Expr>,
    pub body: Expr,
}

pub struct Binding {
    pub name: Ident,
    pub mutable: bool,
    pub var: VarId,
}

/// A pattern of an integer or bool `match`.
#[derive(Clone, Debug)]
pub enum MatchPat {
    /// `_` or a binding: every value.
    Any,
    Bool(bool, Span),
    Int(PatInt),
    /// A module-level constant (`OP_ADD`, `ops::ADD`): equal to its value, which only rustc
    /// knows (so for the macro's exhaustiveness check it covers nothing for sure).
    Const(syn::Path),
    /// `a..=b`, `a..b`, `a..`, `..=b`.
    Range {
        lo: Option<PatInt>,
        hi: Option<PatInt>,
        inclusive: bool,
        span: (Span, Span),
    },
}

/// An integer in a pattern: a literal (`-5`, `7u8`) or a numeric constant (`i32::MIN`).
#[derive(Clone, Debug)]
pub struct PatInt {
    /// The value (0 for a module-level constant, whose value only rustc knows).
    pub value: i128,
    /// A range end that is a module-level constant (`0..=LIMIT`).
    pub konst: Option<syn::Path>,
    /// The suffix of a literal, or the type of a constant.
    pub ty: Option<Scalar>,
    pub span: Span,
}

/// A parsed `gpu_print!`: literal pieces and argument slots, in order.
pub struct Print {
    pub pieces: Vec<FmtPiece>,
    /// The arguments: the explicit ones, then variables named in the string (`{x}`).
    pub args: Vec<Expr>,
}

pub enum FmtPiece {
    Lit(String),
    Arg { index: usize, spec: FmtSpec },
}

/// What follows `:` in `{:08.3}`: the subset C's printf spells the same way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FmtSpec {
    pub zero: bool,
    pub width: Option<u32>,
    pub precision: Option<u32>,
    /// `x` (false) or `X` (true).
    pub hex: Option<bool>,
}

/// The element layout of a `SharedArray`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    pub elem: Scalar,
    /// `SharedArray::<AtomicU32, N>`.
    pub atomic: bool,
    /// `SharedArray::<Mbarrier, N>` (`elem` is then `u64`, the object's size).
    pub mbarrier: bool,
    /// `SharedArray::<[T; W], H>`: rows of `W` elements.
    pub width: Option<Len>,
    /// `N` (or `H` rows).
    pub len: Len,
}

impl SharedDecl {
    pub fn ty(&self) -> Ty {
        if self.mbarrier {
            return Ty::Mbarriers;
        }
        match (self.atomic, &self.width) {
            (true, _) => Ty::Atomics(self.elem),
            (false, Some(w)) => Ty::Rows(self.elem, w.clone()),
            (false, None) => Ty::Slice(self.elem, true),
        }
    }
    /// Elements in all (rows times width), when the length is a literal.
    pub fn elements(&self) -> Option<u64> {
        let w = match &self.width {
            Some(w) => w.known()?,
            None => 1,
        };
        Some(self.len.known()?.saturating_mul(w))
    }
}

/// Rust's `core::sync::atomic::Ordering`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemOrder {
    pub fn from_name(name: &str) -> Option<MemOrder> {
        Some(match name {
            "Relaxed" => MemOrder::Relaxed,
            "Acquire" => MemOrder::Acquire,
            "Release" => MemOrder::Release,
            "AcqRel" => MemOrder::AcqRel,
            "SeqCst" => MemOrder::SeqCst,
            _ => return None,
        })
    }
    /// The prelude's constant for this order (`ws_atomic_fetch_add<WS_RELAXED>`).
    pub fn c_name(self) -> &'static str {
        match self {
            MemOrder::Relaxed => "WS_RELAXED",
            MemOrder::Acquire => "WS_ACQUIRE",
            MemOrder::Release => "WS_RELEASE",
            MemOrder::AcqRel => "WS_ACQ_REL",
            MemOrder::SeqCst => "WS_SEQ_CST",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Member {
    Named(String),
    Index(u32),
}
