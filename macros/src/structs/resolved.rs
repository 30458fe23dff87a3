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
            at_origin(
                super::define::expand(args.stream(), it.collect(), known),
                what.span(),
            )
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
            at_origin(
                function(args.stream(), it.collect(), kind, known),
                what.span(),
            )
        }
        _ => malformed(),
    }
}

/// `out` with every token made at this macro's call site spanned by `origin` instead: the
/// span of the `@kernel`/`@struct` marker, which the item's own attribute made (its call
/// site: the attribute, in that attribute's expansion) and every hand-over passed on
/// untouched. This expansion runs inside the hand-over macro of a callee or struct, so its
/// own call site is inside that item's expansion: rustc's notes about what the expansion
/// defines ("required by a bound in `launch`", "function defined here") would point at the
/// callee's `#[gpu_device]`, with a backtrace through `__gpu_resolved`. Spanned by the
/// origin, they read as when no hand-over runs: at the item's own attribute, from its
/// expansion (so the lints that leave macro output alone still do). The tokens that came
/// from the user keep their spans.
fn at_origin(out: TokenStream, origin: Span) -> TokenStream {
    // `Span` has no equality; its `Debug` (the expansion context and the byte range) tells
    // the call site's tokens apart.
    let call_site = format!("{:?}", Span::call_site());
    respan(out, &call_site, origin)
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
