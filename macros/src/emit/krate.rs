//! The path generated code names the facade by: `::warpspeed`, or the one a crate gives
//! (`#[gpu_kernel(crate = "::ws")]`, as serde's `#[serde(crate = "..")]`), for a crate
//! that depends on warpspeed under another name or re-exports it (`my_lib::warpspeed`).
//!
//! The emitters and the tables write `::warpspeed::..` (a path from the crate root, never
//! a bare `warpspeed::`); `rename` puts the crate's path in its place on a whole
//! expansion, once, where each macro returns (`structs::resolve`, `structs::define`). So
//! the default expansion is the emitters' own tokens, unchanged, and no emitter needs the
//! path as an argument: a new `::warpspeed::..` in any emitter follows the option too.

use proc_macro2::{Group, TokenStream, TokenTree};

/// The value of `crate = ".."` among a macro's options, as the path's tokens; `None`
/// where there is none (or it is no path: `front::parse_args` and `structs::define`
/// report that).
pub fn from_args(args: &TokenStream) -> Option<TokenStream> {
    let toks: Vec<TokenTree> = args.clone().into_iter().collect();
    toks.windows(3).find_map(|w| match w {
        [TokenTree::Ident(k), TokenTree::Punct(eq), TokenTree::Literal(lit)]
            if k == "crate" && eq.as_char() == '=' =>
        {
            let lit: syn::LitStr = syn::parse2(TokenTree::Literal(lit.clone()).into()).ok()?;
            let path: syn::Path = lit.parse().ok()?;
            Some(quote::quote!(#path))
        }
        _ => None,
    })
}

/// Checks a `crate = ".."` option's value: a path (`::ws`, `my_lib::warpspeed`).
pub fn parse_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    let lit: syn::LitStr = meta.value()?.parse()?;
    lit.parse::<syn::Path>().map(drop).map_err(|_| {
        syn::Error::new(
            lit.span(),
            "`crate = \"..\"` takes the path your crate names warpspeed by: `crate = \"::ws\"`, `crate = \"my_lib::warpspeed\"`",
        )
    })
}

/// `ts` with every `::warpspeed` that starts a path replaced by `path` (unchanged where
/// `path` is `None`).
pub fn rename(ts: TokenStream, path: Option<&TokenStream>) -> TokenStream {
    match path {
        Some(path) => replace(ts, path),
        None => ts,
    }
}

fn replace(ts: TokenStream, path: &TokenStream) -> TokenStream {
    let toks: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if starts_facade_path(&toks, i) {
            out.extend(path.clone());
            i += 3;
            continue;
        }
        out.push(match &toks[i] {
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), replace(g.stream(), path));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            t => t.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// `:: warpspeed` at `i`, at the start of a path: not the tail of `a::warpspeed` (nor of
/// `<T as Tr>::warpspeed`), so a path put in once is never renamed again.
fn starts_facade_path(toks: &[TokenTree], i: usize) -> bool {
    let colon =
        |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let is_facade = colon(toks.get(i))
        && colon(toks.get(i + 1))
        && matches!(toks.get(i + 2), Some(TokenTree::Ident(id)) if id == "warpspeed");
    if !is_facade || i == 0 {
        return is_facade;
    }
    match &toks[i - 1] {
        // `a::warpspeed`; a keyword or a lifetime (`&'a ::warpspeed::X`) before a type or
        // an expression starts one.
        TokenTree::Ident(id) => {
            let lifetime =
                i >= 2 && matches!(&toks[i - 2], TokenTree::Punct(q) if q.as_char() == '\'');
            lifetime || KEYWORDS.contains(&id.to_string().as_str())
        }
        // `<T as Tr>::warpspeed`; but `-> ::warpspeed::X` and `=> ::warpspeed::f()` start one.
        TokenTree::Punct(p) if p.as_char() == '>' => {
            i >= 2
                && matches!(&toks[i - 2], TokenTree::Punct(q) if matches!(q.as_char(), '-' | '='))
        }
        _ => true,
    }
}

/// The keywords a path may follow.
const KEYWORDS: &[&str] = &[
    "as", "in", "mut", "dyn", "impl", "return", "for", "where", "let", "const", "static", "type",
    "break", "else", "match", "if", "while", "move", "ref", "unsafe", "pub", "use",
];

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn renames_paths_from_the_root_only() {
        let path = from_args(&quote!(fast_math, crate = "::ws")).expect("a path");
        let ts = quote!(
            fn f<'a>(c: &'a ::warpspeed::Ctx<'a>) -> ::warpspeed::f16 {
                <T as ::warpspeed::GpuStruct>::X;
                a::warpspeed::b;
                ::warpspeed::__gpu_resolved! { ::warpspeed::f32x4 }
            }
        );
        let want = quote!(
            fn f<'a>(c: &'a ::ws::Ctx<'a>) -> ::ws::f16 {
                <T as ::ws::GpuStruct>::X;
                a::warpspeed::b;
                ::ws::__gpu_resolved! { ::ws::f32x4 }
            }
        );
        assert_eq!(
            rename(ts.clone(), Some(&path)).to_string(),
            want.to_string()
        );
        assert_eq!(rename(ts.clone(), None).to_string(), ts.to_string());
        let nested = from_args(&quote!(crate = "my_lib::warpspeed")).expect("a path");
        let once = rename(quote!(::warpspeed::Device), Some(&nested));
        assert_eq!(
            once.to_string(),
            quote!(my_lib::warpspeed::Device).to_string()
        );
        assert!(from_args(&quote!(crate = "not a path")).is_none());
    }
}
