//! `&x` / `&mut x` and the sub-slices `&x[a..b]`, `&mut x[a..]`, `&x[..b]`, `&x[..]`: how a
//! kernel hands a slice, a shared array or a part of one to a device function or names it
//! with a `let`. What the borrowed value may be (a slice, a shared array, a row of a tile;
//! not a local or a scalar) is the type checker's to say, which knows the types.

use super::{last_span, Parser};
use crate::ir::ast::Expr;
use crate::ir::ast::{ExprKind, SubSlice};
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
        }));
        Some(Some(self.expr(kind, e.span(), last_span(e))))
    }
}
