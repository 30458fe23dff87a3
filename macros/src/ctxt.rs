//! Gathers the errors of one kernel so a build shows them all at once (serde's `Ctxt`).

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::cell::RefCell;

/// Where an error points: one span, or the first and last token of a range.
#[derive(Clone, Copy, Debug)]
pub struct ErrSpan(pub Span, pub Span);

impl From<Span> for ErrSpan {
    fn from(s: Span) -> Self {
        ErrSpan(s, s)
    }
}

impl From<(Span, Span)> for ErrSpan {
    fn from((a, b): (Span, Span)) -> Self {
        ErrSpan(a, b)
    }
}

#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// An error on the user's exact tokens.
    pub fn error_spanned_by<T: ToTokens, M: std::fmt::Display>(&self, tokens: T, msg: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// An error at a span, or over a range `(first token, last token)`.
    pub fn error_at<M: std::fmt::Display>(&self, at: impl Into<ErrSpan>, msg: M) {
        let ErrSpan(start, end) = at.into();
        // syn underlines from the first token's start to the last token's end.
        let tokens: TokenStream = [
            proc_macro2::TokenTree::Ident(proc_macro2::Ident::new("a", start)),
            proc_macro2::TokenTree::Ident(proc_macro2::Ident::new("b", end)),
        ]
        .into_iter()
        .collect();
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens, msg));
    }

    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// All errors so far as one `compile_error!` sequence, or `None`.
    pub fn take(&self) -> Option<TokenStream> {
        let errors = std::mem::take(&mut *self.errors.borrow_mut());
        let mut iter = errors.into_iter();
        let mut first = iter.next()?;
        for e in iter {
            first.combine(e);
        }
        Some(first.to_compile_error())
    }
}
