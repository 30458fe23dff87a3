//! Module-level constants on the Rust side: their values as the simulator reads them
//! (rustc checking the type), the `__consts` function that gives the C their values, and
//! array lengths that name them.

use super::*;

/// An array length as Rust: the literal, or the constant's path from inside the module
/// (rustc requires a `usize` there, which is the type the macro gave it).
pub(super) fn len_rust(sc: &Scope, n: &Len) -> TokenStream {
    match n {
        Len::Lit(n) => {
            let n = *n as usize;
            quote!(#n)
        }
        Len::Const(c) => match syn::parse_str::<syn::Expr>(&c.path) {
            // On the user's tokens, so rustc's "expected `usize`" points at the constant.
            Ok(e) => expr_from_module(sc, &e)
                .into_iter()
                .map(|mut t| {
                    t.set_span(c.span);
                    t
                })
                .collect(),
            Err(_) => quote!(0usize),
        },
    }
}

/// A module-level constant's value as the simulator reads it, rustc checking its type:
/// `identity::<u32>(super::N)`, or `(super::N as f32)` for a constant converted where
/// the macro does not know its type.
pub(super) fn const_value(sc: &Scope, c: &ConstInfo, span: Span) -> TokenStream {
    let p = expr_from_module(sc, &c.expr);
    match (c.cast, &c.ty) {
        (Some(to), _) => {
            let to = scalar_ty(sc, to);
            quote_spanned!(span=> ((#p) as #to))
        }
        (None, t) => {
            let t = rust_ty(sc, t);
            quote_spanned!(span=> ::core::convert::identity::<#t>(#p))
        }
    }
}

/// `fn __consts() -> String`: the C macros of the module-level constants the function
/// names and of the constants its calls pass as const generic arguments (`ws_g0`), their
/// values read when the program is assembled (see `c_const`).
pub(super) fn consts_fn(sc: &Scope, f: &Function, types: &Types) -> (TokenStream, TokenStream) {
    consts_fn_named(
        sc,
        f,
        types,
        &format_ident!("__consts"),
        &quote!(),
        &quote!(),
    )
}

/// [`consts_fn`] under another name, generic over a generic function's parameters
/// (`decl` = `<T: ::warpspeed::Float, const B: usize>`, `args` = `::<T, B>`), whose const
/// parameters it reads as constants. A const-generic device function's own const
/// parameters are its C template's, not values (`emit::cuda::const_param_macros`).
pub(super) fn consts_fn_named(
    sc: &Scope,
    f: &Function,
    types: &Types,
    name: &Ident,
    decl: &TokenStream,
    args: &TokenStream,
) -> (TokenStream, TokenStream) {
    let value = |e: &syn::Expr, cast: Option<Scalar>| {
        let p = expr_from_module(sc, e);
        match cast {
            Some(to) => {
                let to = scalar_ty(sc, to);
                quote!(((#p) as #to))
            }
            None => p,
        }
    };
    // The value's type is the macro's, checked as the simulator body checks it, with the
    // same tokens: rustc reports a wrong type once (`let n: u32 = NAME;` of a `&str`), not
    // once more as "`&str` cannot be a kernel's constant".
    let mut defs: Vec<TokenStream> = types
        .consts
        .iter()
        .enumerate()
        .filter(|(_, c)| crate::emit::cuda::const_param_of(f, &c.expr).is_none())
        .map(|(i, c)| {
            let name = c.c_name();
            // Only a constant the simulator reads as a value (not one only an array's
            // length names) is checked there.
            let read = types.const_uses.values().any(|&u| u == i);
            let v = match (c.cast, c.ty.scalar()) {
                (None, Some(s)) if read && (s.is_int() || s.is_float() || s == Scalar::Bool) => {
                    let span = c.expr.span();
                    const_value(sc, c, span)
                }
                _ => value(&c.expr, c.cast),
            };
            quote!(s.push_str(&::warpspeed::__private::c_const(#name, #v));)
        })
        .collect();
    // A const generic argument's type is the callee's parameter's, which rustc checks in
    // the simulator body; the C template converts the value.
    defs.extend(f.generic_args.iter().enumerate().map(|(i, e)| {
        let name = crate::emit::cuda::const_arg_c(&ConstArg::Value(i));
        let v = value(e, None);
        quote!(s.push_str(&::warpspeed::__private::c_const(#name, #v));)
    }));
    if defs.is_empty() {
        return (quote!(), quote!(::core::option::Option::None));
    }
    let f = quote! {
        fn #name #decl () -> ::std::string::String {
            let mut s = ::std::string::String::new();
            #(#defs)*
            s
        }
    };
    (
        f,
        quote!(::core::option::Option::Some(#name #args as fn() -> ::std::string::String)),
    )
}

/// A constant expression (`N`, `2 * config::N`, see `parse::const_expr`) as seen from
/// inside the generated module: each path through [`path_from_module`].
pub(super) fn expr_from_module(sc: &Scope, e: &syn::Expr) -> TokenStream {
    match e {
        syn::Expr::Path(p) => path_from_module(sc, &p.path),
        syn::Expr::Paren(p) => {
            let inner = expr_from_module(sc, &p.expr);
            quote!((#inner))
        }
        syn::Expr::Group(g) => expr_from_module(sc, &g.expr),
        syn::Expr::Cast(c) => {
            let (inner, ty) = (expr_from_module(sc, &c.expr), &c.ty);
            quote!((#inner as #ty))
        }
        syn::Expr::Binary(b) => {
            let (l, op, r) = (
                expr_from_module(sc, &b.left),
                &b.op,
                expr_from_module(sc, &b.right),
            );
            quote!((#l #op #r))
        }
        other => quote!(#other),
    }
}
