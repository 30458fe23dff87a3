//! syn -> kernel AST. Everything outside the kernel language gets a spanned error that
//! says what to write instead; parsing goes on after an error so all of a kernel's
//! problems show in one build.

pub mod block;
pub mod callees;
mod consts;
mod fragment;
mod generic_args;
pub mod generic_params;
mod len;
mod matching;
mod print;
mod refs;
mod shared;
mod structs;
mod types;

use crate::ctxt::Ctxt;
use crate::ir::ast::*;
use crate::ir::intrinsics::Intrinsic;
use crate::ir::structs::StructDef;
use crate::ir::ty::{Scalar, Ty};
pub use consts::{expr_text, is_const_name};
use proc_macro2::{Ident, Span};
use quote::ToTokens;
pub use structs::rustc_refuses;
use syn::spanned::Spanned;
pub use types::{parse_param_ty, parse_scalar, parse_ty};

/// The most elements a tuple has in kernels (the prelude's `ws_tuple1` .. `ws_tuple6`).
pub const MAX_TUPLE: usize = 6;

pub struct Parser<'a> {
    pub cx: &'a Ctxt,
    next_expr: ExprId,
    pub next_var: VarId,
    /// Module-level constants met so far (see [`Function::consts`]).
    consts: Vec<syn::Expr>,
    /// Constants passed as const generic arguments so far ([`Function::generic_args`]).
    generic_args: Vec<syn::Expr>,
    /// The generic function's parameters, for an instance (whose own generics are gone):
    /// its type parameters' names and its const parameters (`parse::generic_params`).
    pub type_params: Vec<Ident>,
    pub const_params: Vec<(Ident, Scalar)>,
    /// The function parsed is a device function (whose C is a template over its const
    /// parameters).
    device: bool,
    /// The `#[gpu_struct]`s the function may name ([`Function::structs`]).
    structs: Vec<StructDef>,
    /// Parameters and locals whose declared type was refused (reported there): `*r` of
    /// one adds no error of its own.
    refused: Vec<String>,
    /// `split_at`s met so far (`SubSlice::split`).
    splits: usize,
}

fn line_of(span: Span) -> usize {
    span.start().line
}

/// `Box::new` as the user wrote it (a token stream prints `Box :: new`).
pub fn path_text(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// The span of the last token of `t` (with the first token's, the range errors underline).
fn last_span(t: &dyn ToTokens) -> Span {
    let mut last = None;
    for tt in t.to_token_stream() {
        last = Some(tt.span());
    }
    last.unwrap_or_else(Span::call_site)
}

impl<'a> Parser<'a> {
    pub fn new(cx: &'a Ctxt, structs: Vec<StructDef>) -> Self {
        Parser {
            cx,
            next_expr: 0,
            next_var: 0,
            consts: Vec::new(),
            generic_args: Vec::new(),
            type_params: Vec::new(),
            const_params: Vec::new(),
            device: false,
            structs,
            refused: Vec::new(),
            splits: 0,
        }
    }

    fn expr(&mut self, kind: ExprKind, span: Span, end: Span) -> Expr {
        let id = self.next_expr;
        self.next_expr += 1;
        Expr {
            id,
            kind,
            span,
            end,
            line: line_of(span),
        }
    }

    /// A `let` annotation: [`parse_ty`], with array lengths that may be constants
    /// (`[f32; N]`).
    fn annotation(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Array(a) => {
                let elem = self.annotation(&a.elem);
                let len = self.array_len(&a.len, "a local array");
                Some(Ty::Array(Box::new(elem?), len?))
            }
            syn::Type::Paren(p) => self.annotation(&p.elem),
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let items: Vec<Option<Ty>> = t.elems.iter().map(|e| self.annotation(e)).collect();
                Some(Ty::Tuple(items.into_iter().collect::<Option<_>>()?))
            }
            other => parse_ty(self.cx, &mut self.structs, other),
        }
    }

    /// A device function's return type: a scalar, or a tuple of scalars and tuples.
    fn return_ty(&mut self, ty: &syn::Type) -> Option<Ty> {
        match ty {
            syn::Type::Tuple(t) if t.elems.len() > MAX_TUPLE => {
                self.cx.error_spanned_by(
                    t,
                    format!("tuples in kernels have at most {MAX_TUPLE} elements"),
                );
                None
            }
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                let items: Vec<Option<Ty>> = t.elems.iter().map(|e| self.return_ty(e)).collect();
                Some(Ty::Tuple(items.into_iter().collect::<Option<_>>()?))
            }
            syn::Type::Paren(p) => self.return_ty(&p.elem),
            syn::Type::Array(_) => {
                self.cx.error_spanned_by(ty, "a device function does not return an array (a C function cannot): return a tuple, or write into a `&mut [T]` parameter");
                None
            }
            other => parse_scalar(self.cx, &mut self.structs, other).map(Ty::Scalar),
        }
    }

    fn var(&mut self) -> VarId {
        self.next_var += 1;
        self.next_var - 1
    }

    /// Parses the whole function; `None` only when nothing usable is left.
    pub fn function(
        &mut self,
        item: &syn::ItemFn,
        kind: FnKind,
        fast_math: bool,
    ) -> Option<Function> {
        let sig = &item.sig;
        self.device = kind == FnKind::Device;
        let what = if kind == FnKind::Kernel {
            "a #[gpu_kernel]"
        } else {
            "a #[gpu_device] function"
        };
        if let Some(t) = &sig.constness {
            self.cx
                .error_spanned_by(t, format!("{what} cannot be `const`"));
        }
        if let Some(t) = &sig.asyncness {
            self.cx.error_spanned_by(t, format!("{what} cannot be `async`: a GPU thread has no executor; launch the kernel from async code instead"));
        }
        if let Some(t) = &sig.unsafety {
            self.cx.error_spanned_by(
                t,
                format!(
                    "{what} cannot be `unsafe`: kernels are safe Rust; warpspeed checks the launch"
                ),
            );
        }
        if let Some(abi) = &sig.abi {
            self.cx.error_spanned_by(
                abi,
                format!(
                    "{what} takes no `extern` ABI: the macro emits the `extern \"C\"` entry itself"
                ),
            );
        }
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            self.cx.error_spanned_by(
                &sig.generics,
                "generic kernels are not supported yet: write one kernel per element type",
            );
        }
        if let Some(v) = &sig.variadic {
            self.cx
                .error_spanned_by(v, format!("{what} cannot be variadic"));
        }
        let mut params = Vec::new();
        let mut len_attrs = Vec::new();
        // Shared-array parameters with a literal `N`: (index, N, line).
        let mut shared_lens = Vec::new();
        let mut error_params = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => self.cx.error_spanned_by(
                    r,
                    format!("{what} cannot take `self`: kernels are free functions"),
                ),
                syn::FnArg::Typed(pt) => {
                    let (name, mutable) = match &*pt.pat {
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            (pi.ident.clone(), pi.mutability.is_some())
                        }
                        other => {
                            self.cx.error_spanned_by(
                                other,
                                "parameters must be plain names (`x: u32`), not patterns",
                            );
                            continue;
                        }
                    };
                    let var = self.var();
                    for attr in pt.attrs.iter().filter(|a| !len::is_len(a)) {
                        self.cx.error_spanned_by(
                            attr,
                            "this attribute is not supported on a parameter (only `#[len(..)]` on a slice)",
                        );
                    }
                    if kind == FnKind::Device && structs::rustc_refuses(&self.structs, &pt.ty, &[])
                    {
                        // rustc's error in the host function's signature, at the same token.
                        self.cx.rustc_reports();
                        error_params.push((name, var));
                        continue;
                    }
                    if let Some(shared) = types::shared_param(self.cx, &mut self.structs, &pt.ty) {
                        match shared {
                            Some(_) if kind == FnKind::Kernel => {
                                self.cx.error_spanned_by(
                                    &pt.ty,
                                    "a kernel's parameters are the host's memory: declare the shared array in the kernel (`let tile = SharedArray::<T, N>::new();`) and pass `&mut tile` to #[gpu_device] functions",
                                );
                                error_params.push((name, var));
                            }
                            Some(sp) => {
                                // `N` is the declared length, as `#[len(N)]` would say.
                                if let Some(n) = sp.len {
                                    shared_lens.push((params.len(), n, line_of(pt.ty.span())));
                                }
                                params.push(Param {
                                    name,
                                    mutable,
                                    ty: sp.ty,
                                    var,
                                    atomic_path: None,
                                    len: None,
                                    shared: true,
                                });
                                len_attrs.push(Vec::new());
                            }
                            None => error_params.push((name, var)),
                        }
                        continue;
                    }
                    match parse_param_ty(self.cx, &mut self.structs, &pt.ty) {
                        Some(ParamTy::Array { .. }) if kind == FnKind::Kernel => {
                            self.cx.error_spanned_by(
                                &pt.ty,
                                "a kernel takes arrays as slices (`&[T]`, `&mut [T]`): arrays by value are parameters of #[gpu_device] functions",
                            );
                            error_params.push((name, var));
                        }
                        Some(ParamTy::TensorMap(_)) if kind == FnKind::Device => {
                            self.cx.error_spanned_by(
                                &pt.ty,
                                "tensor maps are kernel parameters: call `tma_load_2d` in the kernel, and pass the tile to the #[gpu_device] function",
                            );
                            error_params.push((name, var));
                        }
                        Some(ParamTy::Texture2D(_)) if kind == FnKind::Device => {
                            self.cx.error_spanned_by(
                                &pt.ty,
                                "textures are kernel parameters: a #[gpu_device] function takes the texels it needs as values",
                            );
                            error_params.push((name, var));
                        }
                        Some(ty) => {
                            params.push(Param {
                                name,
                                mutable,
                                ty,
                                var,
                                atomic_path: types::atomic_path(&pt.ty),
                                len: None,
                                shared: false,
                            });
                            len_attrs.push(
                                pt.attrs
                                    .iter()
                                    .filter(|a| len::is_len(a))
                                    .cloned()
                                    .collect(),
                            );
                        }
                        None => {
                            self.refused.push(name.to_string());
                            error_params.push((name, var))
                        }
                    }
                }
            }
        }
        len::resolve(self.cx, &mut params, &len_attrs);
        for (i, n, line) in shared_lens {
            params[i].len = Some(LenDecl {
                expr: LenExpr::Lit(n),
                text: n.to_string(),
                line,
            });
        }
        let mut ret_rejected = false;
        let ret = match &sig.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, ty) => {
                if kind == FnKind::Kernel {
                    if !matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty()) {
                        self.cx.error_spanned_by(
                            ty,
                            "a kernel returns nothing: write results into a `&mut [T]` parameter",
                        );
                        ret_rejected = true;
                    }
                    None
                } else if structs::rustc_refuses(&self.structs, ty, &[]) {
                    // rustc's error in the host function's signature, at the same token.
                    self.cx.rustc_reports();
                    ret_rejected = true;
                    None
                } else {
                    let t = self.return_ty(ty);
                    ret_rejected = t.is_none();
                    t.map(|t| (t, ty.span()))
                }
            }
        };
        let body = self.block(&item.block);
        let docs = item
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .cloned()
            .collect();
        let allows = item
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("allow"))
            .cloned()
            .collect();
        for attr in &item.attrs {
            if !attr.path().is_ident("doc")
                && !attr.path().is_ident("allow")
                && !callees::is_callee(attr)
            {
                self.cx.error_spanned_by(
                    attr,
                    "this attribute is not supported on a kernel (only doc comments and `allow`)",
                );
            }
        }
        Some(Function {
            kind,
            vis: item.vis.clone(),
            name: sig.ident.clone(),
            params,
            ret,
            body,
            error_params,
            ret_rejected,
            fast_math,
            unchecked: false,
            block: None,
            min_blocks_per_multiprocessor: None,
            expr_count: self.next_expr,
            consts: std::mem::take(&mut self.consts),
            generic_args: std::mem::take(&mut self.generic_args),
            const_params: self.const_params.clone(),
            docs,
            allows,
            structs: std::mem::take(&mut self.structs),
            callees: callees::read(&item.attrs),
        })
    }

    pub fn block(&mut self, block: &syn::Block) -> Block {
        let mut stmts = Vec::new();
        let mut tail = None;
        let mut tail_refused = false;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Local(local) => {
                    if let Some(lets) = self.split_at(local) {
                        stmts.extend(lets.into_iter().map(Stmt::Let));
                    } else if let Some(l) = self.local(local) {
                        stmts.push(Stmt::Let(l));
                    }
                }
                syn::Stmt::Expr(e, semi) => {
                    let Some(expr) = self.expr_of(e) else {
                        tail_refused |= semi.is_none() && i + 1 == n;
                        continue;
                    };
                    if semi.is_none() && i + 1 == n {
                        tail = Some(Box::new(expr));
                    } else {
                        stmts.push(Stmt::Expr(expr, semi.is_some()));
                    }
                }
                syn::Stmt::Item(item) => self.cx.error_spanned_by(
                    item,
                    "items (fn, struct, use, const, ...) cannot be declared inside a kernel: declare them outside, device functions with #[gpu_device]",
                ),
                syn::Stmt::Macro(m) if self.print_macro_name(&m.mac) => {
                    let span = m.mac.path.span();
                    if let Some(Some(kind)) = self.print_macro(&m.mac) {
                        let e = self.expr(kind, span, last_span(&m.mac));
                        stmts.push(Stmt::Expr(e, true));
                    }
                }
                syn::Stmt::Macro(m) => self.cx.error_spanned_by(
                    &m.mac,
                    format!(
                        "the macro `{}!` is not supported in kernels: kernels accept no macros yet",
                        path_text(&m.mac.path)
                    ),
                ),
            }
        }
        Block {
            stmts,
            tail,
            tail_refused,
            span: block.span(),
        }
    }

    fn local(&mut self, local: &syn::Local) -> Option<Let> {
        // A rejected annotation (already reported) binds the name to the error type, so
        // its uses raise no second error; its initializer, which only follows from it
        // (`let c: char = 'a';`, `let r: &f32 = &x;`), is not read.
        let (pat, mut ty) = match &local.pat {
            syn::Pat::Type(pt) => (
                self.pat(&pt.pat),
                Some(
                    self.annotation(&pt.ty)
                        .map(|t| (t, pt.ty.span()))
                        .unwrap_or((Ty::Never, pt.ty.span())),
                ),
            ),
            other => (self.pat(other), None),
        };
        let refused = matches!(ty, Some((Ty::Never, _)));
        if let Some(Pat::Bind { name, .. }) = &pat {
            let name = name.to_string();
            self.refused.retain(|n| *n != name);
            if refused {
                self.refused.push(name);
            }
        }
        if refused {
            return Some(Let {
                pat: pat?,
                ty,
                init: None,
                span: local.span(),
            });
        }
        if let Some(init) = &local.init {
            if let Some((_, diverge)) = &init.diverge {
                self.cx.error_spanned_by(
                    diverge,
                    "`let ... else` is not supported in kernels: use `if`",
                );
            }
        }
        let init = local
            .init
            .as_ref()
            .and_then(|init| self.expr_of(&init.expr));
        if local.init.is_some() && init.is_none() && ty.is_none() {
            // The initializer was rejected (already reported): no "annotation needed" too.
            ty = Some((Ty::Never, local.span()));
        }
        Some(Let {
            pat: pat?,
            ty,
            init,
            span: local.span(),
        })
    }

    fn pat(&mut self, pat: &syn::Pat) -> Option<Pat> {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(Pat::Bind {
                name: pi.ident.clone(),
                mutable: pi.mutability.is_some(),
                var: self.var(),
            }),
            syn::Pat::Wild(_) => Some(Pat::Wild),
            syn::Pat::Tuple(t) => {
                let items: Option<Vec<Pat>> = t.elems.iter().map(|p| self.pat(p)).collect();
                Some(Pat::Tuple(items?, t.span()))
            }
            syn::Pat::Paren(p) => self.pat(&p.pat),
            other => {
                self.cx.error_spanned_by(
                    other,
                    "only names, `_` and tuples of them can be bound in kernels",
                );
                None
            }
        }
    }

    /// Whether `e` is a parameter or local whose declared type was refused.
    fn names_refused(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .is_some_and(|i| self.refused.contains(&i.to_string())),
            syn::Expr::Paren(p) => self.names_refused(&p.expr),
            _ => false,
        }
    }

    fn label(&self, label: &Option<syn::Label>) -> Option<Ident> {
        label.as_ref().map(|l| l.name.ident.clone())
    }

    fn boxed(&mut self, e: &syn::Expr) -> Option<Box<Expr>> {
        self.expr_of(e).map(Box::new)
    }

    fn unsupported(&self, e: &dyn ToTokens, what: &str, instead: &str) -> Option<Expr> {
        self.cx
            .error_spanned_by(e, format!("{what} not supported in kernels: {instead}"));
        None
    }

    /// One syn expression. Returns `None` after reporting an error.
    pub fn expr_of(&mut self, e: &syn::Expr) -> Option<Expr> {
        let span = e.span();
        let kind = match e {
            syn::Expr::Lit(l) => ExprKind::Lit(self.lit(&l.lit)?),
            syn::Expr::Paren(p) => return self.expr_of(&p.expr),
            syn::Expr::Group(g) => return self.expr_of(&g.expr),
            syn::Expr::Path(p) => return self.path_expr(p),
            syn::Expr::Binary(b) => {
                let (op, assign) = bin_op(&b.op);
                let l = self.boxed(&b.left);
                let r = self.boxed(&b.right);
                let (l, r) = (l?, r?);
                if assign {
                    ExprKind::AssignOp(op, l, r)
                } else {
                    ExprKind::Binary(op, l, r)
                }
            }
            syn::Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => ExprKind::Unary(UnOp::Neg, self.boxed(&u.expr)?),
                syn::UnOp::Not(_) => ExprKind::Unary(UnOp::Not, self.boxed(&u.expr)?),
                syn::UnOp::Deref(_) if self.names_refused(&u.expr) => return None,
                syn::UnOp::Deref(_) => {
                    return self.unsupported(
                        e,
                        "`*` (dereference) is",
                        "kernels have no references to dereference; index slices with `s[i]`",
                    )
                }
                _ => {
                    return self.unsupported(e, "this operator is", "use the arithmetic operators")
                }
            },
            syn::Expr::Cast(c) => {
                let inner = self.boxed(&c.expr);
                let to = parse_scalar(self.cx, &mut self.structs, &c.ty);
                ExprKind::Cast(inner?, to?)
            }
            syn::Expr::Index(ix) => {
                let base = self.boxed(&ix.expr);
                if let syn::Expr::Range(_) = &*ix.index {
                    return self.unsupported(
                        e,
                        "a sub-slice without `&` is",
                        "borrow it: `&x[a..b]` or `&mut x[a..b]`",
                    );
                }
                let index = self.boxed(&ix.index);
                ExprKind::Index(base?, index?)
            }
            syn::Expr::Field(f) => {
                let base = self.boxed(&f.base)?;
                let member = match &f.member {
                    syn::Member::Named(n) => Member::Named(n.to_string()),
                    syn::Member::Unnamed(i) => Member::Index(i.index),
                };
                ExprKind::Field(base, member)
            }
            syn::Expr::MethodCall(m) => {
                if let Some(t) = &m.turbofish {
                    self.cx.error_spanned_by(
                        t,
                        "turbofish (`::<T>`) on methods is not supported in kernels",
                    );
                }
                let recv = self.boxed(&m.receiver);
                // `.unwrap_or_else(|v| v)` on `compare_exchange`'s result: the old value
                // either way (the one closure kernels accept, kept as a method without arguments).
                if m.method == "unwrap_or_else"
                    && m.args.len() == 1
                    && is_identity_closure(&m.args[0])
                {
                    return Some(self.expr(
                        ExprKind::Method(recv?, m.method.clone(), Vec::new()),
                        span,
                        last_span(e),
                    ));
                }
                let args: Vec<Option<Expr>> = m.args.iter().map(|a| self.expr_of(a)).collect();
                let args: Option<Vec<Expr>> = args.into_iter().collect();
                ExprKind::Method(recv?, m.method.clone(), args?)
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return self.unsupported(
                        &c.func,
                        "calling a computed function (closure, function pointer) is",
                        "call a #[gpu_device] function by name",
                    );
                };
                if p.qself.is_some() {
                    return self.unsupported(
                        e,
                        "qualified paths (`<T as Trait>::f`) are",
                        "call a #[gpu_device] function by name",
                    );
                }
                let args: Vec<Option<Expr>> = c.args.iter().map(|a| self.expr_of(a)).collect();
                let mut args: Vec<Expr> = args.into_iter().collect::<Option<_>>()?;
                let path = &p.path;
                if let Some(kind) = self.tiled_partition(path, &mut args) {
                    return kind.map(|k| self.expr(k, span, last_span(e)));
                }
                if let Some(kind) = self.shared_call(path, &args) {
                    return kind.map(|k| self.expr(k, span, last_span(e)));
                }
                if let Some(kind) = self.fragment_call(path, &args) {
                    return kind.map(|k| self.expr(k, span, last_span(e)));
                }
                let last = path.segments.last()?;
                let mut const_args = Vec::new();
                if let syn::PathArguments::AngleBracketed(g) = &last.arguments {
                    if intrinsic_of(path).is_some() {
                        return self.unsupported(
                            g,
                            "generic arguments on this call are",
                            "name the generic arguments of a #[gpu_device] function only (`lerp::<f32>(..)`, `tile_sum::<256>(..)`)",
                        );
                    }
                    const_args = self.generic_args_of(g)?;
                }
                match intrinsic_of(path) {
                    Some(i) => {
                        let n = i.params().len();
                        if args.len() != n && !(i.takes_width() && args.len() == n + 1) {
                            let at: &dyn ToTokens = if c.args.is_empty() { e } else { &c.args };
                            self.cx.error_spanned_by(
                                at,
                                format!(
                                    "`{}()` takes {}, {} given",
                                    i.rust_name(),
                                    i.arity_text(),
                                    args.len()
                                ),
                            );
                            return None;
                        }
                        ExprKind::Intrinsic(i, args)
                    }
                    None => {
                        if let Some(msg) = scalar_function(path) {
                            self.cx.error_spanned_by(&c.func, msg);
                            return None;
                        }
                        if let Some(msg) = forbidden_call(path) {
                            return self.unsupported(
                                &c.func,
                                &format!("`{}` is", path_text(path)),
                                msg,
                            );
                        }
                        ExprKind::Call(path.clone(), const_args, args)
                    }
                }
            }
            syn::Expr::Assign(a) => {
                let l = self.boxed(&a.left);
                let r = self.boxed(&a.right);
                ExprKind::Assign(l?, r?)
            }
            syn::Expr::If(i) => {
                if let syn::Expr::Let(l) = &*i.cond {
                    return self.unsupported(
                        l,
                        "`if let` is",
                        "kernels have no enums to match; use `if` on a condition",
                    );
                }
                let cond = self.boxed(&i.cond);
                let then = self.block(&i.then_branch);
                let els = match &i.else_branch {
                    Some((_, e)) => Some(self.boxed(e)?),
                    None => None,
                };
                ExprKind::If(cond?, then, els)
            }
            syn::Expr::While(w) => {
                if let syn::Expr::Let(l) = &*w.cond {
                    return self.unsupported(
                        l,
                        "`while let` is",
                        "use `while` on a condition or `loop` with `break`",
                    );
                }
                self.no_unroll(&w.attrs);
                let cond = self.boxed(&w.cond);
                let body = self.block(&w.body);
                ExprKind::While(self.label(&w.label), cond?, body)
            }
            syn::Expr::Loop(l) => {
                self.no_unroll(&l.attrs);
                let body = self.block(&l.body);
                ExprKind::Loop(self.label(&l.label), body)
            }
            syn::Expr::ForLoop(f) => {
                let pat = self.pat(&f.pat);
                let unroll = self.unroll(&f.attrs);
                let range = self.range_loop(&f.expr).map(|r| RangeLoop { unroll, ..r });
                let body = self.block(&f.body);
                ExprKind::For(self.label(&f.label), pat?, range?, body)
            }
            syn::Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    return self.unsupported(
                        v,
                        "`break` with a value is",
                        "assign to a variable declared before the loop",
                    );
                }
                ExprKind::Break(b.label.as_ref().map(|l| l.ident.clone()))
            }
            syn::Expr::Continue(c) => ExprKind::Continue(c.label.as_ref().map(|l| l.ident.clone())),
            syn::Expr::Return(r) => ExprKind::Return(match &r.expr {
                Some(v) => Some(self.boxed(v)?),
                None => None,
            }),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    return self.unsupported(l, "labelled blocks are", "use a labelled loop");
                }
                ExprKind::Block(self.block(&b.block))
            }
            syn::Expr::Array(a) => {
                let items: Vec<Option<Expr>> = a.elems.iter().map(|x| self.expr_of(x)).collect();
                let items: Vec<Expr> = items.into_iter().collect::<Option<_>>()?;
                if items.is_empty() {
                    return self.unsupported(
                        e,
                        "empty arrays are",
                        "give the array at least one element",
                    );
                }
                ExprKind::Array(items)
            }
            syn::Expr::Repeat(r) => {
                let value = self.boxed(&r.expr);
                let len = self.array_len(&r.len, "a local array");
                ExprKind::Repeat(value?, len?)
            }
            syn::Expr::Closure(_) => {
                return self.unsupported(
                    e,
                    "closures are",
                    "write a #[gpu_device] function and call it",
                )
            }
            syn::Expr::Async(_) | syn::Expr::Await(_) => {
                return self.unsupported(
                    e,
                    "async code is",
                    "a GPU thread has no executor; kernels are plain synchronous code",
                )
            }
            syn::Expr::Unsafe(_) => {
                return self.unsupported(
                    e,
                    "`unsafe` blocks are",
                    "kernels are safe Rust; use slices and the intrinsics",
                )
            }
            syn::Expr::Try(_) => {
                return self.unsupported(
                    e,
                    "the `?` operator is",
                    "kernels have no Result; check conditions with `if` and `return` early",
                )
            }
            syn::Expr::TryBlock(_) => {
                return self.unsupported(e, "`try` blocks are", "use `if` and early `return`")
            }
            syn::Expr::Reference(r) => return self.reference(e, r),
            syn::Expr::Match(m) => self.match_expr(m)?,
            syn::Expr::Struct(st) => self.struct_lit(st)?,
            syn::Expr::Tuple(t) if t.elems.is_empty() => {
                return self.unsupported(
                    e,
                    "the unit value `()` as an expression is",
                    "leave the block without a tail expression",
                )
            }
            syn::Expr::Tuple(t) if t.elems.len() > MAX_TUPLE => {
                return self.unsupported(
                    e,
                    &format!("tuples of more than {MAX_TUPLE} elements are"),
                    "split the values",
                )
            }
            syn::Expr::Tuple(t) => {
                let items: Vec<Option<Expr>> = t.elems.iter().map(|x| self.expr_of(x)).collect();
                ExprKind::Tuple(items.into_iter().collect::<Option<_>>()?)
            }
            syn::Expr::Range(_) => {
                return self.unsupported(
                    e,
                    "ranges outside a `for` loop are",
                    "use the range directly in `for i in a..b`",
                )
            }
            syn::Expr::Let(_) => {
                return self.unsupported(
                    e,
                    "`let` in an expression is",
                    "declare the variable in a statement",
                )
            }
            syn::Expr::Macro(m) => {
                if let Some(kind) = self.print_macro(&m.mac) {
                    return kind.map(|k| self.expr(k, span, last_span(e)));
                }
                return self.unsupported(
                    &m.mac,
                    &format!("the macro `{}!` is", path_text(&m.mac.path)),
                    "kernels accept no macros yet",
                );
            }
            syn::Expr::Yield(_) => {
                return self.unsupported(e, "`yield` is", "kernels are not generators")
            }
            _ => {
                return self.unsupported(
                    e,
                    "this expression is",
                    "see the kernel language in README.md",
                )
            }
        };
        Some(self.expr(kind, span, last_span(e)))
    }

    fn lit(&mut self, lit: &syn::Lit) -> Option<Lit> {
        match lit {
            syn::Lit::Int(i) => {
                let suffix = match i.suffix() {
                    "" => None,
                    s => Some(scalar_suffix(self.cx, i, s)?),
                };
                match i.base10_parse::<u128>() {
                    Ok(v) => Some(Lit::Int(v, suffix)),
                    Err(_) => {
                        self.cx.error_spanned_by(
                            i,
                            "integer literal too large: the widest kernel integers are 64-bit (`u64::MAX` is 18446744073709551615)",
                        );
                        None
                    }
                }
            }
            syn::Lit::Float(f) => {
                let suffix = match f.suffix() {
                    "" => None,
                    s => Some(scalar_suffix(self.cx, f, s)?),
                };
                let mut text = f.base10_digits().to_string();
                if text.ends_with('.') {
                    text.push('0');
                }
                Some(Lit::Float { text, suffix })
            }
            syn::Lit::Bool(b) => Some(Lit::Bool(b.value)),
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
                self.cx.error_spanned_by(
                    lit,
                    "strings are not supported in kernels: a GPU thread has no heap",
                );
                None
            }
            syn::Lit::Char(_) | syn::Lit::Byte(_) => {
                self.cx.error_spanned_by(lit, "char and byte literals are not supported in kernels: write the number (`b'a'` is `97u8`)");
                None
            }
            _ => {
                self.cx
                    .error_spanned_by(lit, "this literal is not supported in kernels");
                None
            }
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        let span = p.span();
        let path = &p.path;
        if p.qself.is_none() && path.leading_colon.is_none() {
            if let Some(ident) = path.get_ident() {
                if ident == "WARP_SIZE" {
                    return Some(self.expr(
                        ExprKind::Lit(Lit::Int(32, Some(Scalar::U32))),
                        span,
                        span,
                    ));
                }
                return Some(self.expr(ExprKind::Var(ident.clone()), span, span));
            }
            if let Some(order) = memory_order(path) {
                return Some(self.expr(
                    ExprKind::Ordering(order, path.clone()),
                    span,
                    last_span(p),
                ));
            }
            // `u32::MAX`, `f32::MIN_POSITIVE`, `core::f32::consts::PI`, also as
            // `core::f32::INFINITY`/`std::f32::NAN`.
            let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            if let Some(c) = crate::ir::numeric_consts::lookup(&segs) {
                return Some(self.expr(ExprKind::Const(c), span, last_span(p)));
            }
            // `config::N`, `crate::N`: a module-level constant.
            if is_const_name(path) {
                return Some(self.expr(ExprKind::ConstItem(path.clone()), span, last_span(p)));
            }
        }
        self.unsupported(p, "this path is", "kernels see their parameters, locals and constants such as `u32::MAX`; pass other values as parameters")
    }

    fn range_loop(&mut self, e: &syn::Expr) -> Option<RangeLoop> {
        // Peel `.rev()` and `.step_by(k)` (in either order) off a range.
        let mut methods: Vec<(&Ident, Option<&syn::Expr>)> = Vec::new();
        let mut cur = e;
        loop {
            match cur {
                syn::Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                    methods.push((&m.method, None));
                    cur = &m.receiver;
                }
                syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                    methods.push((&m.method, m.args.first()));
                    cur = &m.receiver;
                }
                syn::Expr::Paren(p) => cur = &p.expr,
                _ => break,
            }
        }
        let syn::Expr::Range(r) = cur else {
            self.cx.error_spanned_by(
                e,
                "`for` in kernels runs over integer ranges: `a..b`, `a..=b`, with `.step_by(k)` and/or `.rev()`",
            );
            return None;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            self.cx.error_spanned_by(
                r,
                "a kernel `for` range needs both ends (`a..b` or `a..=b`)",
            );
            return None;
        };
        methods.reverse(); // innermost first
        if methods.len() > 2
            || methods.iter().filter(|m| m.0 == "rev").count() > 1
            || methods.iter().filter(|m| m.0 == "step_by").count() > 1
        {
            self.cx
                .error_spanned_by(e, "use `.step_by(k)` and `.rev()` at most once each");
            return None;
        }
        let start = self.boxed(start);
        let end = self.boxed(end);
        let mut step = None;
        let mut rev = false;
        let mut step_then_rev = false;
        for (name, arg) in &methods {
            if *name == "rev" {
                rev = true;
                step_then_rev = step.is_some();
            } else {
                step = Some(self.boxed(arg.unwrap())?);
            }
        }
        Some(RangeLoop {
            start: start?,
            end: end?,
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            step,
            rev,
            step_then_rev,
            unroll: None,
            ends: [self.var(), self.var()],
        })
    }

    /// `#[unroll]` / `#[unroll(n)]` among a `for` loop's attributes.
    fn unroll(&mut self, attrs: &[syn::Attribute]) -> Option<Unroll> {
        let mut out = None;
        for attr in attrs.iter().filter(|a| a.path().is_ident("unroll")) {
            if out.is_some() {
                self.cx
                    .error_spanned_by(attr, "a loop takes one `#[unroll]` attribute");
                continue;
            }
            out = match &attr.meta {
                syn::Meta::Path(_) => Some(Unroll::Full),
                syn::Meta::List(list) => match list.parse_args::<syn::LitInt>() {
                    Ok(n) => match n.base10_parse::<u32>() {
                        Ok(k) if k >= 1 => Some(Unroll::By(k)),
                        _ => {
                            self.cx.error_spanned_by(
                                &n,
                                "the unroll factor is an integer from 1 up: `#[unroll(4)]`",
                            );
                            None
                        }
                    },
                    Err(_) => {
                        self.cx.error_spanned_by(
                            &list.tokens,
                            "write `#[unroll]` (unroll completely) or `#[unroll(4)]` (by a factor of 4)",
                        );
                        None
                    }
                },
                syn::Meta::NameValue(nv) => {
                    self.cx.error_spanned_by(
                        nv,
                        "write `#[unroll]` (unroll completely) or `#[unroll(4)]` (by a factor of 4)",
                    );
                    None
                }
            };
        }
        out
    }

    /// `#[unroll]` on a `while` or `loop`: their trip count is not a range's.
    fn no_unroll(&mut self, attrs: &[syn::Attribute]) {
        for attr in attrs.iter().filter(|a| a.path().is_ident("unroll")) {
            self.cx.error_spanned_by(
                attr,
                "`#[unroll]` applies to `for` loops over a range (`for i in 0..16`), whose trip count NVRTC can see",
            );
        }
    }
}

fn scalar_suffix(cx: &Ctxt, tokens: &dyn ToTokens, s: &str) -> Option<Scalar> {
    match Scalar::from_name(s) {
        Some(Scalar::Bool) | None => {
            cx.error_spanned_by(tokens, format!("unsupported literal suffix `{s}`"));
            None
        }
        some => some,
    }
}

fn bin_op(op: &syn::BinOp) -> (BinOp, bool) {
    use syn::BinOp as S;
    match op {
        S::Add(_) => (BinOp::Add, false),
        S::Sub(_) => (BinOp::Sub, false),
        S::Mul(_) => (BinOp::Mul, false),
        S::Div(_) => (BinOp::Div, false),
        S::Rem(_) => (BinOp::Rem, false),
        S::And(_) => (BinOp::And, false),
        S::Or(_) => (BinOp::Or, false),
        S::BitXor(_) => (BinOp::BitXor, false),
        S::BitAnd(_) => (BinOp::BitAnd, false),
        S::BitOr(_) => (BinOp::BitOr, false),
        S::Shl(_) => (BinOp::Shl, false),
        S::Shr(_) => (BinOp::Shr, false),
        S::Eq(_) => (BinOp::Eq, false),
        S::Lt(_) => (BinOp::Lt, false),
        S::Le(_) => (BinOp::Le, false),
        S::Ne(_) => (BinOp::Ne, false),
        S::Ge(_) => (BinOp::Ge, false),
        S::Gt(_) => (BinOp::Gt, false),
        S::AddAssign(_) => (BinOp::Add, true),
        S::SubAssign(_) => (BinOp::Sub, true),
        S::MulAssign(_) => (BinOp::Mul, true),
        S::DivAssign(_) => (BinOp::Div, true),
        S::RemAssign(_) => (BinOp::Rem, true),
        S::BitXorAssign(_) => (BinOp::BitXor, true),
        S::BitAndAssign(_) => (BinOp::BitAnd, true),
        S::BitOrAssign(_) => (BinOp::BitOr, true),
        S::ShlAssign(_) => (BinOp::Shl, true),
        S::ShrAssign(_) => (BinOp::Shr, true),
        _ => (BinOp::Add, false),
    }
}

/// `|v| v`.
fn is_identity_closure(e: &syn::Expr) -> bool {
    let syn::Expr::Closure(c) = e else {
        return false;
    };
    let [syn::Pat::Ident(p)] = c.inputs.iter().collect::<Vec<_>>().as_slice() else {
        return false;
    };
    matches!(&*c.body, syn::Expr::Path(b) if b.path.is_ident(&p.ident))
}

/// `Ordering::Relaxed`, also as `atomic::Ordering::Relaxed` or
/// `core::sync::atomic::Ordering::Relaxed` (`std::` too).
fn memory_order(path: &syn::Path) -> Option<MemOrder> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let n = segs.len();
    if n >= 2 && segs[n - 2] == "Ordering" {
        return MemOrder::from_name(&segs[n - 1]);
    }
    None
}

/// Whether a call of `path` (no qualified self) is a call of a device function, as the
/// parser reads it: no intrinsic, shared-memory constructor, `tiled_partition`, scalar
/// function or refused host item, and not an associated function of one of the
/// function's type parameters (`T::from_f32`, an intrinsic in each instance).
pub fn calls_device_function(path: &syn::Path, type_params: &[String]) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (Some(first), Some(last)) = (segs.first(), segs.last()) else {
        return false;
    };
    let shared = [
        "SharedArray",
        "dynamic_shared",
        "tiled_partition",
        "FragmentA",
        "FragmentB",
        "FragmentAcc",
    ];
    !(intrinsic_of(path).is_some()
        || scalar_function(path).is_some()
        || forbidden_call(path).is_some()
        || segs.iter().any(|s| shared.contains(&s.as_str()))
        || type_params.contains(first)
        || last.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// `thread_idx()`, also spelled `warpspeed::thread_idx()`, `kernel::thread_idx()` or
/// `warpspeed::kernel::thread_idx()` (the documented items of `warpspeed::kernel`).
fn intrinsic_of(path: &syn::Path) -> Option<Intrinsic> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let ours = segs
        .iter()
        .take_while(|s| ["warpspeed", "kernel", "prelude"].contains(&s.as_str()))
        .count();
    match &segs[ours..] {
        [name] => Intrinsic::from_name(name),
        // `f16::from_f32(x)`, `f32x4::new(..)`, `f32::from_bits(b)`, `u32::from(x)`:
        // associated functions of the kernel types.
        [ty, name] if Scalar::from_name(ty).is_some() => {
            Intrinsic::from_name(&format!("{ty}::{name}"))
        }
        _ => None,
    }
}

/// `f32::sqrt(x)`, `u32::try_from(x)`: a path into a scalar type that is no kernel
/// function (the known ones, `f32::from_bits` and `T::from`, are intrinsics). Without
/// this it would read as a device function in a module `f32`.
fn scalar_function(path: &syn::Path) -> Option<String> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (ty, name) = match segs.as_slice() {
        [ty, name] => (ty, name),
        [krate, _, ty, name] if krate == "core" || krate == "std" => (ty, name),
        _ => return None,
    };
    let s = Scalar::from_name(ty)?;
    if crate::ir::methods::Method::exists(name) {
        return Some(format!(
            "`{ty}::{name}(x, ..)` is not supported in kernels: call it as a method, `x.{name}(..)`"
        ));
    }
    let known = if s.is_float() {
        format!("`{ty}::from_bits(b)` and `{ty}::from(x)`")
    } else if s.is_storage() {
        "the conversions (`from_f32`, `from_f16`, `from_bf16`, `from_bits`)".to_string()
    } else if s.is_library() {
        "the constructors (`new`, `splat`, `from_f32`, `from_f64`)".to_string()
    } else {
        format!("`{ty}::from(x)` (lossless conversions; `x as {ty}` for the others)")
    };
    Some(format!(
        "`{ty}::{name}` is not supported in kernels: the functions of `{ty}` kernels know are {known}"
    ))
}

/// Calls that look like device functions but are host-only things users reach for.
fn forbidden_call(path: &syn::Path) -> Option<&'static str> {
    let first = path.segments.first()?.ident.to_string();
    let last = path.segments.last()?.ident.to_string();
    match (first.as_str(), last.as_str()) {
        ("Vec", _) | (_, "vec") => Some("a GPU thread has no heap; use a local array `[0i32; N]`"),
        ("String", _) | ("Box", _) | ("Rc", _) | ("Arc", _) => Some("a GPU thread has no heap"),
        ("std", _) | ("core", _) | ("alloc", _) => {
            Some("the standard library does not run on the GPU; use numeric methods (`x.sqrt()`)")
        }
        ("Some", _) | ("None", _) | ("Ok", _) | ("Err", _) => {
            Some("kernels have no enums; use a flag or a sentinel value")
        }
        _ => None,
    }
}
