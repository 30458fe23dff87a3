//! One instance of a generic function as a plain function: each type parameter replaced by
//! its type (`T` -> `f32` in types, `SharedArray::<T, B>`, `[T; 4]`), and the traits'
//! conversions written as the concrete kernel language spells them:
//! `T::from_f32(v)` -> `({ let v: f32 = v; v } as f32)` (the `let` keeps the argument's
//! type what the trait says), `T::zero()`/`T::one()` -> `T::from_i32(0/1)`,
//! `x.to_usize()` -> `(x as usize)`; for `f16` and `bf16`, which have no `as`, through
//! `f16::from_f32`/`f16::from_f64` and `to_f32`. Const parameters stay: a capitalised
//! name is a constant, whose value the launch gives the C (see `generics::emit`).

use crate::ctxt::Ctxt;
use crate::ir::ty::Scalar;
use proc_macro2::{Ident, Span};
use quote::{quote_spanned, ToTokens};
use syn::visit_mut::VisitMut;

/// The conversions into a type parameter (`T::from_f32`), with the argument's type.
const FROM: [(&str, Scalar); 7] = [
    ("from_f32", Scalar::F32),
    ("from_f64", Scalar::F64),
    ("from_i32", Scalar::I32),
    ("from_u32", Scalar::U32),
    ("from_i64", Scalar::I64),
    ("from_u64", Scalar::U64),
    ("from_usize", Scalar::Usize),
];

/// The conversions out of a number (`x.to_usize()`), with the result's type.
const TO: [(&str, Scalar); 7] = [
    ("to_f32", Scalar::F32),
    ("to_f64", Scalar::F64),
    ("to_i32", Scalar::I32),
    ("to_u32", Scalar::U32),
    ("to_i64", Scalar::I64),
    ("to_u64", Scalar::U64),
    ("to_usize", Scalar::Usize),
];

/// The names a type parameter's path may call (for the error on the others).
pub fn conversion_names() -> String {
    let mut names: Vec<&str> = vec!["zero", "one"];
    names.extend(FROM.iter().map(|(n, _)| *n));
    names.join("`, `")
}

/// Checks what no instance can make valid (reported once, not per instance): `as T`, and
/// paths through `T` other than the conversions.
pub fn check(cx: &Ctxt, item: &syn::ItemFn, params: &[Ident]) {
    struct Check<'a> {
        cx: &'a Ctxt,
        params: &'a [Ident],
    }
    impl syn::visit::Visit<'_> for Check<'_> {
        fn visit_expr(&mut self, e: &syn::Expr) {
            match e {
                syn::Expr::Cast(c) if type_param(&c.ty, self.params).is_some() => {
                    self.cx.error_spanned_by(
                        &c.ty,
                        format!("Rust has no `as` to a type parameter: convert with `{0}::from_f32(x)`, `{0}::from_usize(x)`, ... (or `{0}::zero()`, `{0}::one()`)", c.ty.to_token_stream()),
                    );
                }
                syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() > 1 => {
                    let first = &p.path.segments[0].ident;
                    if self.params.contains(first) {
                        let name = &p.path.segments[1].ident;
                        let known =
                            name == "zero" || name == "one" || FROM.iter().any(|(n, _)| name == n);
                        if !known {
                            self.cx.error_spanned_by(
                                p,
                                format!("a type parameter offers `{first}::{}`, no `{first}::{name}`: its constants and other items differ per type", conversion_names()),
                            );
                        }
                    }
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    syn::visit::Visit::visit_item_fn(&mut Check { cx, params }, item);
}

/// The instance of `item` with `params[i]` = `types[i]`, named `name`.
pub fn instance(
    item: &syn::ItemFn,
    params: &[Ident],
    types: &[Scalar],
    name: Ident,
) -> syn::ItemFn {
    let mut item = item.clone();
    // Const parameters stay names (constants); type parameters are gone.
    item.sig.generics = syn::Generics::default();
    item.sig.ident = name;
    let mut s = Subst { params, types };
    s.visit_item_fn_mut(&mut item);
    item
}

struct Subst<'a> {
    params: &'a [Ident],
    types: &'a [Scalar],
}

/// The type parameter a type names (`T`), if it is one.
fn type_param(t: &syn::Type, params: &[Ident]) -> Option<usize> {
    let syn::Type::Path(p) = t else { return None };
    let id = p.path.get_ident().filter(|_| p.qself.is_none())?;
    params.iter().position(|n| n == id)
}

/// The generic arguments of a call of a device function (`lerp::<T>(..)`); not of the
/// intrinsics that take types (`dynamic_shared::<T>()`), which are the kernel's own.
/// `any`: also where the call has none (to put them back after the visit).
fn turbofish_of_call(e: &mut syn::Expr, any: bool) -> Option<&mut syn::PathArguments> {
    let syn::Expr::Call(call) = e else {
        return None;
    };
    let syn::Expr::Path(p) = &mut *call.func else {
        return None;
    };
    let last = p.path.segments.last_mut()?;
    let intrinsic =
        ["dynamic_shared", "tiled_partition"].contains(&last.ident.to_string().as_str());
    (!intrinsic && (any || matches!(last.arguments, syn::PathArguments::AngleBracketed(_))))
        .then_some(&mut last.arguments)
}

/// `0.5` as `0.5f32` where the argument's type is `f32` (`-0.5`, `2` as `2i32` likewise):
/// a literal Rust would give that type, written with it. `None` for anything else.
fn typed_literal(e: &syn::Expr, ty: Scalar) -> Option<proc_macro2::TokenStream> {
    let (neg, lit) = match e {
        syn::Expr::Lit(l) => (false, &l.lit),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
            syn::Expr::Lit(l) => (true, &l.lit),
            _ => return None,
        },
        _ => return None,
    };
    let suffix = ty.rust_name();
    let minus = if neg {
        quote::quote!(-)
    } else {
        quote::quote!()
    };
    match lit {
        syn::Lit::Float(f) if ty.is_float() && (f.suffix().is_empty() || f.suffix() == suffix) => {
            let l = syn::LitFloat::new(&format!("{}{suffix}", f.base10_digits()), f.span());
            Some(quote::quote!((#minus #l)))
        }
        syn::Lit::Int(i) if ty.is_int() && (i.suffix().is_empty() || i.suffix() == suffix) => {
            let l = syn::LitInt::new(&format!("{}{suffix}", i.base10_digits()), i.span());
            Some(quote::quote!((#minus #l)))
        }
        _ => None,
    }
}

fn scalar_type(s: Scalar, span: Span) -> syn::Type {
    let id = Ident::new(s.rust_name(), span);
    syn::parse_quote!(#id)
}

impl Subst<'_> {
    fn index(&self, id: &Ident) -> Option<usize> {
        self.params.iter().position(|n| n == id)
    }

    /// `T::from_f32(v)` and friends, for the instance `to`.
    fn from(&self, to: Scalar, arg_ty: Scalar, arg: &syn::Expr, span: Span) -> syn::Expr {
        let a = Ident::new(arg_ty.rust_name(), span);
        let v = Ident::new("ws_generic_value", span);
        // A literal takes the type as its suffix; anything else through a typed `let`.
        let typed = match typed_literal(arg, arg_ty) {
            Some(lit) => lit,
            None => quote_spanned!(span=> ({ let #v: #a = #arg; #v })),
        };
        let tokens = if to.is_half_float() {
            // `f16::from_f32(..)` or `bf16::from_f32(..)`: the intrinsics, by name.
            let h = Ident::new(to.rust_name(), span);
            match arg_ty {
                Scalar::F32 => quote_spanned!(span=> #h::from_f32(#typed)),
                Scalar::F64 => quote_spanned!(span=> #h::from_f64(#typed)),
                // Through f64: exact for every integer f16 does not overflow on; for bf16
                // an integer above 2^53 rounds twice (to f64, then to bf16), on both
                // backends alike.
                _ => quote_spanned!(span=> #h::from_f64(#typed as f64)),
            }
        } else {
            let t = Ident::new(to.rust_name(), span);
            quote_spanned!(span=> (#typed as #t))
        };
        syn::parse2(tokens).unwrap_or_else(|_| arg.clone())
    }
}

impl VisitMut for Subst<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let Some(i) = type_param(t, self.params) {
            let span = t
                .to_token_stream()
                .into_iter()
                .next()
                .map_or(Span::call_site(), |t| t.span());
            *t = scalar_type(self.types[i], span);
            return;
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // A generic device function's turbofish (`lerp::<T>(..)`) stays as written: the
        // simulator body (written from an instance) passes it on, and the C ignores it.
        let kept = turbofish_of_call(e, false).map(std::mem::take);
        // Inner expressions first: `T::from_f32(x.to_f32())` rewrites both.
        syn::visit_mut::visit_expr_mut(self, e);
        if let (Some(kept), Some(slot)) = (kept, turbofish_of_call(e, true)) {
            *slot = kept;
        }
        match e {
            syn::Expr::Call(call) => {
                let syn::Expr::Path(p) = &*call.func else {
                    return;
                };
                if p.qself.is_some() || p.path.segments.len() != 2 {
                    return;
                }
                let Some(i) = self.index(&p.path.segments[0].ident) else {
                    return;
                };
                let to = self.types[i];
                let name = p.path.segments[1].ident.to_string();
                let span = p.path.segments[1].ident.span();
                let (arg_ty, arg): (Scalar, syn::Expr) = match (name.as_str(), call.args.len()) {
                    ("zero", 0) => (Scalar::I32, syn::parse_quote_spanned!(span=> 0i32)),
                    ("one", 0) => (Scalar::I32, syn::parse_quote_spanned!(span=> 1i32)),
                    (n, 1) => match FROM.iter().find(|(f, _)| *f == n) {
                        Some((_, s)) => (*s, call.args[0].clone()),
                        None => return,
                    },
                    _ => return,
                };
                *e = self.from(to, arg_ty, &arg, span);
            }
            syn::Expr::MethodCall(m) if m.args.is_empty() && m.turbofish.is_none() => {
                let name = m.method.to_string();
                let Some((_, to)) = TO.iter().find(|(n, _)| *n == name) else {
                    return;
                };
                let span = m.method.span();
                let t = Ident::new(to.rust_name(), span);
                let recv = &m.receiver;
                // An `f16` or `bf16` instance converts through `to_f32` (exact); the others
                // with `as`.
                let f16 = self.types.iter().any(|s| s.is_half_float());
                let tokens = match (f16, *to) {
                    (true, Scalar::F32 | Scalar::F64) => return,
                    (true, _) => quote_spanned!(span=> ((#recv).to_f32() as #t)),
                    (false, _) => quote_spanned!(span=> ((#recv) as #t)),
                };
                if let Ok(new) = syn::parse2(tokens) {
                    *e = new;
                }
            }
            _ => {}
        }
    }
}
