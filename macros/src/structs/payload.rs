//! The definitions a `#[gpu_struct]`'s macro hands to the macros that use the struct, as
//! tokens: `{ Params { dt: f32, v: [f32; 3], pos: Vec3 } Vec3 { x: f32, y: f32, z: f32 } }`
//! — the struct first, then every struct it holds (field types by the name of their
//! definition). Written by `define.rs`, read by `resolved.rs`.

use crate::ir::structs::{FieldDef, StructDef};
use crate::ir::ty::{Len, Scalar, Ty};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::quote;

/// The payload of `defs`, `defs[first]` first (the struct whose macro this is).
pub fn write(defs: &[StructDef], first: usize) -> TokenStream {
    let order = std::iter::once(first).chain((0..defs.len()).filter(|i| *i != first));
    let items = order.map(|i| &defs[i]).map(|d| {
        let name = Ident::new(&d.names[0], Span::call_site());
        let fields = d.fields.iter().map(|f| {
            let n = Ident::new(&f.name, Span::call_site());
            let t = write_ty(&f.ty, defs);
            quote!(#n: #t)
        });
        quote!(#name { #(#fields),* })
    });
    quote!({ #(#items)* })
}

fn write_ty(t: &Ty, defs: &[StructDef]) -> TokenStream {
    match t {
        Ty::Scalar(Scalar::Struct(id)) => {
            let n = Ident::new(&defs[id.index as usize].names[0], Span::call_site());
            quote!(#n)
        }
        Ty::Scalar(s) => {
            let n = Ident::new(s.rust_name(), Span::call_site());
            quote!(#n)
        }
        Ty::Array(e, Len::Lit(n)) => {
            let e = write_ty(e, defs);
            let n = proc_macro2::Literal::u64_unsuffixed(*n);
            quote!([#e; #n])
        }
        _ => quote!(()),
    }
}

/// Reads a payload group, appending its definitions to `known` (those already known, by
/// name, are skipped); the index in `known` of its first definition, which `requested`
/// (the name the user's path ends in) also names. `None` on a malformed payload.
pub fn read(group: &Group, requested: &str, known: &mut Vec<StructDef>) -> Option<usize> {
    let toks: Vec<TokenTree> = group.stream().into_iter().collect();
    let mut parsed: Vec<(String, Vec<(String, TokenStream)>)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (TokenTree::Ident(name), Some(TokenTree::Group(body))) = (&toks[i], toks.get(i + 1))
        else {
            return None;
        };
        if body.delimiter() != Delimiter::Brace {
            return None;
        }
        let fields: syn::FieldsNamed = syn::parse2(TokenTree::Group(body.clone()).into()).ok()?;
        let fields = fields
            .named
            .iter()
            .map(|f| {
                let ty = &f.ty;
                (
                    f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                    quote!(#ty),
                )
            })
            .collect();
        parsed.push((name.to_string(), fields));
        i += 2;
    }
    // Names first, so fields may refer to any struct of the payload.
    let mut first = None;
    let mut ids = Vec::new();
    for (name, _) in &parsed {
        let id = match known.iter().position(|d| d.names.contains(name)) {
            Some(id) => (id, false),
            None => {
                known.push(StructDef {
                    names: vec![name.clone()],
                    fields: Vec::new(),
                    path: None,
                });
                (known.len() - 1, true)
            }
        };
        first.get_or_insert(id.0);
        ids.push(id);
    }
    for ((_, fields), (id, new)) in parsed.iter().zip(&ids) {
        if !new {
            continue;
        }
        let mut out = Vec::new();
        for (n, t) in fields {
            let ty: syn::Type = syn::parse2(t.clone()).ok()?;
            out.push(FieldDef {
                name: n.clone(),
                ty: read_ty(&ty, known)?,
            });
        }
        known[*id].fields = out;
    }
    let first = first?;
    if !known[first].names.iter().any(|n| n == requested) {
        known[first].names.push(requested.to_string());
    }
    Some(first)
}

fn read_ty(t: &syn::Type, known: &[StructDef]) -> Option<Ty> {
    match t {
        syn::Type::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            if let Some(s) = Scalar::from_name(&name) {
                return Some(Ty::Scalar(s));
            }
            let id = known.iter().position(|d| d.names.contains(&name))?;
            Some(Ty::Scalar(crate::ir::structs::scalar(known, id)))
        }
        syn::Type::Array(a) => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) = &a.len
            else {
                return None;
            };
            Some(Ty::Array(
                Box::new(read_ty(&a.elem, known)?),
                Len::Lit(n.base10_parse().ok()?),
            ))
        }
        _ => None,
    }
}
