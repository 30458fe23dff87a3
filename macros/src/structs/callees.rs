//! How a kernel learns the signatures of the device functions it calls, as it learns a
//! struct's fields (`resolve.rs`): `#[gpu_device] fn lerp` defines a `macro_rules!` named
//! like the function (macros are a namespace of their own, so `use m::lerp;` and
//! `helpers::lerp` reach it as they reach the function), which hands the function's
//! signature to `__gpu_resolved!`. A caller asks for each callee it does not know yet
//! (`lerp! { {"lerp"} {<structs known>} @kernel (<args>) <fn> }`); the answer is recorded
//! on the caller as a `#[__ws_callee]` attribute (`parse/callees.rs`) and the pipeline runs
//! again, until every callee is known. A call of something that is no device function
//! fails there, with one error of rustc's on the user's path: "cannot find macro `helper`
//! in this scope", with "`helper` is in scope, but it is a function, not a macro" where a
//! plain function of that name exists.

use crate::ir::ast::Callee;
use crate::ir::structs::StructDef;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The first call in `item`'s body of a device function whose signature is not among
/// `known` (the path as written).
pub fn unknown_call(item: &syn::ItemFn, known: &[Callee]) -> Option<syn::Path> {
    struct Find<'a> {
        known: &'a [Callee],
        type_params: Vec<String>,
        found: Option<syn::Path>,
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if self.found.is_some() {
                return;
            }
            if let syn::Expr::Path(p) = &*c.func {
                let key = crate::parse::callees::key(&p.path);
                if p.qself.is_none()
                    && crate::parse::calls_device_function(&p.path, &self.type_params)
                    && !self.known.iter().any(|k| k.key == key)
                {
                    self.found = Some(p.path.clone());
                    return;
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        // Items inside the body are not the function's.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let type_params = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut f = Find {
        known,
        type_params,
        found: None,
    };
    f.visit_block(&item.block);
    f.found
}

/// Asks the hand-over macro of the device function `path` names for its signature; it
/// calls `__gpu_resolved!` back with `continuation`. The macro's path is the call's
/// without generic arguments, with the call's spans, so a missing one is reported at the
/// call.
pub fn ask(path: &syn::Path, known: &[StructDef], continuation: TokenStream) -> TokenStream {
    let known = if known.is_empty() {
        quote!({})
    } else {
        super::payload::write(known, 0)
    };
    let mut mac = path.clone();
    for s in &mut mac.segments {
        s.arguments = syn::PathArguments::None;
    }
    let key = crate::parse::callees::key(path);
    let span = path.span();
    quote_spanned! {span=> #mac! { {#key} #known #continuation } }
}

/// The signature in a hand-over's first group (`{fn lerp(..) -> f32}`), if it is a
/// device function's (a struct's starts with the struct's name).
pub fn answer(group: &Group) -> Option<TokenStream> {
    let mut toks = group.stream().into_iter();
    match toks.next() {
        Some(TokenTree::Ident(i)) if i == "fn" && group.delimiter() == Delimiter::Brace => {
            Some(group.stream())
        }
        _ => None,
    }
}

/// The hand-over macro of device function `item`: named like it, it answers a caller's
/// question with the signature (parameter attributes, which only the function's own
/// expansion reads, left out).
pub fn handover(item: &syn::ItemFn) -> TokenStream {
    let mut sig = item.sig.clone();
    for input in &mut sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            pt.attrs.clear();
        }
    }
    super::export::handover_macro(
        &item.sig.ident,
        &item.vis,
        quote!(::warpspeed::__gpu_resolved! { {#sig} $($rest)* }),
    )
}
