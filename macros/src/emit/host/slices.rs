//! Borrowed memory in the simulator's Rust: `&x` is `x`'s handle (`Slice`, `SliceMut`,
//! `AtomicSlice`: `Copy` addresses with a length, runtime/src/sim/handles.rs), read-only
//! through `as_slice()` where `&` borrows writable memory; `&x[a..b]` is the handle's
//! `sub(a, Some(b), at)`, which checks the range as Rust does and reports a bad one as an
//! out-of-bounds index at `at`. The handle keeps the memory's race tracking, so a race
//! through a borrow inside a device function is reported at the callee's line.

use super::{site, RustWriter};
use crate::ir::ast::*;
use crate::ir::ty::Ty;
use proc_macro2::TokenStream;
use quote::quote_spanned;

impl RustWriter<'_> {
    /// `&inner` / `&mut inner`, of type `t`.
    pub(super) fn reference(&self, e: &Expr, inner: &Expr) -> TokenStream {
        let v = self.expr(inner);
        self.narrowed(e, inner, v)
    }

    /// `&base[start..end]`.
    pub(super) fn sub_slice(&self, e: &Expr, s: &SubSlice) -> TokenStream {
        let span = e.span;
        let b = self.expr(&s.base);
        let start = match &s.start {
            Some(a) => self.expr(a),
            None => quote_spanned!(span=> 0usize),
        };
        let end = match &s.end {
            Some(x) => {
                let x = self.expr(x);
                quote_spanned!(span=> ::core::option::Option::Some(#x))
            }
            None => quote_spanned!(span=> ::core::option::Option::None),
        };
        let at = site(e);
        let v = quote_spanned!(span=> #b.sub(#start, #end, #at));
        self.narrowed(e, &s.base, v)
    }

    /// `v` (a handle of `from`'s memory) as the read-only handle where `e` borrows writable
    /// memory with `&`.
    fn narrowed(&self, e: &Expr, from: &Expr, v: TokenStream) -> TokenStream {
        let span = e.span;
        let writable = matches!(self.ty(from), Ty::Slice(_, true) | Ty::Rows(..));
        match self.ty(e) {
            Ty::Slice(_, false) if writable => quote_spanned!(span=> #v.as_slice()),
            _ => v,
        }
    }
}
