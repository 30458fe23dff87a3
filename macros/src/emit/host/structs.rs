//! The simulator's Rust for `#[gpu_struct]` values: literals as written, the type of a
//! struct by the path the function names it by, and writes to a field of a slice element
//! (`out[i].x = v` is a load, the field's write and a store of the element: simulated
//! memory is reached only through the slice handles).

use super::{hyg, path_from_module, rust_ty, site, RustWriter, Scope};
use crate::ir::ast::*;
use crate::ir::structs;
use crate::ir::ty::{Scalar, Ty};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};

/// The Rust type of struct `s`: the path the function names it by, or `_` for a struct
/// it only reaches through a field (rustc knows it from the value).
pub(super) fn struct_ty(sc: &Scope, s: Scalar) -> TokenStream {
    let Scalar::Struct(id) = s else {
        return quote!(_);
    };
    match structs::def(sc.structs, id).and_then(|d| d.path.as_ref()) {
        Some(p) => with_args(sc, p, id.args),
        None => quote!(_),
    }
}

/// `path` from the module (`super::Params`), with the arguments `args` of an instance of
/// a generic struct (`::<f32>`; `::<T>` in a generic function's simulator body, where
/// the instance's path has `f32`).
fn with_args(sc: &Scope, path: &syn::Path, args: &[Scalar]) -> TokenStream {
    let p = path_from_module(sc, path);
    if args.is_empty() {
        return p;
    }
    let args = args.iter().map(|a| super::scalar_ty(sc, *a));
    quote!(#p::<#(#args),*>)
}

/// The C definitions of the structs the function names: dependencies of its source. A
/// generic function's instances name different instances of a generic struct, so all of
/// them are (in C, a struct of its own each), as where a literal leaves the instance to
/// the type checker.
pub(super) fn struct_deps(sc: &Scope) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for (i, d) in sc.structs.iter().enumerate() {
        let Some(p) = &d.path else { continue };
        let here = structs::scalar(sc.structs, i);
        // A generic struct named without arguments (a literal's): the type checker
        // inferred its instance, any of them.
        let all = if sc.is_generic() || d.generic.is_some() {
            structs::siblings(sc.structs, here)
        } else {
            vec![here]
        };
        for s in all {
            let p = match s {
                Scalar::Struct(id) => with_args(sc, p, id.args),
                _ => path_from_module(sc, p),
            };
            let dep = quote!(<#p as ::warpspeed::GpuStruct>::ITEM);
            if !out
                .iter()
                .any(|o: &TokenStream| o.to_string() == dep.to_string())
            {
                out.push(dep);
            }
        }
    }
    out
}

impl RustWriter<'_> {
    /// `Params { dt: .., n: .. }`, fields in the order written.
    pub(super) fn struct_lit(&self, e: &Expr, lit: &StructLit) -> TokenStream {
        // A generic struct's arguments are rustc's to infer from the fields (an instance's
        // `Params::<f32>` would not be a generic body's `Params::<T>`).
        let mut path = lit.path.clone();
        if let (Scalar::Struct(id), Some(last)) = (lit.ty, path.segments.last_mut()) {
            if !id.args.is_empty() {
                last.arguments = syn::PathArguments::None;
            }
        }
        let path = path_from_module(self.sc, &path);
        let fields = lit.fields.iter().map(|(n, v)| {
            let v = self.expr(v);
            quote!(#n: #v)
        });
        let span = e.span;
        quote_spanned!(span=> #path { #(#fields),* })
    }

    /// A place inside an element of a slice (`out[i].x`, `out[i].v[k]`): the slice, the
    /// index, and the rest of the place as applied to the element.
    fn elem_place<'e>(
        &self,
        place: &'e Expr,
        elem: &Ident,
    ) -> Option<(&'e Expr, &'e Expr, TokenStream)> {
        let mut path = Vec::new();
        let mut cur = place;
        loop {
            match &cur.kind {
                ExprKind::Field(b, m) => {
                    path.push(match m {
                        Member::Named(n) => {
                            let n = Ident::new(n, cur.span);
                            quote!(.#n)
                        }
                        Member::Index(i) => {
                            let i = syn::Index::from(*i as usize);
                            quote!(.#i)
                        }
                    });
                    cur = b;
                }
                ExprKind::Index(b, i) if matches!(self.ty(b), Ty::Slice(..)) => {
                    if path.is_empty() {
                        return None;
                    }
                    path.reverse();
                    return Some((b, i, quote!(#elem #(#path)*)));
                }
                ExprKind::Index(b, i) => {
                    let i = self.expr(i);
                    path.push(quote!([#i]));
                    cur = b;
                }
                _ => return None,
            }
        }
    }

    /// `out[i].x = v` / `out[i].x += v`: the element loaded, its field updated by `update`
    /// (given the field as a place), the element stored; `None` when `place` is no field
    /// of a slice element.
    pub(super) fn elem_field_write(
        &self,
        e: &Expr,
        place: &Expr,
        value: &Expr,
        update: impl Fn(TokenStream, TokenStream) -> TokenStream,
    ) -> Option<TokenStream> {
        let elem = hyg("__elem");
        let (slice, idx, field) = self.elem_place(place, &elem)?;
        let span = e.span;
        let v = self.expr(value);
        let vt = rust_ty(self.sc, self.ty(value));
        let (b, i) = (self.expr(slice), self.expr(idx));
        let (ctx, at) = (hyg("__ctx"), site(e));
        let (val, index) = (hyg("__value"), hyg("__index"));
        let set = update(field, quote!(#val));
        Some(quote_spanned!(span=> {
            let #val: #vt = #v;
            let #index: usize = #i;
            let mut #elem = #b.load(#ctx, #index, #at);
            #set;
            #b.store(#ctx, #index, #elem, #at);
        }))
    }
}
