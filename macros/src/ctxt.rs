//! Gathers the errors of one kernel so a build shows them all at once (serde's `Ctxt`).

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::cell::RefCell;

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

    pub fn error_at<M: std::fmt::Display>(&self, span: Span, msg: M) {
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
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
