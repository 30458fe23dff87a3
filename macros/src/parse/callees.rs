//! The signatures of the device functions a kernel or device function calls, as their
//! macros handed them over (`structs/resolve.rs` asks; a `#[gpu_device]`'s hand-over
//! macro answers with its signature as written). They travel with the function's own
//! tokens, as one attribute per callee, `#[__ws_callee("helpers::lerp", fn lerp(..) -> f32)]`,
//! so every later expansion (and each instance of a generic function) sees them; the
//! parser takes them off the function (`Function::callees`).

use crate::ir::ast::Callee;
use proc_macro2::TokenStream;
use quote::quote;

/// The attribute's name.
const ATTR: &str = "__ws_callee";

/// The key of a call's path: its segments' names (`self::m::lerp`), no generic arguments.
pub fn key(path: &syn::Path) -> String {
    let lead = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    format!("{lead}{}", segs.join("::"))
}

/// Whether `a` is a callee attribute.
pub fn is_callee(a: &syn::Attribute) -> bool {
    a.path().is_ident(ATTR)
}

/// The attribute that records `sig` for calls through `key`.
pub fn attribute(key: &str, sig: TokenStream) -> TokenStream {
    let attr = proc_macro2::Ident::new(ATTR, proc_macro2::Span::call_site());
    quote!(#[#attr(#key, #sig)])
}

/// The callees recorded on a function (malformed ones, which only a bug makes, skipped).
pub fn read(attrs: &[syn::Attribute]) -> Vec<Callee> {
    attrs
        .iter()
        .filter(|a| is_callee(a))
        .filter_map(|a| {
            a.parse_args_with(|input: syn::parse::ParseStream| {
                let key: syn::LitStr = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let sig: syn::Signature = input.parse()?;
                Ok(Callee {
                    key: key.value(),
                    sig,
                })
            })
            .ok()
        })
        .collect()
}
