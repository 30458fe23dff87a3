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
        Some(p) => path_from_module(sc, p),
        None => quote!(_),
    }
}

/// The C definitions of the structs the function names: dependencies of its source.
pub(super) fn struct_deps(sc: &Scope) -> Vec<TokenStream> {
    structs::named(sc.structs)
        .iter()
        .map(|p| {
            let p = path_from_module(sc, p);
            quote!(<#p as ::warpspeed::GpuStruct>::ITEM)
        })
        .collect()
}

impl RustWriter<'_> {
    /// `Params { dt: .., n: .. }`, fields in the order written.
    pub(super) fn struct_lit(&self, e: &Expr, lit: &StructLit) -> TokenStream {
        let path = path_from_module(self.sc, &lit.path);
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
