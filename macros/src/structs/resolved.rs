//! `__gpu_resolved!`, where a struct's macro hands its definition back: it reads the
//! definitions and goes on with what asked for them (a `#[gpu_struct]` holding the struct,
//! or a kernel or device function), one more struct known; a device function's macro
//! hands back its signature the same way (`callees`).

use super::resolve::function;
use crate::ir::ast::FnKind;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::quote;

/// `__gpu_resolved! { {<new defs>} {<name asked for>} {<known defs>} @<what> .. }`.
pub fn resolved(input: TokenStream) -> TokenStream {
    let toks: Vec<TokenTree> = input.into_iter().collect();
    let group = |i: usize| match toks.get(i) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => Some(g.clone()),
        _ => None,
    };
    let malformed = || quote!(compile_error!("internal error in #[gpu_struct]'s hand-over (this is a warpspeed bug: please report it)"););
    let (Some(new), Some(asked), Some(old)) = (group(0), group(1), group(2)) else {
        return malformed();
    };
    let mut known = Vec::new();
    if !old.stream().is_empty() && super::payload::read(&old, "", &mut known).is_none() {
        return malformed();
    }
    let asked = match syn::parse2::<syn::LitStr>(asked.stream()) {
        Ok(s) => s.value(),
        Err(_) => return malformed(),
    };
    let (Some(TokenTree::Punct(at)), Some(TokenTree::Ident(what))) = (toks.get(3), toks.get(4))
    else {
        return malformed();
    };
    if at.as_char() != '@' {
        return malformed();
    }
    let mut rest: TokenStream = toks[5..].iter().cloned().collect();
    if let Some(sig) = super::callees::answer(&new) {
        // A device function's signature: recorded on the function that asked.
        let mut it = rest.into_iter();
        let Some(TokenTree::Group(args)) = it.next() else {
            return malformed();
        };
        let attr = crate::parse::callees::attribute(&asked, sig);
        let item: TokenStream = it.collect();
        rest = quote!(#args #attr #item);
    } else if super::payload::read(&new, &asked, &mut known).is_none() {
        return malformed();
    }
    match what.to_string().as_str() {
        "struct" => {
            let mut it = rest.into_iter();
            let Some(TokenTree::Group(args)) = it.next() else {
                return malformed();
            };
            super::define::expand(args.stream(), it.collect(), known)
        }
        "kernel" | "device" => {
            let kind = if what == "kernel" {
                FnKind::Kernel
            } else {
                FnKind::Device
            };
            let mut it = rest.into_iter();
            let Some(TokenTree::Group(args)) = it.next() else {
                return malformed();
            };
            function(args.stream(), it.collect(), kind, known)
        }
        _ => malformed(),
    }
}
