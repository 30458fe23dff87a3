//! `&x` / `&mut x` and the sub-slices `&x[a..b]`, `&mut x[a..]`, `&x[..b]`, `&x[..]`: how a
//! kernel hands a slice, a shared array or a part of one to a device function or names it
//! with a `let`. What the borrowed value may be (a slice, a shared array, a row of a tile;
//! not a local or a scalar) is the type checker's to say, which knows the types.
//! `let (a, b) = x.split_at_mut(mid);` is two sub-slices known to be disjoint.

use super::{last_span, Parser};
use crate::ir::ast::{Expr, ExprKind, Let, Pat, SubSlice};
use proc_macro2::{Ident, Span};
use syn::spanned::Spanned;

impl Parser<'_> {
    /// `&e` or `&mut e` (the whole expression is `e_all`).
    pub(super) fn reference(&mut self, e_all: &syn::Expr, r: &syn::ExprReference) -> Option<Expr> {
        let mutable = r.mutability.is_some();
        let mut inner = &*r.expr;
        while let syn::Expr::Paren(syn::ExprParen { expr, .. })
        | syn::Expr::Group(syn::ExprGroup { expr, .. }) = inner
        {
            inner = expr;
        }
        if let Some(sub) = self.sub_slice(inner, mutable) {
            return sub;
        }
        let kind = ExprKind::Ref(mutable, Box::new(self.expr_of(inner)?));
        Some(self.expr(kind, e_all.span(), last_span(e_all)))
    }

    /// `x[a..b]` under a `&` (`Some`), or `None` when `e` is not a range index. The base may
    /// be one too: `&mut y[r * w..][..w]` is a sub-slice of a sub-slice.
    fn sub_slice(&mut self, e: &syn::Expr, mutable: bool) -> Option<Option<Expr>> {
        let syn::Expr::Index(ix) = e else {
            return None;
        };
        let syn::Expr::Range(range) = &*ix.index else {
            return None;
        };
        if let syn::RangeLimits::Closed(_) = range.limits {
            self.cx.error_spanned_by(
                range,
                "inclusive sub-slices (`a..=b`) are not supported in kernels: write `&x[a..b + 1]`",
            );
            return Some(None);
        }
        let base = match self.sub_slice(&ix.expr, mutable) {
            Some(b) => b,
            None => self.expr_of(&ix.expr),
        };
        // `Some(None)`: no bound written; `None`: a bound refused (reported).
        let start = match &range.start {
            Some(a) => self.expr_of(a).map(Some),
            None => Some(None),
        };
        let end = match &range.end {
            Some(b) => self.expr_of(b).map(Some),
            None => Some(None),
        };
        let (Some(base), Some(start), Some(end)) = (base, start, end) else {
            return Some(None);
        };
        let kind = ExprKind::SubSlice(Box::new(SubSlice {
            base,
            start,
            end,
            mutable,
            split: None,
        }));
        Some(Some(self.expr(kind, e.span(), last_span(e))))
    }
}

impl Parser<'_> {
    /// `let (a, b) = x.split_at(mid);` (`split_at_mut`: `&mut`) as Rust defines it:
    /// `let mid = mid; let a = &x[..mid]; let b = &x[mid..];`, the halves known to be
    /// disjoint. `None` when `local` is not such a `let`.
    pub(super) fn split_at(&mut self, local: &syn::Local) -> Option<Vec<Let>> {
        let syn::Pat::Tuple(t) = &local.pat else {
            return None;
        };
        let init = local.init.as_ref()?;
        let syn::Expr::MethodCall(m) = &*init.expr else {
            return None;
        };
        let mutable = match m.method.to_string().as_str() {
            "split_at" => false,
            "split_at_mut" => true,
            _ => return None,
        };
        let syn::Expr::Path(recv) = &*m.receiver else {
            return None;
        };
        if t.elems.len() != 2 || m.args.len() != 1 || init.diverge.is_some() {
            return None;
        }
        let pats: Vec<Option<Pat>> = t.elems.iter().map(|p| self.split_pat(p)).collect();
        let mid = self.expr_of(&m.args[0])?;
        let span = local.span();
        let mid_name = Ident::new("__ws_mid", Span::mixed_site());
        let mid_var = self.var();
        let mut lets = vec![Let {
            pat: Pat::Bind {
                name: mid_name.clone(),
                mutable: false,
                var: mid_var,
            },
            ty: None,
            init: Some(mid),
            span,
        }];
        self.splits += 1;
        let split = self.splits;
        for (side, pat) in pats.into_iter().enumerate() {
            let pat = pat?;
            if let Pat::Wild = pat {
                continue;
            }
            let base = self.path_expr(recv)?;
            let bound = self.expr(ExprKind::Var(mid_name.clone()), span, span);
            let (start, end) = if side == 0 {
                (None, Some(bound))
            } else {
                (Some(bound), None)
            };
            let kind = ExprKind::SubSlice(Box::new(SubSlice {
                base,
                start,
                end,
                mutable,
                split: Some((split, side as u8)),
            }));
            lets.push(Let {
                pat,
                ty: None,
                init: Some(self.expr(kind, init.expr.span(), last_span(&init.expr))),
                span,
            });
        }
        Some(lets)
    }

    /// A name or `_` of a `split_at` pattern (`Pat::Wild` for anything else, reported).
    fn split_pat(&mut self, p: &syn::Pat) -> Option<Pat> {
        match p {
            syn::Pat::Ident(_) | syn::Pat::Wild(_) => self.pat(p),
            other => {
                self.cx.error_spanned_by(
                    other,
                    "a half of `split_at` is bound to a name: `let (a, b) = x.split_at(mid);`",
                );
                None
            }
        }
    }
}
