//! Type inference, as rustc does it for this subset: parameters, annotations, suffixed
//! literals and intrinsics give types; unsuffixed literals are inference variables that
//! meet their context, and default to i32 / f64 at the end. A value whose type the macro
//! cannot know (a device function's result that nothing pins down) is an error asking for
//! an annotation — never a guess.

use crate::ctxt::{Ctxt, ErrSpan};
use crate::ir::ast::*;
use crate::ir::atomics::{AtomicOp, CasUse};
use crate::ir::call::Call;
use crate::ir::groups::{GroupKind, GroupMethod, Sig};
use crate::ir::intrinsics::{self, Intrinsic, ParamKind};
use crate::ir::methods::{self, Method};
use crate::ir::structs::StructDef;
use crate::ir::ty::{ConstRef, Len, Scalar, Ty};
use proc_macro2::{Ident, Span};

mod calls;
mod consts;
mod fragment;
mod hopper;
mod matching;
mod refs;
mod structs;
mod texture;
use matching::PendingMatch;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Any,
    Int,
    Float,
}

#[derive(Clone, Debug)]
enum Tv {
    Unbound {
        kind: Kind,
        origin: Option<(ErrSpan, String)>,
    },
    Bound(Ty),
}

pub struct VarInfo {
    pub name: Ident,
    pub ty: Ty,
    pub mutable: bool,
}

/// The checker's result: a resolved type for every expression and variable.
pub struct Types {
    pub expr: Vec<Ty>,
    pub vars: Vec<VarInfo>,
    /// The variable each `ExprKind::Var` names (the binding in scope where it is read), by
    /// the expression's id.
    pub var_uses: std::collections::HashMap<ExprId, VarId>,
    /// Every method call, resolved (table method, atomic, `compare_exchange` result,
    /// group or texture method), by the method-call expression's id.
    pub calls: std::collections::HashMap<ExprId, Call>,
    /// Unsuffixed integer literals passed to device functions: typed by the callee.
    pub call_literals: std::collections::HashSet<ExprId>,
    /// The kernel calls `this_grid().sync()`: it must be launched cooperatively.
    pub grid_sync: bool,
    /// The module-level constants the function names; the first ones are
    /// [`Function::consts`], in order (their [`ConstRef::id`]s).
    pub consts: Vec<ConstInfo>,
    /// Expressions that are a module-level constant (`N`, `config::N`, also `N as f32`),
    /// by id, to their index in `consts`.
    pub const_uses: std::collections::HashMap<ExprId, usize>,
}

/// A module-level constant as the function uses it: rustc knows its value, the macro its
/// type (from the uses, as rustc infers it; rustc checks it in the simulator body).
pub struct ConstInfo {
    /// The constant's path, or (for an array length) an expression of constants.
    pub expr: syn::Expr,
    /// `N as f32` where nothing else gives `N` a type: the converted value is the constant
    /// (the conversion is Rust's, done on the host), of the type converted to.
    pub cast: Option<Scalar>,
    pub ty: Ty,
    /// The index in the table, which names the C macro.
    pub id: usize,
}

impl Types {
    /// The variable `e` reads, when it is a variable the checker found.
    pub fn var(&self, e: &Expr) -> Option<VarId> {
        self.var_uses.get(&e.id).copied()
    }

    /// The entry of the constant `path` read as it is (a pattern's constant).
    pub fn const_named(&self, path: &syn::Path) -> Option<&ConstInfo> {
        let key = crate::parse::path_text(path);
        self.consts
            .iter()
            .find(|c| c.cast.is_none() && crate::parse::expr_text(&c.expr) == key)
    }
}

impl ConstInfo {
    /// The C macro standing for the value (`ws_c0_N`).
    pub fn c_name(&self) -> String {
        ConstRef {
            id: self.id,
            path: crate::parse::expr_text(&self.expr),
            span: Span::call_site(),
        }
        .c_name()
    }
}

enum Obligation {
    /// The operand type of a binary operator must suit it.
    Binary(BinOp, Ty, ErrSpan),
    Neg(Ty, ErrSpan),
    Not(Ty, ErrSpan),
    Cast(Ty, Scalar, ErrSpan),
    /// An integer literal must fit its type (rustc's `overflowing_literals` is deny).
    IntLit(u128, Ty, bool, ErrSpan),
    /// Shift amounts and range bounds must be integers.
    Int(Ty, ErrSpan, &'static str),
}

struct LoopFrame {
    label: Option<String>,
    id: ExprId,
}

pub struct Typeck<'a> {
    cx: &'a Ctxt,
    tvs: Vec<Tv>,
    expr: Vec<Ty>,
    vars: Vec<Option<VarInfo>>,
    scopes: Vec<Vec<(String, VarId)>>,
    loops: Vec<LoopFrame>,
    ret: Option<Ty>,
    kind: FnKind,
    obligations: Vec<Obligation>,
    var_uses: std::collections::HashMap<ExprId, VarId>,
    calls: std::collections::HashMap<ExprId, Call>,
    call_literals: std::collections::HashSet<ExprId>,
    grid_sync: bool,
    loops_broken: std::collections::HashSet<ExprId>,
    /// Set when a `Neg` wraps an integer literal (so `-128i8` is in range).
    negated_lit: std::collections::HashSet<ExprId>,
    /// Device calls whose value is dropped (`f(x);`): their type may stay unknown.
    discarded_calls: Vec<Ty>,
    /// The `match`es, checked once their scrutinee's type is final.
    matches: Vec<PendingMatch>,
    consts: Vec<ConstInfo>,
    const_uses: std::collections::HashMap<ExprId, usize>,
    /// The function's const parameters, whose types are declared.
    const_params: Vec<(Ident, Scalar)>,
    /// The `#[gpu_struct]`s the function may name ([`Function::structs`]).
    structs: &'a [StructDef],
    /// The signatures of the device functions the function calls.
    callees: Vec<Callee>,
    /// Each local bound to a borrow (`let row = &mut x[a..b];`): the variable whose memory
    /// it borrows (`x`, or what `x` borrows), for the call arguments' aliasing check.
    borrow_roots: std::collections::HashMap<VarId, refs::Root>,
    /// The 1-D shared arrays the function declares (`ldmatrix` reads only those).
    shared_decls: std::collections::HashSet<VarId>,
}

pub fn check(cx: &Ctxt, f: &Function, var_count: usize) -> Option<Types> {
    let mut tc = Typeck {
        cx,
        tvs: Vec::new(),
        expr: vec![Ty::Unit; f.expr_count],
        vars: (0..var_count).map(|_| None).collect(),
        scopes: vec![Vec::new()],
        loops: Vec::new(),
        ret: f.ret.as_ref().map(|r| r.0.clone()),
        kind: f.kind,
        obligations: Vec::new(),
        var_uses: Default::default(),
        calls: Default::default(),
        call_literals: Default::default(),
        grid_sync: false,
        loops_broken: Default::default(),
        negated_lit: Default::default(),
        discarded_calls: Vec::new(),
        matches: Vec::new(),
        // The parser's constants are array lengths: `usize`, as rustc requires.
        consts: f
            .consts
            .iter()
            .enumerate()
            .map(|(id, expr)| ConstInfo {
                expr: expr.clone(),
                cast: None,
                ty: Ty::USIZE,
                id,
            })
            .collect(),
        const_uses: Default::default(),
        const_params: f.const_params.clone(),
        structs: &f.structs,
        callees: f.callees.clone(),
        borrow_roots: Default::default(),
        shared_decls: Default::default(),
    };
    for p in &f.params {
        tc.bind(&p.name, p.var, p.ty.ty(), p.mutable);
    }
    for (name, var) in &f.error_params {
        // Its type was rejected already: uses of it raise no second error.
        tc.bind(name, *var, Ty::Never, true);
    }
    let body_ty = tc.block(&f.body, f.ret.as_ref().map(|r| r.0.clone()).as_ref());
    match &f.ret {
        Some((r, span)) => {
            let span = *span;
            if tc.unify(&body_ty, r).is_err() {
                let found = tc.show(&body_ty);
                let at = f.body.tail.as_ref().map(|t| t.span).unwrap_or(span);
                cx.error_at(
                    at,
                    format!(
                        "mismatched types: the function returns `{r}`, its body gives `{found}`"
                    ),
                );
            }
        }
        None if f.ret_rejected => {}
        None => {
            if tc.unify(&body_ty, &Ty::Unit).is_err() {
                let at = f.body.tail.as_ref().map(|t| t.span).unwrap_or(f.body.span);
                cx.error_at(
                    at,
                    match f.kind {
                        FnKind::Kernel => format!(
                            "a kernel's body gives no value; found `{}` (add `;`?)",
                            tc.show(&body_ty)
                        ),
                        FnKind::Device => format!(
                            "this function declares no return type but its body gives `{}`: declare `-> T` or add `;`",
                            tc.show(&body_ty)
                        ),
                    },
                );
            }
        }
    }
    tc.finish()
}

impl<'a> Typeck<'a> {
    fn fresh(&mut self, kind: Kind, origin: Option<(ErrSpan, String)>) -> Ty {
        self.tvs.push(Tv::Unbound { kind, origin });
        Ty::Var(self.tvs.len() - 1)
    }

    fn root(&self, mut v: usize) -> usize {
        while let Tv::Bound(Ty::Var(next)) = &self.tvs[v] {
            v = *next;
        }
        v
    }

    /// Follows bound variables one level deep (enough to see the outer constructor).
    /// Whether `t` is known to be a `#[gpu_struct]` already.
    fn is_struct(&self, t: &Ty) -> bool {
        self.shallow(t).scalar().is_some_and(|s| s.is_struct())
    }

    /// `t`, or `Ty::Never` for a struct that an operator's obligation refuses, so the
    /// refused operation's value adds no mismatch where it is used.
    fn unless_struct(&self, t: Ty) -> Ty {
        if self.is_struct(&t) {
            Ty::Never
        } else {
            t
        }
    }

    fn shallow(&self, t: &Ty) -> Ty {
        match t {
            Ty::Var(v) => {
                let r = self.root(*v);
                match &self.tvs[r] {
                    Tv::Bound(t) => self.shallow(t),
                    Tv::Unbound { .. } => Ty::Var(r),
                }
            }
            t => t.clone(),
        }
    }

    fn resolve(&self, t: &Ty) -> Ty {
        match self.shallow(t) {
            Ty::Array(e, n) => Ty::Array(Box::new(self.resolve(&e)), n),
            Ty::Tuple(items) => Ty::Tuple(items.iter().map(|i| self.resolve(i)).collect()),
            t => t,
        }
    }

    /// How rustc would print the type while it is still being inferred.
    fn show(&self, t: &Ty) -> String {
        match self.resolve(t) {
            Ty::Var(v) => match &self.tvs[self.root(v)] {
                Tv::Unbound {
                    kind: Kind::Int, ..
                } => "{integer}".into(),
                Tv::Unbound {
                    kind: Kind::Float, ..
                } => "{float}".into(),
                _ => "_".into(),
            },
            t => t.to_string(),
        }
    }

    fn unify(&mut self, a: &Ty, b: &Ty) -> Result<(), ()> {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (&a, &b) {
            (Ty::Never, _) | (_, Ty::Never) => Ok(()),
            (Ty::Var(x), Ty::Var(y)) if x == y => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => {
                let (
                    Tv::Unbound {
                        kind: kx,
                        origin: ox,
                    },
                    Tv::Unbound {
                        kind: ky,
                        origin: oy,
                    },
                ) = (self.tvs[*x].clone(), self.tvs[*y].clone())
                else {
                    unreachable!()
                };
                let kind = match (kx, ky) {
                    (Kind::Any, k) | (k, Kind::Any) => k,
                    (k1, k2) if k1 == k2 => k1,
                    _ => return Err(()),
                };
                self.tvs[*x] = Tv::Bound(Ty::Var(*y));
                self.tvs[*y] = Tv::Unbound {
                    kind,
                    origin: ox.or(oy),
                };
                Ok(())
            }
            (Ty::Var(x), t) | (t, Ty::Var(x)) => {
                let Tv::Unbound { kind, .. } = self.tvs[*x] else {
                    unreachable!()
                };
                let fits = match kind {
                    Kind::Any => true,
                    Kind::Int => t.scalar().is_some_and(|s| s.is_int()),
                    Kind::Float => t.scalar().is_some_and(|s| s.is_float()),
                };
                if !fits {
                    return Err(());
                }
                self.tvs[*x] = Tv::Bound(t.clone());
                Ok(())
            }
            (Ty::Array(e1, n1), Ty::Array(e2, n2)) if n1 == n2 => self.unify(e1, e2),
            (Ty::Tuple(i1), Ty::Tuple(i2)) if i1.len() == i2.len() => {
                for (x, y) in i1.iter().zip(i2.iter()) {
                    self.unify(x, y)?;
                }
                Ok(())
            }
            (x, y) if x == y => Ok(()),
            _ => Err(()),
        }
    }

    /// Unifies or reports "mismatched types" at `span`.
    fn expect(&mut self, found: &Ty, expected: &Ty, span: (Span, Span)) {
        if self.unify(found, expected).is_err() {
            let mut msg = format!(
                "mismatched types: expected `{}`, found `{}`",
                self.show(expected),
                self.show(found)
            );
            // An fp8 type has no literals (nor has Rust): say how to write one.
            if let (Some(s), Ty::Var(_)) = (self.resolve(expected).scalar(), self.resolve(found)) {
                if s.is_storage() {
                    msg.push_str(&format!(
                        "; the fp8 types have no literals: write `{s}::from_f32(1.0)`",
                        s = s.rust_name()
                    ));
                }
            }
            self.cx.error_at(span, msg);
        }
    }

    fn bind(&mut self, name: &Ident, var: VarId, ty: Ty, mutable: bool) {
        self.vars[var] = Some(VarInfo {
            name: name.clone(),
            ty,
            mutable,
        });
        self.scopes
            .last_mut()
            .unwrap()
            .push((name.to_string(), var));
    }

    fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    fn block(&mut self, b: &Block, expected: Option<&Ty>) -> Ty {
        self.scopes.push(Vec::new());
        let mut diverges = false;
        for s in &b.stmts {
            match s {
                Stmt::Let(l) => self.let_stmt(l),
                Stmt::Expr(e, semi) => {
                    let t = self.infer(e, None);
                    if matches!(e.kind, ExprKind::Call(..)) {
                        self.discarded_calls.push(t.clone());
                    }
                    if self.shallow(&t) == Ty::Never {
                        diverges = true;
                    } else if *semi || !is_block_like(e) {
                        // `x + 1;` is fine in Rust; nothing to check.
                    } else if self.unify(&t, &Ty::Unit).is_err() {
                        let msg = format!("this block-like expression gives `{}` but is used as a statement: add `;` or use the value", self.show(&t));
                        self.cx.error_at(e.range(), msg);
                    }
                }
            }
        }
        let t = match &b.tail {
            Some(tail) => self.infer(tail, expected),
            None if diverges || b.tail_refused => Ty::Never,
            None => Ty::Unit,
        };
        self.scopes.pop();
        t
    }

    fn let_stmt(&mut self, l: &Let) {
        let ann = l.ty.as_ref().map(|(t, _)| t.clone());
        let ty = match (&l.init, &ann) {
            (Some(init), _) => {
                let t = self.infer(init, ann.as_ref());
                if let Some(a) = &ann {
                    self.expect(&t, a, init.range());
                    a.clone()
                } else {
                    t
                }
            }
            (None, Some(a)) => a.clone(),
            (None, None) => {
                let name = match &l.pat {
                    Pat::Bind { name, .. } => name.to_string(),
                    _ => "_".into(),
                };
                self.fresh(
                    Kind::Any,
                    Some((
                        l.span.into(),
                        format!("type annotations needed: write `let {name}: T;`"),
                    )),
                )
            }
        };
        // A shared declaration, or a borrow of memory (`let row = &mut x[a..b];`).
        let shared_init = matches!(
            l.init.as_ref().map(|i| &i.kind),
            Some(
                ExprKind::SharedArray(_)
                    | ExprKind::DynamicShared(_)
                    | ExprKind::Ref(..)
                    | ExprKind::SubSlice(_)
            )
        );
        match self.shallow(&ty) {
            Ty::Slice(..) | Ty::Atomics(_) | Ty::Rows(..) if shared_init => {}
            Ty::CasResult(_) => {
                self.cx.error_at(
                    l.span,
                    "`compare_exchange` gives a `Result`, which kernels do not bind: call `.is_ok()`, `.is_err()` or `.unwrap_or_else(|v| v)` on it directly",
                );
                return;
            }
            Ty::Slice(..) | Ty::Atomics(_) | Ty::Rows(..) | Ty::Ordering => {
                self.cx.error_at(
                    l.span,
                    "slices are bound to locals as borrows: write `let row = &x[a..b];` (or `&mut`), or use the parameter by name",
                );
                return;
            }
            Ty::Texture2D(_) => {
                self.cx.error_at(
                    l.span,
                    "textures cannot be bound to locals in kernels: use the parameter by name",
                );
                return;
            }
            Ty::Unit => {
                self.cx
                    .error_at(l.span, "this `let` binds `()`: kernels bind only values");
                return;
            }
            _ => {}
        }
        self.bind_pat(&l.pat, ty);
        if let (Pat::Bind { var, .. }, Some(init)) = (&l.pat, &l.init) {
            if shared_init {
                if let Some(root) = self.borrow_root(init) {
                    self.borrow_roots.insert(*var, root);
                }
            }
            if let ExprKind::SharedArray(SharedDecl {
                atomic: false,
                mbarrier: false,
                width: None,
                ..
            })
            | ExprKind::DynamicShared(_) = &init.kind
            {
                self.shared_decls.insert(*var);
            }
        }
    }

    fn bind_pat(&mut self, pat: &Pat, ty: Ty) {
        match pat {
            Pat::Bind { name, mutable, var } => self.bind(name, *var, ty, *mutable),
            Pat::Wild => {}
            Pat::Tuple(items, span) => match self.shallow(&ty) {
                Ty::Tuple(tys) if tys.len() == items.len() => {
                    for (p, t) in items.iter().zip(tys) {
                        self.bind_pat(p, t);
                    }
                }
                Ty::Never => {
                    for p in items {
                        self.bind_pat(p, Ty::Never);
                    }
                }
                other => {
                    let msg = format!(
                        "this tuple pattern does not match a value of type `{}`",
                        self.show(&other)
                    );
                    self.cx.error_at(*span, msg);
                }
            },
        }
    }

    fn record(&mut self, e: &Expr, t: Ty) -> Ty {
        self.expr[e.id] = t.clone();
        t
    }

    fn infer(&mut self, e: &Expr, expected: Option<&Ty>) -> Ty {
        let t = self.infer_kind(e, expected);
        self.record(e, t)
    }

    fn infer_kind(&mut self, e: &Expr, expected: Option<&Ty>) -> Ty {
        match &e.kind {
            ExprKind::Lit(Lit::Int(v, suffix)) => {
                let t = match suffix {
                    Some(s) => Ty::Scalar(*s),
                    None => match expected.map(|t| self.shallow(t)) {
                        Some(Ty::Scalar(s)) if s.is_int() => Ty::Scalar(s),
                        _ => self.fresh(Kind::Int, None),
                    },
                };
                let negated = self.negated_lit.contains(&e.id);
                self.obligations
                    .push(Obligation::IntLit(*v, t.clone(), negated, e.range().into()));
                t
            }
            ExprKind::Lit(Lit::Float { suffix, .. }) => match suffix {
                Some(s) if s.is_float() => Ty::Scalar(*s),
                Some(s) => {
                    self.cx.error_at(
                        e.range(),
                        format!("a float literal cannot have the suffix `{}`", s.rust_name()),
                    );
                    Ty::Scalar(*s)
                }
                None => match expected.map(|t| self.shallow(t)) {
                    Some(Ty::Scalar(s)) if s.is_float() => Ty::Scalar(s),
                    _ => self.fresh(Kind::Float, None),
                },
            },
            ExprKind::Lit(Lit::Bool(_)) => Ty::BOOL,
            ExprKind::Const(c) => Ty::Scalar(c.ty),
            ExprKind::ConstItem(_) | ExprKind::Var(..) if self.const_path(e).is_some() => {
                let path = self
                    .const_path(e)
                    .unwrap_or_else(|| syn::Path::from(Ident::new("_", e.span)));
                self.const_use(e, &path, None)
            }
            // Always a constant (above).
            ExprKind::ConstItem(_) => Ty::Never,
            ExprKind::Var(name) => match self.lookup(&name.to_string()) {
                Some(v) => {
                    self.var_uses.insert(e.id, v);
                    self.vars[v]
                        .as_ref()
                        .map(|i| i.ty.clone())
                        .unwrap_or(Ty::Never)
                }
                None => {
                    self.cx.error_at(
                        e.range(),
                        format!("cannot find `{name}` in this kernel: kernels see their parameters and locals; pass other values as parameters"),
                    );
                    Ty::Never
                }
            },
            ExprKind::Binary(op, l, r) => self.binary(*op, l, r, expected, e.range().into()),
            ExprKind::Ref(mutable, inner) => self.reference(e, *mutable, inner),
            ExprKind::SubSlice(s) => self.sub_slice(e, s),
            ExprKind::Unary(UnOp::Neg, inner) => {
                if matches!(inner.kind, ExprKind::Lit(Lit::Int(..))) {
                    self.negated_lit.insert(inner.id);
                }
                let t = self.infer(inner, expected);
                self.obligations
                    .push(Obligation::Neg(t.clone(), e.range().into()));
                self.unless_struct(t)
            }
            ExprKind::Unary(UnOp::Not, inner) => {
                let t = self.infer(inner, expected);
                self.obligations
                    .push(Obligation::Not(t.clone(), e.range().into()));
                self.unless_struct(t)
            }
            ExprKind::Cast(inner, to) => {
                if let Some(path) = self.const_path(inner) {
                    if !self.const_type_known(&path) {
                        // `N as f32` with `N`'s type unknown: the converted value is the
                        // constant (Rust converts it on the host).
                        return self.const_use(e, &path, Some(*to));
                    }
                }
                // rustc lets a bare literal take the type it is cast to (`1 as u64`).
                let hint = match &inner.kind {
                    ExprKind::Lit(Lit::Int(..)) if to.is_int() => Some(Ty::Scalar(*to)),
                    ExprKind::Lit(Lit::Float { .. }) if to.is_float() => Some(Ty::Scalar(*to)),
                    _ => None,
                };
                let t = self.infer(inner, hint.as_ref());
                self.obligations
                    .push(Obligation::Cast(t, *to, e.range().into()));
                Ty::Scalar(*to)
            }
            ExprKind::Index(base, idx) => {
                let bt = self.infer(base, None);
                let it = self.infer(idx, Some(&Ty::USIZE));
                self.expect(&it, &Ty::USIZE, idx.range());
                match self.shallow(&bt) {
                    Ty::Slice(elem, _) => Ty::Scalar(elem),
                    Ty::Rows(elem, _) => Ty::Slice(elem, true),
                    Ty::Atomics(elem) => {
                        let msg = format!("an element of `{}` memory is read and written with atomic methods: `a[i].load(Ordering::Relaxed)`, `a[i].store(v, Ordering::Relaxed)`, `a[i].fetch_add(v, Ordering::Relaxed)`, ...", elem.atomic_name().unwrap_or("atomic"));
                        self.cx.error_at(e.range(), msg);
                        Ty::Never
                    }
                    Ty::Array(elem, n) => {
                        self.constant_index(base, idx, &n);
                        *elem
                    }
                    Ty::Never => Ty::Never,
                    Ty::Texture2D(_) => {
                        self.cx.error_at(e.range(), "a texture is read with `tex.fetch(x, y)`, not by index, and kernels never write it (compute new texels into a `&mut [T]`)");
                        Ty::Never
                    }
                    Ty::Mbarriers => {
                        self.cx.error_at(e.range(), "an mbarrier is used through its methods (`bars[i].wait(parity)`, `bars[i].arrive()`, ...) or passed to `tma_load_2d` as `&bars[i]`");
                        Ty::Never
                    }
                    other => {
                        let msg = format!("cannot index a value of type `{}`: only slices and local arrays can be indexed", self.show(&other));
                        self.cx.error_at(base.range(), msg);
                        Ty::Never
                    }
                }
            }
            ExprKind::Field(base, member) => {
                let bt = self.infer(base, None);
                match (self.shallow(&bt), member) {
                    (Ty::Dim3, Member::Named(n)) if n == "x" || n == "y" || n == "z" => Ty::U32,
                    (Ty::Scalar(s), Member::Named(n)) if s.vector_field(n).is_some() => {
                        Ty::Scalar(s.vector_field(n).unwrap_or(s))
                    }
                    (Ty::Scalar(s), m) if s.is_vector() => {
                        let m = match m {
                            Member::Named(n) => n.clone(),
                            Member::Index(i) => i.to_string(),
                        };
                        let fields = if s.vector().is_some_and(|(_, n)| n == 4) {
                            "`x`, `y`, `z` and `w`"
                        } else {
                            "`x` and `y`"
                        };
                        let msg = format!(
                            "no field `{m}` on type `{}`: its lanes are {fields}",
                            s.rust_name()
                        );
                        self.cx.error_at(e.range(), msg);
                        Ty::Never
                    }
                    (Ty::Scalar(Scalar::Struct(id)), m) => self.struct_field(e, id, m),
                    (Ty::Fragment(f), m) => self.fragment_field(e, f, m),
                    (Ty::Tuple(items), Member::Index(i)) if (*i as usize) < items.len() => {
                        items[*i as usize].clone()
                    }
                    (Ty::Never, _) => Ty::Never,
                    (Ty::Var(_), Member::Named(n)) => {
                        let msg = format!("type annotations needed: the type of this value must be known to read its field `{n}` (`let v: f32x4 = ..;`)");
                        self.cx.error_at(base.range(), msg);
                        Ty::Never
                    }
                    (other, m) => {
                        let m = match m {
                            Member::Named(n) => n.clone(),
                            Member::Index(i) => i.to_string(),
                        };
                        let msg = format!("no field `{m}` on type `{}`", self.show(&other));
                        self.cx.error_at(e.range(), msg);
                        Ty::Never
                    }
                }
            }
            ExprKind::Method(recv, name, args) => self.method(e, recv, name, args),
            ExprKind::Intrinsic(i, args) => self.intrinsic(*i, args),
            ExprKind::SharedArray(d) => d.ty(),
            ExprKind::DynamicShared(s) => Ty::Slice(*s, true),
            ExprKind::Fragment(f) => Ty::Fragment(*f),
            ExprKind::Ordering(..) => Ty::Ordering,
            ExprKind::StructLit(l) => self.struct_lit(e, l, expected),
            ExprKind::TiledPartition(n, group) => {
                let gt = self.infer(group, None);
                match self.shallow(&gt) {
                    Ty::Group(GroupKind::Block) => {}
                    Ty::Group(GroupKind::Tile(m)) if *n <= m => {}
                    Ty::Never => {}
                    other => {
                        let msg = format!("`tiled_partition::<{n}>` partitions a thread block (`this_thread_block()`) or a larger tile, not `{}`", self.show(&other));
                        self.cx.error_at(group.range(), msg);
                    }
                }
                Ty::Group(GroupKind::Tile(*n))
            }
            ExprKind::Print(p) => {
                self.print_args(p);
                Ty::Unit
            }
            ExprKind::Call(path, _, args) => {
                if let Some(t) = self.device_call(e, path, args, expected) {
                    return t;
                }
                for a in args {
                    // A bare integer literal takes the parameter's type, which only rustc
                    // sees: the simulator writes it unsuffixed, C converts a 64-bit literal.
                    if let Some(v) = bare_int_literal(a) {
                        let t = if v > i64::MAX as u128 {
                            Scalar::U64
                        } else {
                            Scalar::I64
                        };
                        self.record(a, Ty::Scalar(t));
                        if let ExprKind::Unary(UnOp::Neg, inner) = &a.kind {
                            self.record(inner, Ty::Scalar(t));
                        }
                        self.call_literals.insert(a.id);
                        continue;
                    }
                    let t = self.infer(a, None);
                    self.texture_argument(a, &t);
                }
                let name = quote::ToTokens::to_token_stream(path)
                    .to_string()
                    .replace(' ', "");
                let t = self.fresh(
                    Kind::Any,
                    Some((e.range().into(), format!("cannot infer the type of the result of `{name}(..)`: the macro cannot see other functions' signatures; bind it with an annotation: `let v: T = {name}(..);`"))),
                );
                if let Some(exp) = expected {
                    let _ = self.unify(&t, exp);
                }
                t
            }
            ExprKind::Assign(place, value) => {
                let pt = self.place(place);
                let vt = self.infer(value, Some(&pt));
                self.expect(&vt, &pt, value.range());
                Ty::Unit
            }
            ExprKind::AssignOp(op, place, value) => {
                let pt = self.place(place);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let vt = self.shift_amount(value);
                    self.obligations.push(Obligation::Int(
                        vt,
                        value.range().into(),
                        "a shift amount",
                    ));
                    self.obligations
                        .push(Obligation::Binary(*op, pt, e.range().into()));
                } else {
                    let vt = self.infer(value, Some(&pt));
                    self.expect(&vt, &pt, value.range());
                    self.obligations
                        .push(Obligation::Binary(*op, pt, e.range().into()));
                }
                Ty::Unit
            }
            ExprKind::If(cond, then, els) => {
                let ct = self.infer(cond, Some(&Ty::BOOL));
                self.expect(&ct, &Ty::BOOL, cond.range());
                let tt = self.block(then, expected);
                match els {
                    Some(els) => {
                        let et = self.infer(els, expected.or(Some(&tt)));
                        if self.shallow(&tt) == Ty::Never {
                            return et;
                        }
                        if self.unify(&et, &tt).is_err() {
                            let msg = format!(
                                "`if` and `else` have incompatible types: `{}` and `{}`",
                                self.show(&tt),
                                self.show(&et)
                            );
                            self.cx.error_at(els.range(), msg);
                        }
                        tt
                    }
                    None => {
                        if self.unify(&tt, &Ty::Unit).is_err() {
                            let msg = format!(
                                "`if` without `else` gives no value, but this block gives `{}`",
                                self.show(&tt)
                            );
                            self.cx.error_at(then.span, msg);
                        }
                        Ty::Unit
                    }
                }
            }
            ExprKind::Match(scrutinee, arms) => self.match_expr(scrutinee, arms, expected),
            ExprKind::While(label, cond, body) => {
                let ct = self.infer(cond, Some(&Ty::BOOL));
                self.expect(&ct, &Ty::BOOL, cond.range());
                self.loop_body(label, e.id, body);
                Ty::Unit
            }
            ExprKind::Loop(label, body) => {
                self.loop_body(label, e.id, body);
                if self.loops_broken.contains(&e.id) {
                    Ty::Unit
                } else {
                    Ty::Never
                }
            }
            ExprKind::For(label, pat, range, body) => {
                let st = self.infer(&range.start, None);
                let et = self.infer(&range.end, Some(&st));
                self.expect(&et, &st, range.end.range());
                self.obligations.push(Obligation::Int(
                    st.clone(),
                    range.start.range().into(),
                    "a `for` range",
                ));
                if let Some(step) = &range.step {
                    let t = self.infer(step, Some(&Ty::USIZE));
                    self.expect(&t, &Ty::USIZE, step.range());
                }
                // The hidden ends are in no scope: no kernel can name them.
                for (v, name) in range.ends.iter().zip(["range_start", "range_end"]) {
                    self.vars[*v] = Some(VarInfo {
                        name: Ident::new(name, Span::call_site()),
                        ty: st.clone(),
                        mutable: false,
                    });
                }
                self.scopes.push(Vec::new());
                self.bind_pat(pat, st);
                self.loop_body(label, e.id, body);
                self.scopes.pop();
                Ty::Unit
            }
            ExprKind::Break(label) | ExprKind::Continue(label) => {
                let is_break = matches!(e.kind, ExprKind::Break(_));
                let target = match label {
                    None => self.loops.last().map(|l| l.id),
                    Some(l) => {
                        let name = l.to_string();
                        self.loops
                            .iter()
                            .rev()
                            .find(|f| f.label.as_deref() == Some(&name))
                            .map(|f| f.id)
                    }
                };
                match target {
                    Some(id) if is_break => {
                        self.loops_broken.insert(id);
                    }
                    Some(_) => {}
                    None if label.is_some() => {
                        let l = label.as_ref().map(|l| l.to_string()).unwrap_or_default();
                        self.cx.error_at(
                            e.range(),
                            format!("use of undeclared label `'{l}`: a label names an enclosing loop (`'{l}: for ...`)"),
                        );
                    }
                    None => {
                        let what = if is_break { "break" } else { "continue" };
                        self.cx
                            .error_at(e.range(), format!("`{what}` outside of a loop"));
                    }
                }
                Ty::Never
            }
            ExprKind::Return(value) => {
                match (value, self.ret.clone(), self.kind) {
                    (None, None, _) => {}
                    (Some(v), Some(r), _) => {
                        let t = self.infer(v, Some(&r));
                        self.expect(&t, &r, v.range());
                    }
                    (Some(v), None, FnKind::Kernel) => {
                        self.infer(v, None);
                        self.cx.error_at(
                            v.range(),
                            "a kernel returns nothing: write results into a `&mut [T]` parameter",
                        );
                    }
                    (Some(v), None, FnKind::Device) => {
                        self.infer(v, None);
                        self.cx.error_at(
                            v.range(),
                            "this function returns nothing: declare a return type `-> T`",
                        );
                    }
                    (None, Some(r), _) => {
                        self.cx.error_at(
                            e.range(),
                            format!("this function returns `{r}`: write `return value;`"),
                        );
                    }
                }
                Ty::Never
            }
            ExprKind::Block(b) => self.block(b, expected),
            ExprKind::Array(items) => {
                let elem_hint = match expected.map(|t| self.shallow(t)) {
                    Some(Ty::Array(e, _)) => Some(*e),
                    _ => None,
                };
                let first = self.infer(&items[0], elem_hint.as_ref());
                for it in &items[1..] {
                    let t = self.infer(it, Some(&first));
                    self.expect(&t, &first, it.range());
                }
                Ty::Array(Box::new(first), Len::Lit(items.len() as u64))
            }
            ExprKind::Tuple(items) => {
                let hints: Vec<Option<Ty>> = match expected.map(|t| self.shallow(t)) {
                    Some(Ty::Tuple(ts)) if ts.len() == items.len() => {
                        ts.into_iter().map(Some).collect()
                    }
                    _ => vec![None; items.len()],
                };
                let tys = items
                    .iter()
                    .zip(hints)
                    .map(|(it, h)| {
                        let t = self.infer(it, h.as_ref());
                        match self.shallow(&t) {
                            Ty::Scalar(_) | Ty::Tuple(_) | Ty::Dim3 | Ty::Var(_) | Ty::Never => {}
                            other => {
                                let msg = format!(
                                    "a tuple in a kernel holds scalars and tuples, not `{}`",
                                    self.show(&other)
                                );
                                self.cx.error_at(it.range(), msg);
                            }
                        }
                        t
                    })
                    .collect();
                Ty::Tuple(tys)
            }
            ExprKind::Repeat(value, n) => {
                let elem_hint = match expected.map(|t| self.shallow(t)) {
                    Some(Ty::Array(e, _)) => Some(*e),
                    _ => None,
                };
                let t = self.infer(value, elem_hint.as_ref());
                Ty::Array(Box::new(t), n.clone())
            }
        }
    }

    fn loop_body(&mut self, label: &Option<Ident>, id: ExprId, body: &Block) {
        self.loops.push(LoopFrame {
            label: label.as_ref().map(|l| l.to_string()),
            id,
        });
        let t = self.block(body, None);
        if self.unify(&t, &Ty::Unit).is_err() {
            let msg = format!(
                "a loop body gives no value; found `{}` (add `;`?)",
                self.show(&t)
            );
            self.cx.error_at(body.span, msg);
        }
        self.loops.pop();
    }

    /// The left side of an assignment: a local, or an element of a `&mut [T]` or a local array.
    fn place(&mut self, place: &Expr) -> Ty {
        match &place.kind {
            ExprKind::Var(..) => self.infer(place, None),
            ExprKind::Index(base, _) => {
                let t = self.infer(place, None);
                if let Some(t) = self.struct_place(place, &t) {
                    return t;
                }
                let mut root = &**base;
                while let ExprKind::Index(b, _) = &root.kind {
                    root = b;
                }
                if self.fragment_elements(root) {
                    return t;
                }
                if let ExprKind::Var(name) = &root.kind {
                    if let Ty::Slice(_, false) = self.shallow(&self.expr[root.id].clone()) {
                        self.cx.error_at(
                            place.range(),
                            format!("cannot assign through `{name}`, a `&[T]` parameter: declare it `&mut [T]` to write to it"),
                        );
                    }
                } else {
                    self.cx.error_at(
                        place.range(),
                        "only elements of slices and local arrays can be assigned",
                    );
                }
                t
            }
            // `v.x = 1.0` on a local vector.
            ExprKind::Field(base, _) => {
                let t = self.infer(place, None);
                if let Some(t) = self.struct_place(place, &t) {
                    return t;
                }
                let bt = self.shallow(&self.expr[base.id].clone());
                // `pair.0 = ..`, `(t.1).0 += ..` on a local tuple.
                if matches!(bt, Ty::Tuple(_))
                    && matches!(base.kind, ExprKind::Var(..) | ExprKind::Field(..))
                {
                    return t;
                }
                match (&base.kind, bt.scalar().filter(|s| s.is_vector())) {
                    (ExprKind::Var(..), Some(_)) => t,
                    (_, Some(v)) => {
                        self.cx.error_at(
                            place.range(),
                            format!("a lane of an element is not assigned on its own: read the element into a local (`let mut v = a[i];`), set `v.x`, and store it back (`a[i] = v`), or store a whole `{}::new(..)`", v.rust_name()),
                        );
                        Ty::Never
                    }
                    _ if matches!(bt, Ty::Never | Ty::Var(_)) => Ty::Never,
                    _ => {
                        self.cx.error_at(place.range(), "invalid left-hand side of an assignment: assign to a local, a lane of a local vector (`v.x`), `slice[i]` or `array[i]`");
                        Ty::Never
                    }
                }
            }
            _ => {
                self.infer(place, None);
                self.cx.error_at(place.range(), "invalid left-hand side of an assignment: assign to a local, `slice[i]` or `array[i]`");
                Ty::Never
            }
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        l: &Expr,
        r: &Expr,
        expected: Option<&Ty>,
        span: ErrSpan,
    ) -> Ty {
        match op {
            BinOp::And | BinOp::Or => {
                let lt = self.infer(l, Some(&Ty::BOOL));
                self.expect(&lt, &Ty::BOOL, l.range());
                let rt = self.infer(r, Some(&Ty::BOOL));
                self.expect(&rt, &Ty::BOOL, r.range());
                Ty::BOOL
            }
            BinOp::Shl | BinOp::Shr => {
                let lt = self.infer(l, expected);
                let rt = self.shift_amount(r);
                self.obligations
                    .push(Obligation::Int(rt, r.range().into(), "a shift amount"));
                self.obligations
                    .push(Obligation::Binary(op, lt.clone(), span));
                lt
            }
            _ if op.is_comparison() => {
                let lt = self.infer(l, None);
                let rt = self.infer(r, Some(&lt));
                if self.unify(&lt, &rt).is_err() {
                    let msg = format!(
                        "mismatched types: cannot compare `{}` with `{}` (cast one side with `as`)",
                        self.show(&lt),
                        self.show(&rt)
                    );
                    self.cx.error_at(span, msg);
                }
                self.obligations.push(Obligation::Binary(op, lt, span));
                Ty::BOOL
            }
            _ => {
                let lt = self.infer(l, expected);
                if self.is_struct(&lt) {
                    // The obligation refuses the struct operand; the result is no value
                    // that could mismatch where it is used.
                    self.infer(r, None);
                    self.obligations.push(Obligation::Binary(op, lt, span));
                    return Ty::Never;
                }
                let rt = self.infer(r, Some(&lt));
                if self.unify(&lt, &rt).is_err() {
                    let vector = [&lt, &rt]
                        .iter()
                        .find_map(|t| self.shallow(t).scalar().filter(|s| s.is_vector()));
                    let half = [&lt, &rt]
                        .iter()
                        .find_map(|t| self.shallow(t).scalar().filter(|s| s.is_half_float()));
                    let hint = match (vector, half) {
                        (Some(v), _) => format!(
                            "a vector and a scalar do not mix: write `{0}::splat(s)` (`s` in every lane), or compute on the lanes (`v.x {1} s`)",
                            v.rust_name(),
                            op.rust_token()
                        ),
                        // `f16`/`bf16` have neither literals nor `as`: say what converts.
                        (None, Some(h)) => format!(
                            "both sides of an arithmetic operator have one type in Rust, and `{0}` has no literals or `as`: write `{0}::from_f32(2.0)` for a constant, `{0}::from_f32(x)` or `h.to_f32()` to convert",
                            h.rust_name()
                        ),
                        (None, None) => "both sides of an arithmetic operator have one type in Rust (cast one side with `as`)".into(),
                    };
                    let msg = format!(
                        "mismatched types: `{}` {} `{}`: {hint}",
                        self.show(&lt),
                        op.rust_token(),
                        self.show(&rt)
                    );
                    self.cx.error_at(span, msg);
                    return Ty::Never; // reported: no second error where the value goes
                }
                self.obligations
                    .push(Obligation::Binary(op, lt.clone(), span));
                lt
            }
        }
    }

    fn method(&mut self, e: &Expr, recv: &Expr, name: &Ident, args: &[Expr]) -> Ty {
        if let ExprKind::Index(base, idx) = &recv.kind {
            let bt = self.infer(base, None);
            if let Ty::Atomics(s) = self.shallow(&bt) {
                let it = self.infer(idx, Some(&Ty::USIZE));
                self.expect(&it, &Ty::USIZE, idx.range());
                self.record(recv, Ty::Never);
                return self.atomic_method(e, s, name, args);
            }
            if let Ty::Mbarriers = self.shallow(&bt) {
                let it = self.infer(idx, Some(&Ty::USIZE));
                self.expect(&it, &Ty::USIZE, idx.range());
                self.record(recv, Ty::Never);
                return self.mbarrier_method(e, name, args);
            }
        }
        let rt = self.infer(recv, None);
        let recv_ty = self.shallow(&rt);
        if let Ty::Group(kind) = recv_ty {
            return self.group_method(e, kind, name, args);
        }
        if let Ty::Texture2D(elem) = recv_ty {
            return self.texture_method(e, elem, name, args);
        }
        if let Ty::Fragment(f) = recv_ty {
            return self.fragment_method(e, f, name, args);
        }
        if let Ty::CasResult(s) = recv_ty {
            return match CasUse::from_name(&name.to_string()) {
                Some(u) if args.is_empty() => {
                    self.calls.insert(e.id, Call::CasUse(u));
                    if u == CasUse::Old {
                        Ty::Scalar(s)
                    } else {
                        Ty::BOOL
                    }
                }
                _ => {
                    for a in args {
                        self.infer(a, None);
                    }
                    self.cx.error_at(
                        name.span(),
                        "on `compare_exchange`'s result kernels call `.is_ok()`, `.is_err()` or `.unwrap_or_else(|v| v)` (the old value)",
                    );
                    Ty::Never
                }
            };
        }
        let method_name = name.to_string();
        if !Method::exists(&method_name) {
            for a in args {
                self.infer(a, None);
            }
            if self.shallow(&rt) == Ty::Never {
                return Ty::Never; // the receiver's error was reported
            }
            if let (Some(_), Ty::Scalar(s)) = (AtomicOp::from_name(&method_name), self.shallow(&rt))
            {
                let atomic = s.atomic_name().unwrap_or("AtomicU32");
                self.cx.error_at(
                    name.span(),
                    format!("`{name}` is an atomic method, and this is a plain `{}`: declare the parameter `&[{atomic}]` (or the shared array `SharedArray::<{atomic}, N>`)", s.rust_name()),
                );
                return Ty::Never;
            }
            let on = self.show(&rt);
            let msg = texture::fetch_on_non_texture(&method_name, &on)
                .unwrap_or_else(|| unknown_method(&method_name, &on, self.shallow(&rt).scalar()));
            self.cx.error_at(name.span(), msg);
            return Ty::Never;
        }
        let recv_ty = self.shallow(&rt);
        let s = match &recv_ty {
            Ty::Slice(..) | Ty::Atomics(_) | Ty::Rows(..) => None,
            Ty::Scalar(s) => Some(*s),
            Ty::Var(_) => {
                for a in args {
                    self.infer(a, None);
                }
                self.cx.error_at(
                    name.span(),
                    format!("can't call method `{name}` on ambiguous numeric type `{}`: give the value a type (`2.0f32`, `let x: u32 = ..`)", self.show(&rt)),
                );
                return Ty::Never;
            }
            Ty::Never => return Ty::Never,
            other => {
                self.cx
                    .error_at(name.span(), format!("no method `{name}` on type `{other}`"));
                return Ty::Never;
            }
        };
        let m = match Method::lookup(&method_name, s) {
            Ok(m) => m,
            Err(which) => {
                for a in args {
                    self.infer(a, None);
                }
                let on = s.map(|s| s.rust_name()).unwrap_or("a slice");
                let which = which.unwrap_or_default();
                let near = match methods::nearest(&method_name, s) {
                    Some(n) => format!("; the nearest method `{on}` has is `{n}`"),
                    None => String::new(),
                };
                self.cx.error_at(
                    name.span(),
                    format!("no method `{name}` on `{on}`: it exists for {which}{near}"),
                );
                return Ty::Never;
            }
        };
        let Some(s) = s else {
            // `len()`, `is_empty()` on a slice.
            self.calls.insert(e.id, Call::Method(m));
            return Ty::Scalar(m.result.of(Scalar::Usize));
        };
        let want = m.args.want(s);
        if want.len() != args.len() {
            self.cx.error_at(
                e.range(),
                format!(
                    "`{name}` takes {} argument(s), {} given: `{}`",
                    want.len(),
                    args.len(),
                    m.signature()
                ),
            );
            return Ty::Never;
        }
        for (a, w) in args.iter().zip(want) {
            let w = Ty::Scalar(w);
            let t = self.infer(a, Some(&w));
            self.expect(&t, &w, a.range());
        }
        self.calls.insert(e.id, Call::Method(m));
        m.result.ty(s)
    }

    /// The type a literal variable defaults to (i32 for integers, f64 for floats).
    fn default_of(&self, t: &Ty) -> Ty {
        match t {
            Ty::Var(v) => match &self.tvs[self.root(*v)] {
                Tv::Unbound {
                    kind: Kind::Float, ..
                } => Ty::Scalar(Scalar::F64),
                Tv::Unbound {
                    kind: Kind::Int, ..
                } => Ty::Scalar(Scalar::I32),
                _ => t.clone(),
            },
            t => t.clone(),
        }
    }

    /// A method of a cooperative group.
    fn group_method(&mut self, e: &Expr, kind: GroupKind, name: &Ident, args: &[Expr]) -> Ty {
        let group = Ty::Group(kind);
        let Some(m) = GroupMethod::lookup(kind, &name.to_string()) else {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                name.span(),
                format!(
                    "no method `{name}` on `{group}`: it has {}",
                    GroupMethod::names(kind)
                ),
            );
            return Ty::Never;
        };
        if kind == GroupKind::Grid && self.kind == FnKind::Device {
            self.cx.error_at(
                e.range(),
                "`this_grid().sync()` must be in the kernel's own body (the kernel is then launched with `launch_cooperative`), not in a device function",
            );
        }
        if kind == GroupKind::Grid {
            self.grid_sync = true;
        }
        let (want, result): (Vec<Option<Ty>>, Option<Ty>) = match m.sig() {
            Sig::Plain(t) => (vec![], Some(t)),
            Sig::Shuffle => (vec![None, Some(Ty::U32)], None),
            Sig::Vote(t) => (vec![Some(Ty::BOOL)], Some(t)),
        };
        if want.len() != args.len() {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                e.range(),
                format!(
                    "`{name}` on `{group}` takes {} argument(s), {} given",
                    want.len(),
                    args.len()
                ),
            );
            return Ty::Never;
        }
        let mut value = None;
        for (a, w) in args.iter().zip(&want) {
            match w {
                Some(w) => {
                    let t = self.infer(a, Some(w));
                    self.expect(&t, w, a.range());
                }
                None => {
                    let t = self.infer(a, None);
                    let vector = self.shallow(&t).scalar().is_some_and(|s| s.is_vector());
                    if vector || !matches!(self.shallow(&t), Ty::Scalar(_) | Ty::Var(_) | Ty::Never)
                    {
                        let msg = format!(
                            "`{name}` exchanges scalars between lanes, not `{}`",
                            self.show(&t)
                        );
                        self.cx.error_at(a.range(), msg);
                    }
                    value = Some(t);
                }
            }
        }
        self.calls.insert(e.id, Call::Group(kind, m));
        result.or(value).unwrap_or(Ty::Never)
    }

    /// `gpu_print!` arguments: scalars, each suited to its spec.
    fn print_args(&mut self, p: &Print) {
        let tys: Vec<Ty> = p.args.iter().map(|a| self.infer(a, None)).collect();
        for piece in &p.pieces {
            let FmtPiece::Arg { index, spec } = piece else {
                continue;
            };
            let a = &p.args[*index];
            let t = self.shallow(&tys[*index]);
            let t = match t {
                // An unsuffixed literal: i32 / f64, as rustc's format! would take it.
                Ty::Var(_) => {
                    let d = self.default_of(&t);
                    let _ = self.unify(&t, &d);
                    d
                }
                t => t,
            };
            let s = match t {
                Ty::Scalar(s) if s.is_struct() => {
                    self.refuse_struct(s, a.range().into(), "`gpu_print!` prints scalars");
                    continue;
                }
                Ty::Scalar(s) => s,
                // Not a literal: its unknown type is reported where it comes from (a
                // constant, a device call) if nothing else fixes it.
                Ty::Never | Ty::Var(_) => continue,
                other => {
                    let msg = format!("`gpu_print!` prints scalars, not `{}`", self.show(&other));
                    self.cx.error_at(a.range(), msg);
                    continue;
                }
            };
            let floaty = s.is_float() || s.is_half_float();
            let problem = if s == Scalar::F16x2 {
                Some("an `f16x2` prints as its halves: `p.lo()`, `p.hi()`")
            } else if s.is_storage() {
                Some("an fp8 value prints through `f32`: `v.to_f32()`")
            } else if s == Scalar::Bf16x2 {
                Some("a `bf16x2` prints as its halves: `p.lo()`, `p.hi()`")
            } else if s.is_vector() {
                Some("a vector prints as its lanes: `v.x`, `v.y`, ...")
            } else if spec.hex.is_some() && !s.is_int() {
                Some("`{:x}` prints integers")
            } else if spec.precision.is_some() && !floaty {
                Some("a precision (`{:.3}`) is for floats")
            } else if spec.zero && (s == Scalar::Bool || (floaty && spec.precision.is_none())) {
                Some("zero padding (`{:05}`) is for integers and floats with a precision (`{:08.3}`)")
            } else {
                None
            };
            if let Some(msg) = problem {
                self.cx.error_at(
                    a.range(),
                    format!("{msg}; this argument is `{}`", s.rust_name()),
                );
            }
        }
    }

    /// `setmaxnreg_inc(n)` / `setmaxnreg_dec(n)`: PTX encodes `n` in the instruction, so it
    /// is an integer literal, a multiple of 8 in 24..=256.
    fn register_count(&mut self, i: Intrinsic, args: &[Expr]) {
        let Some(a) = args.first() else {
            return;
        };
        let name = i.rust_name();
        match &a.kind {
            ExprKind::Lit(Lit::Int(v, _)) if (24..=256).contains(v) && v % 8 == 0 => {}
            ExprKind::Lit(Lit::Int(v, _)) => self.cx.error_at(
                a.range(),
                format!("`{name}` sets the registers a thread to a multiple of 8 from 24 to 256, not {v}"),
            ),
            _ => self.cx.error_at(
                a.range(),
                format!("`{name}` takes an integer literal, a multiple of 8 from 24 to 256 (`{name}(232)`): PTX encodes the register count in the instruction"),
            ),
        }
    }

    /// `swizzle_128b(i, size)` and kin: `size` is an element's bytes, an integer literal
    /// 1, 2, 4, 8 or 16 (a swizzle moves 16-byte chunks: a wider element would be split).
    fn swizzle_size(&mut self, i: Intrinsic, args: &[Expr]) {
        let Some(a) = args.get(1) else {
            return;
        };
        let name = i.rust_name();
        match &a.kind {
            ExprKind::Lit(Lit::Int(1 | 2 | 4 | 8 | 16, _)) => {}
            _ => self.cx.error_at(
                a.range(),
                format!("`{name}(i, size)` takes the element's size in bytes as an integer literal 1, 2, 4, 8 or 16 (`{name}(i, 2)` for `bf16`): the swizzle moves 16-byte chunks"),
            ),
        }
    }

    /// A call of an intrinsic: arguments as its table says; `Value` arguments are scalars
    /// of any type, which the result (of shuffles) takes.
    fn intrinsic(&mut self, i: Intrinsic, args: &[Expr]) -> Ty {
        if i.rust_name().starts_with("setmaxnreg_") {
            self.register_count(i, args);
        }
        if i.rust_name().starts_with("swizzle_") {
            self.swizzle_size(i, args);
        }
        let mut value = None;
        let mut tma_dst = None;
        // The element type of `load4`'s / `store4`'s slice.
        let mut quad: Option<Ty> = None;
        for (k, a) in args.iter().enumerate() {
            let kind = i.params().get(k).copied().unwrap_or(ParamKind::U32);
            match kind {
                ParamKind::TmaDst | ParamKind::TensorMap | ParamKind::Mbarrier => {
                    self.tma_argument(kind, a, &mut tma_dst)
                }
                ParamKind::U32 => {
                    let t = self.infer(a, Some(&Ty::U32));
                    self.expect(&t, &Ty::U32, a.range());
                }
                ParamKind::Bool => {
                    let t = self.infer(a, Some(&Ty::BOOL));
                    self.expect(&t, &Ty::BOOL, a.range());
                }
                ParamKind::Scalar(s) => {
                    let want = Ty::Scalar(s);
                    let t = self.infer(a, Some(&want));
                    self.expect(&t, &want, a.range());
                }
                ParamKind::Lossless => {
                    let t = self.infer(a, None);
                    let to = match i.result() {
                        intrinsics::Result::Fixed(Ty::Scalar(to)) => to,
                        _ => continue,
                    };
                    // An unsuffixed literal is `i32`/`f64` here, as rustc would take it.
                    let d = self.default_of(&t);
                    let _ = self.unify(&t, &d);
                    match self.shallow(&t) {
                        Ty::Scalar(from) if intrinsics::lossless(from, to) => {}
                        Ty::Never => {}
                        other => {
                            let msg = format!(
                                "`{}` converts only without loss, and `{}` to `{}` may lose: write `x as {}`",
                                i.rust_name(),
                                self.show(&other),
                                to.rust_name(),
                                to.rust_name()
                            );
                            self.cx.error_at(a.range(), msg);
                        }
                    }
                }
                ParamKind::SharedDst | ParamKind::GlobalSrc => {
                    let t = self.infer(a, None);
                    let shared = self
                        .borrow_root(a)
                        .is_some_and(|r| self.shared_decls.contains(&r.var));
                    let dst = kind == ParamKind::SharedDst;
                    match self.shallow(&t) {
                        Ty::Never => {}
                        Ty::Slice(s, w) if dst && w && shared && !s.is_struct() => {
                            value = Some(t.clone());
                        }
                        Ty::Slice(s, _) if !dst && !shared => {
                            if let Some(Ty::Slice(d, _)) = value.as_ref().map(|v| self.shallow(v)) {
                                if d != s {
                                    let msg = format!(
                                        "`cp_async` copies between slices of one element type: the destination holds `{}` and this source `{}`",
                                        d.rust_name(),
                                        s.rust_name()
                                    );
                                    self.cx.error_at(a.range(), msg);
                                }
                            }
                        }
                        other => {
                            let found = self.show(&other);
                            let msg = if dst {
                                let why = match &other {
                                    Ty::Slice(_, false) if shared => {
                                        ", read-only: borrow it with `&mut`"
                                    }
                                    Ty::Slice(..) if !shared => " of global memory",
                                    _ => "",
                                };
                                format!("`cp_async` copies into a shared array declared in this function: pass `&mut tile[a..b]` of a `let tile = SharedArray::<T, N>::new();` (4, 8 or 16 bytes), and this is `{found}`{why}")
                            } else {
                                format!("`cp_async` copies from global memory: pass `&src[a..b]` of a slice parameter of the kernel, and this is `{found}`{}", if shared { " of shared memory" } else { "" })
                            };
                            self.cx.error_at(a.range(), msg);
                        }
                    }
                }
                ParamKind::QuadSrc | ParamKind::QuadDst => {
                    let t = self.infer(a, None);
                    let dst = kind == ParamKind::QuadDst;
                    match self.shallow(&t) {
                        Ty::Never => {}
                        Ty::Slice(s, w) if w || !dst => {
                            quad = Some(Ty::Scalar(s));
                            // Four long is a run-time check of a slice's length; the range
                            // written at the call makes a mistake (a whole slice) a
                            // compile error here, and lets the prover fold the length.
                            let ranged =
                                matches!(&a.kind, ExprKind::SubSlice(sub) if sub.end.is_some());
                            if !ranged {
                                let found = self.show(&t);
                                let name = i.rust_name();
                                let (verb, slice) = if dst {
                                    ("writes", "&mut out")
                                } else {
                                    ("reads", "&x")
                                };
                                let msg = format!("`{name}` {verb} four elements given as a range of a slice at the call, `{slice}[i..i + 4]` (`{slice}[0..4]` for a slice four long), and this `{found}` is not one: its length would be checked only at run time");
                                self.cx.error_at(a.range(), msg);
                            }
                        }
                        other => {
                            let found = self.show(&other);
                            let name = i.rust_name();
                            let msg = if dst {
                                let why = if matches!(other, Ty::Slice(..)) {
                                    ", read-only: borrow it with `&mut`"
                                } else {
                                    ""
                                };
                                format!("`{name}` writes the four elements of a writable slice: pass `&mut out[i..i + 4]`, and this is `{found}`{why}")
                            } else {
                                format!("`{name}` reads the four elements of a slice: pass `&x[i..i + 4]`, and this is `{found}`")
                            };
                            self.cx.error_at(a.range(), msg);
                        }
                    }
                }
                ParamKind::Elem => {
                    let want = quad.clone();
                    let t = self.infer(a, want.as_ref());
                    if let Some(w) = want {
                        self.expect(&t, &w, a.range());
                    }
                }
                ParamKind::Value => {
                    let t = self.infer(a, None);
                    match self.shallow(&t) {
                        Ty::Scalar(s) if s.is_struct() => {
                            let what =
                                format!("`{}` exchanges scalars between lanes", i.rust_name());
                            self.refuse_struct(s, a.range().into(), &what);
                        }
                        Ty::Scalar(s) if s.is_vector() => {
                            let msg = format!(
                                "`{}` exchanges scalars between lanes, not `{}`: exchange each of its lanes (`v.x`, `v.y`, ...)",
                                i.rust_name(),
                                s.rust_name()
                            );
                            self.cx.error_at(a.range(), msg);
                        }
                        Ty::Scalar(_) | Ty::Var(_) | Ty::Never => {}
                        other => {
                            let msg = format!(
                                "`{}` exchanges scalars between lanes, not `{}`",
                                i.rust_name(),
                                self.show(&other)
                            );
                            self.cx.error_at(a.range(), msg);
                        }
                    }
                    value = Some(t);
                }
            }
        }
        match i.result() {
            intrinsics::Result::Fixed(t) => t,
            intrinsics::Result::Value => value.unwrap_or(Ty::Never),
            intrinsics::Result::Quad => quad.map_or(Ty::Never, |t| Ty::Tuple(vec![t; 4])),
        }
    }

    /// `a[i].fetch_add(v, Ordering::Relaxed)` and the other atomic methods on an element
    /// of atomic memory with scalar `s`.
    fn atomic_method(&mut self, e: &Expr, s: Scalar, name: &Ident, args: &[Expr]) -> Ty {
        let atomic = s.atomic_name().unwrap_or("Atomic");
        let Some(op) = AtomicOp::from_name(&name.to_string()) else {
            for a in args {
                self.infer(a, None);
            }
            self.cx.error_at(
                name.span(),
                format!("no method `{name}` on `{atomic}` in a kernel: atomics have load, store, swap, fetch_add, fetch_sub, fetch_min, fetch_max, fetch_and, fetch_or, fetch_xor, atomic_inc and atomic_dec"),
            );
            return Ty::Never;
        };
        if let Err(which) = op.accepts(s) {
            self.cx.error_at(
                name.span(),
                format!("no method `{name}` on `{atomic}`: it exists for {which}"),
            );
            return Ty::Never;
        }
        let mut want: Vec<Ty> = vec![Ty::Scalar(s); op.values()];
        want.extend(vec![Ty::Ordering; op.orders()]);
        if want.len() != args.len() {
            let usage = match (op.values(), op.orders()) {
                (2, 2) => format!("`{name}(current, new, Ordering::AcqRel, Ordering::Relaxed)`"),
                (1, 1) => format!("`{name}(value, Ordering::Relaxed)`"),
                (0, 1) => format!("`{name}(Ordering::Relaxed)`"),
                _ => format!("`{name}(limit)`"),
            };
            self.cx.error_at(
                e.range(),
                format!(
                    "`{name}` takes {} argument(s), {} given: {usage}",
                    want.len(),
                    args.len()
                ),
            );
            return Ty::Never;
        }
        for (k, (a, w)) in args.iter().zip(&want).enumerate() {
            if *w == Ty::Ordering {
                match &a.kind {
                    ExprKind::Ordering(o, _) if op.refuses(k - op.values(), *o) => self.cx.error_at(
                        a.range(),
                        format!("`{name}` cannot take `Ordering::{o:?}` (Rust panics on it): use Relaxed, Acquire or SeqCst for loads, Relaxed, Release or SeqCst for stores"),
                    ),
                    ExprKind::Ordering(..) => {}
                    _ => self.cx.error_at(
                        a.range(),
                        "the memory order must be written out (`Ordering::Relaxed`, `Ordering::Acquire`, ...): the GPU instruction depends on it",
                    ),
                }
            }
            let t = self.infer(a, Some(w));
            self.expect(&t, w, a.range());
        }
        self.calls.insert(e.id, Call::Atomic(op));
        match op {
            AtomicOp::CompareExchange => Ty::CasResult(s),
            AtomicOp::Store => Ty::Unit,
            _ => Ty::Scalar(s),
        }
    }

    /// Defaults literals, reports what stays unknown, checks the deferred rules.
    fn finish(mut self) -> Option<Types> {
        for t in std::mem::take(&mut self.discarded_calls) {
            if let Ty::Var(v) = self.shallow(&t) {
                if matches!(
                    self.tvs[v],
                    Tv::Unbound {
                        kind: Kind::Any,
                        ..
                    }
                ) {
                    self.tvs[v] = Tv::Bound(Ty::Unit);
                }
            }
        }
        for v in 0..self.tvs.len() {
            if self.root(v) != v {
                continue;
            }
            if let Tv::Unbound { kind, origin } = self.tvs[v].clone() {
                match (kind, origin) {
                    (_, Some((span, msg))) => {
                        self.cx.error_at(span, msg);
                        self.tvs[v] = Tv::Bound(Ty::Never);
                    }
                    (Kind::Int, None) => self.tvs[v] = Tv::Bound(Ty::Scalar(Scalar::I32)),
                    (Kind::Float, None) => self.tvs[v] = Tv::Bound(Ty::Scalar(Scalar::F64)),
                    (Kind::Any, None) => self.tvs[v] = Tv::Bound(Ty::Never),
                }
            }
        }
        for ob in std::mem::take(&mut self.obligations) {
            self.obligation(ob);
        }
        for m in std::mem::take(&mut self.matches) {
            self.check_match(&m);
        }
        let expr = self.expr.iter().map(|t| self.resolve(t)).collect();
        let vars = self
            .vars
            .iter()
            .map(|v| match v {
                Some(v) => VarInfo {
                    name: v.name.clone(),
                    ty: self.resolve(&v.ty),
                    mutable: v.mutable,
                },
                None => VarInfo {
                    name: Ident::new("_", Span::call_site()),
                    ty: Ty::Never,
                    mutable: false,
                },
            })
            .collect();
        let consts = self
            .consts
            .iter()
            .map(|c| ConstInfo {
                expr: c.expr.clone(),
                cast: c.cast,
                ty: self.resolve(&c.ty),
                id: c.id,
            })
            .collect();
        Some(Types {
            expr,
            vars,
            var_uses: self.var_uses,
            calls: self.calls,
            call_literals: self.call_literals,
            grid_sync: self.grid_sync,
            consts,
            const_uses: self.const_uses,
        })
    }

    fn obligation(&mut self, ob: Obligation) {
        let cx = self.cx;
        match ob {
            Obligation::Binary(op, t, span) => {
                let Some(s) = self.resolve(&t).scalar() else {
                    if self.resolve(&t) != Ty::Never {
                        cx.error_at(
                            span,
                            format!(
                                "`{}` cannot be applied to `{}`",
                                op.rust_token(),
                                self.show(&t)
                            ),
                        );
                    }
                    return;
                };
                if s.is_struct() {
                    let what = format!("`{}` applies to scalars", op.rust_token());
                    self.refuse_struct(s, span, &what);
                    return;
                }
                if s.is_storage() {
                    cx.error_at(span, storage_refusal(op.rust_token(), s));
                    return;
                }
                if s.is_vector() && !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) {
                    cx.error_at(
                        span,
                        format!(
                            "`{}` cannot be applied to `{}`: vectors have `+`, `-` and `*`, lane by lane; compute on the lanes (`v.x`, `v.y`, ...) for the rest",
                            op.rust_token(),
                            s.rust_name()
                        ),
                    );
                    return;
                }
                let ok = match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul => {
                        s.is_int() || s.is_float() || s.is_library()
                    }
                    BinOp::Div | BinOp::Rem => s.is_int() || s.is_float() || s.is_half_float(),
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                        if s.is_half() && !s.is_half_float() =>
                    {
                        false
                    }
                    BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => s.is_int() || s == Scalar::Bool,
                    BinOp::Shl | BinOp::Shr => s.is_int(),
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => true,
                    BinOp::And | BinOp::Or => s == Scalar::Bool,
                };
                if !ok {
                    // A pair (`f16x2`, `bf16x2`) has `+ - *` on each half and nothing else.
                    let hint = if s.is_half() && !s.is_half_float() {
                        ": a pair has `+`, `-` and `*`, on each half; for the rest, work on the halves (`p.lo()`, `p.hi()`)"
                    } else {
                        ""
                    };
                    cx.error_at(
                        span,
                        format!(
                            "`{}` cannot be applied to `{}`{hint}",
                            op.rust_token(),
                            s.rust_name()
                        ),
                    );
                }
            }
            Obligation::Neg(t, span) => {
                if let Some(s) = self.resolve(&t).scalar() {
                    if s.is_struct() {
                        self.refuse_struct(s, span, "`-` applies to scalars");
                    } else if s.is_storage() {
                        cx.error_at(span, storage_refusal("-", s));
                    } else if !(s.is_signed_int() || s.is_float() || s.is_half_float()) {
                        cx.error_at(
                            span,
                            format!(
                                "cannot apply unary operator `-` to type `{}`",
                                s.rust_name()
                            ),
                        );
                    }
                }
            }
            Obligation::Not(t, span) => {
                if let Some(s) = self.resolve(&t).scalar() {
                    if s.is_struct() {
                        self.refuse_struct(s, span, "`!` applies to scalars");
                    } else if s.is_float() || s.is_library() {
                        cx.error_at(
                            span,
                            format!(
                                "cannot apply unary operator `!` to type `{}`",
                                s.rust_name()
                            ),
                        );
                    }
                }
            }
            Obligation::Cast(from, to, span) => {
                let Some(f) = self.resolve(&from).scalar() else {
                    if self.resolve(&from) != Ty::Never {
                        cx.error_at(
                            span,
                            format!("cannot cast `{}` as `{}`", self.show(&from), to.rust_name()),
                        );
                    }
                    return;
                };
                if f.is_struct() || to.is_struct() {
                    let s = if f.is_struct() { f } else { to };
                    self.refuse_struct(s, span, "`as` converts scalars");
                    return;
                }
                if f.is_vector() || to.is_vector() {
                    cx.error_at(
                        span,
                        match to.vector() {
                            Some((lane, _)) => format!(
                                "`as` does not convert `{}` to `{}`: convert lane by lane, `{}::new(v.x as {lane}, v.y as {lane}, ..)`",
                                f.rust_name(),
                                to.rust_name(),
                                to.rust_name(),
                                lane = lane.rust_name()
                            ),
                            None => format!(
                                "`as` does not convert `{}` to `{}`: convert its lanes (`v.x as {}`)",
                                f.rust_name(),
                                to.rust_name(),
                                to.rust_name()
                            ),
                        },
                    );
                } else if f.is_storage() || to.is_storage() {
                    let s = if f.is_storage() { f } else { to };
                    cx.error_at(
                        span,
                        format!(
                            "`as` does not convert `{}` to `{}` (the fp8 types are library types in Rust): write `{s}::from_f32(x)`, `{s}::from_f16(h)`, `v.to_f32()` or `v.to_f16()`",
                            f.rust_name(),
                            to.rust_name(),
                            s = s.rust_name()
                        ),
                    );
                } else if f.is_half() || to.is_half() {
                    // Name the conversions of the half type involved (`bf16` or `f16`).
                    let h = if [f, to]
                        .iter()
                        .any(|s| matches!(s, Scalar::Bf16 | Scalar::Bf16x2))
                    {
                        "bf16"
                    } else {
                        "f16"
                    };
                    cx.error_at(
                        span,
                        format!(
                            "`as` does not convert `{}` to `{}` (the half types are library types in Rust): write `{h}::from_f32(x)`, `{h}::from_f64(x)`, `h.to_f32()` or `h.to_f64()`",
                            f.rust_name(),
                            to.rust_name()
                        ),
                    );
                } else if to == Scalar::Bool && f != Scalar::Bool {
                    cx.error_at(
                        span,
                        format!(
                            "cannot cast `{}` as `bool`: compare instead (`x != 0`)",
                            f.rust_name()
                        ),
                    );
                } else if f == Scalar::Bool && to.is_float() {
                    cx.error_at(
                        span,
                        format!(
                            "cannot cast `bool` as `{}`: cast to an integer first",
                            to.rust_name()
                        ),
                    );
                }
            }
            Obligation::IntLit(v, t, negated, span) => {
                if let Some(s) = self.resolve(&t).scalar() {
                    if s.is_float() {
                        return; // `1f32` is a float literal
                    }
                    let max: u128 = match s {
                        Scalar::Bool => 1,
                        s if s.is_signed_int() => {
                            (1u128 << (s.bits() - 1)) - if negated { 0 } else { 1 }
                        }
                        s => (1u128 << s.bits()) - 1,
                    };
                    if v > max {
                        cx.error_at(
                            span,
                            format!("literal out of range for `{}`", s.rust_name()),
                        );
                    }
                }
            }
            Obligation::Int(t, span, what) => match self.resolve(&t).scalar() {
                Some(s) if s.is_int() => {}
                None if self.resolve(&t) == Ty::Never => {}
                _ => cx.error_at(
                    span,
                    format!("{what} must be an integer, found `{}`", self.show(&t)),
                ),
            },
        }
    }
}

/// `7` or `-7` without a suffix: its value's magnitude.
fn bare_int_literal(e: &Expr) -> Option<u128> {
    match &e.kind {
        ExprKind::Lit(Lit::Int(v, None)) => Some(*v),
        ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
            ExprKind::Lit(Lit::Int(v, None)) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// Expressions that Rust accepts as statements without `;` when they give `()`.
fn is_block_like(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::If(..)
            | ExprKind::While(..)
            | ExprKind::Loop(..)
            | ExprKind::For(..)
            | ExprKind::Block(_)
            | ExprKind::Match(..)
    )
}

/// "unknown method" with the nearest supported one, or the reason a Rust method is refused.
fn unknown_method(name: &str, on: &str, s: Option<Scalar>) -> String {
    if let Some(why) = methods::refused(name) {
        return format!("`{name}` is not supported in kernels: {why}");
    }
    let slice = if s.is_none() {
        "; slices are read by index: `for i in 0..s.len() { .. s[i] .. }`"
    } else {
        ""
    };
    let hint = match methods::nearest(name, s) {
        Some(n) if methods::distance(name, n) <= (name.len() / 3).max(2) => {
            format!("did you mean `{n}`?{slice}")
        }
        Some(n) => format!(
            "the nearest method `{on}` has is `{n}`{slice} (docs/methods.md lists them all)"
        ),
        None => "docs/methods.md lists the methods kernels know".into(),
    };
    format!("unknown method `{name}` on `{on}` in a kernel: {hint}")
}

/// The error for an operator on an fp8 storage type (`e4m3`, `e5m2`), which has none.
fn storage_refusal(op: &str, s: Scalar) -> String {
    format!(
        "`{op}` cannot be applied to `{}`: the fp8 types are storage types; convert to `f32` or `f16` first (`x.to_f32()`, `x.to_f16()`), compute there, and convert back (`{}::from_f32(y)`)",
        s.rust_name(),
        s.rust_name()
    )
}
