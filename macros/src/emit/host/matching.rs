//! The patterns of a `match` as the simulator's Rust writes them.

use super::*;

/// A pattern of an integer or bool `match`, its integers suffixed with the scrutinee's type.
pub(super) fn match_pat(sc: &Scope, p: &MatchPat, s: Scalar) -> TokenStream {
    let int = |i: &PatInt| {
        if let Some(path) = &i.konst {
            return path_from_module(sc, path);
        }
        let l = syn::LitInt::new(
            &format!("{}{}", i.value.unsigned_abs(), s.rust_name()),
            i.span,
        );
        if i.value < 0 {
            quote!(-#l)
        } else {
            quote!(#l)
        }
    };
    match p {
        MatchPat::Any => quote!(_),
        MatchPat::Const(path) => path_from_module(sc, path),
        MatchPat::Bool(b, span) => quote_spanned!(*span=> #b),
        MatchPat::Int(i) => int(i),
        MatchPat::Range {
            lo, hi, inclusive, ..
        } => {
            let (lo, hi) = (lo.as_ref().map(int), hi.as_ref().map(int));
            if *inclusive {
                quote!(#lo..=#hi)
            } else {
                quote!(#lo..#hi)
            }
        }
    }
}

/// `n` or `mut n` binding a `match` arm's value.
pub(super) fn binding(b: &Binding) -> TokenStream {
    let n = &b.name;
    if b.mutable {
        quote!(mut #n)
    } else {
        quote!(#n)
    }
}
