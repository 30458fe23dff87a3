//! Gathers the errors of one kernel so a build shows them all at once (serde's `Ctxt`).
//! A `Ctxt` must be ended with [`Ctxt::check`] or [`Ctxt::fail`]: dropping it unchecked
//! panics (which the macro's safety net turns into an "internal error"), so no path can
//! forget the errors it gathered, and a failing path always says why.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use std::cell::{Cell, RefCell};

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

pub struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
    /// Said after each message: which instance of a generic function it is (one error
    /// per mistake, rather than the mistake's and one more naming the instance).
    context: Option<String>,
    /// A mistake rustc reports itself (`rustc_reports`): the path fails with no message
    /// of ours.
    rustc_reports: Cell<bool>,
}

impl Ctxt {
    pub fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            context: None,
            rustc_reports: Cell::new(false),
        }
    }

    /// A `Ctxt` whose every message ends with `context`.
    pub fn within(context: Option<String>) -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            context,
            rustc_reports: Cell::new(false),
        }
    }

    /// `msg`, with the context said after it.
    fn say<M: std::fmt::Display>(&self, msg: M) -> String {
        match &self.context {
            Some(c) => format!("{msg} ({c})"),
            None => msg.to_string(),
        }
    }

    fn push(&self, e: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(e);
    }

    /// An error on the user's exact tokens.
    pub fn error_spanned_by<T: ToTokens, M: std::fmt::Display>(&self, tokens: T, msg: M) {
        let msg = self.say(msg);
        self.push(syn::Error::new_spanned(tokens.into_token_stream(), msg));
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
        let msg = self.say(msg);
        self.push(syn::Error::new_spanned(tokens, msg));
    }

    pub fn syn_error(&self, err: syn::Error) {
        let err = match &self.context {
            Some(_) => syn::Error::new(err.span(), self.say(&err)),
            None => err,
        };
        self.push(err);
    }

    /// A mistake that rustc reports itself, in the user's Rust that the macro emits as
    /// written (a generic struct named without its arguments in a device function's
    /// signature, which is also its host function's, or in a `#[gpu_struct]`'s field: E0107
    /// there). The function or struct fails, with no message of ours: one error per
    /// mistake, and rustc's names the same token.
    pub fn rustc_reports(&self) {
        self.rustc_reports.set(true);
    }

    /// Whether an error was reported so far (or left to rustc).
    pub fn has_errors(&self) -> bool {
        self.rustc_reports.get() || self.errors.borrow().as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Ends the gathering: `Err` holds every error as one `compile_error!` sequence (none
    /// where rustc reports the only mistake).
    pub fn check(self) -> Result<(), TokenStream> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut iter = errors.into_iter();
        let Some(mut first) = iter.next() else {
            return if self.rustc_reports.get() {
                Err(TokenStream::new())
            } else {
                Ok(())
            };
        };
        for e in iter {
            first.combine(e);
        }
        Err(first.to_compile_error())
    }

    /// Ends a path that cannot go on: the errors reported, or, when a stage gave up
    /// without reporting one (a bug in the macro), an internal error that says so. Never
    /// an empty expansion.
    pub fn fail(self, stage: &str) -> TokenStream {
        match self.check() {
            Err(errors) => errors,
            Ok(()) => {
                let msg = format!("internal error in #[gpu_kernel]: the {stage} stopped without an error message (this is a warpspeed bug: please report it with the kernel that caused it)");
                quote::quote!(compile_error!(#msg);)
            }
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("Ctxt dropped without check(): errors may be lost");
        }
    }
}
