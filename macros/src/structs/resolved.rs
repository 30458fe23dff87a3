//! `__gpu_resolved!`, where a struct's macro hands its definition back: it reads the
//! definitions and goes on with what asked for them (a `#[gpu_struct]` holding the struct,
//! or a kernel or device function), one more struct known; a device function's macro
//! hands back its signature the same way (`callees`).

use super::resolve::function;
use crate::ir::ast::FnKind;
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
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
            let item: TokenStream = it.collect();
            let name = item_name(&item, "struct");
            let out = super::define::expand(args.stream(), item, known);
            match name {
                Some(name) => at_item(out, name),
                None => out,
            }
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
            let item: TokenStream = it.collect();
            let name = item_name(&item, "fn");
            let out = function(args.stream(), item, kind, known);
            match name {
                Some(name) => at_item(out, name),
                None => out,
            }
        }
        _ => malformed(),
    }
}

/// The span of the name after the keyword `kw` (`fn`, `struct`) at the top of `item`.
fn item_name(item: &TokenStream, kw: &str) -> Option<Span> {
    let mut prev_kw = false;
    for t in item.clone() {
        match t {
            TokenTree::Ident(i) if prev_kw => return Some(i.span()),
            TokenTree::Ident(i) => prev_kw = i == kw,
            _ => prev_kw = false,
        }
    }
    None
}

/// `out` with every token made at this macro's call site spanned by the item's name
/// instead. This expansion runs inside the hand-over macro of a callee or struct (defined
/// by that item's attribute), so its call site is that item's attribute, and rustc's notes
/// about what the expansion defines ("required by a bound in `launch`", "function defined
/// here") would point there, with a backtrace through the hand-over ("in this macro
/// invocation", "originates in the macro `__gpu_resolved`"). Spanned by the function's (or
/// struct's) own name, they point at what the user wrote, and the tokens resolve as where
/// the item is written, as they do when no hand-over runs (the attribute's call site is
/// there). The tokens that came from the user keep their spans.
fn at_item(out: TokenStream, name: Span) -> TokenStream {
    // `Span` has no equality; its `Debug` (the expansion context and the byte range) tells
    // the call site's tokens apart.
    let call_site = format!("{:?}", Span::call_site());
    respan(out, &call_site, name)
}

fn respan(out: TokenStream, call_site: &str, here: Span) -> TokenStream {
    out.into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut n = Group::new(g.delimiter(), respan(g.stream(), call_site, here));
                n.set_span(if format!("{:?}", g.span()) == call_site {
                    here
                } else {
                    g.span()
                });
                return TokenTree::Group(n);
            }
            if format!("{:?}", t.span()) == call_site {
                t.set_span(here);
            }
            t
        })
        .collect()
}
