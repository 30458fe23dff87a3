//! The definitions a `#[gpu_struct]`'s macro hands to the macros that use the struct, as
//! tokens: `{ Params { dt: f32, v: [f32; 3], pos: Vec3 } Vec3 { x: f32, y: f32, z: f32 } }`
//! — the struct first, then every struct it holds (field types by the name of their
//! definition). A generic struct carries its parameters in brackets and its fields as
//! written (`Pair [T: Float] { a: Vec2<T>, n: u32 }`); its instances are made again by the
//! reader (`generic.rs`), so they are not written. Written by `define.rs`, read by
//! `resolved.rs`.

use crate::ir::structs::{FieldDef, Generic, StructDef};
use crate::ir::ty::{Len, Scalar, Ty};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::quote;

/// The payload of `defs`, `defs[first]` first (the struct whose macro this is).
pub fn write(defs: &[StructDef], first: usize) -> TokenStream {
    let order = std::iter::once(first).chain((0..defs.len()).filter(|i| *i != first));
    let items = order
        .map(|i| &defs[i])
        .filter(|d| d.instance.is_none())
        .map(|d| {
            let name = Ident::new(&d.names[0], Span::call_site());
            if let Some(g) = &d.generic {
                let params = g.params.iter().map(|(p, b, _)| {
                    let (p, b) = (
                        Ident::new(p, Span::call_site()),
                        Ident::new(b, Span::call_site()),
                    );
                    quote!(#p: #b)
                });
                let fields = g.fields.iter().map(|(n, t)| {
                    let n = Ident::new(n, Span::call_site());
                    quote!(#n: #t)
                });
                return quote!(#name [#(#params),*] { #(#fields),* });
            }
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
            let d = &defs[id.index as usize];
            if let Some((g, args)) = &d.instance {
                let n = Ident::new(&defs[*g].names[0], Span::call_site());
                let args = args.iter().map(|a| write_ty(&Ty::Scalar(*a), defs));
                return quote!(#n<#(#args),*>);
            }
            let n = Ident::new(&d.names[0], Span::call_site());
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

/// Type parameters: each one's name, bound and the bound's types.
type ParamList = Vec<(String, String, Vec<Scalar>)>;

/// One struct of a payload as read: its name, its parameters (a generic struct's) and its
/// fields as written.
type Parsed = (String, Option<ParamList>, Vec<(String, TokenStream)>);

/// Reads a payload group, appending its definitions to `known` (those already known, by
/// name, are skipped); the index in `known` of its first definition, which `requested`
/// (the name the user's path ends in) also names. `None` on a malformed payload.
pub fn read(group: &Group, requested: &str, known: &mut Vec<StructDef>) -> Option<usize> {
    let toks: Vec<TokenTree> = group.stream().into_iter().collect();
    let mut parsed: Vec<Parsed> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let TokenTree::Ident(name) = &toks[i] else {
            return None;
        };
        let mut params = None;
        if let Some(TokenTree::Group(g)) = toks.get(i + 1) {
            if g.delimiter() == Delimiter::Bracket {
                params = Some(read_params(g)?);
                i += 1;
            }
        }
        let Some(TokenTree::Group(body)) = toks.get(i + 1) else {
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
        parsed.push((name.to_string(), params, fields));
        i += 2;
    }
    // Names first, so fields may refer to any struct of the payload; then the generic
    // structs' fields as written, so plain fields may name their instances.
    let mut first = None;
    let mut ids = Vec::new();
    for (name, _, _) in &parsed {
        let id = match known.iter().position(|d| d.names.contains(name)) {
            Some(id) => (id, false),
            None => {
                known.push(StructDef {
                    names: vec![name.clone()],
                    ..Default::default()
                });
                (known.len() - 1, true)
            }
        };
        first.get_or_insert(id.0);
        ids.push(id);
    }
    let mut plain = Vec::new();
    for ((_, params, fields), (id, new)) in parsed.iter().zip(&ids) {
        if !new {
            continue;
        }
        let mut typed = Vec::new();
        for (n, t) in fields {
            typed.push((n.clone(), syn::parse2::<syn::Type>(t.clone()).ok()?));
        }
        match params {
            Some(params) => {
                known[*id].generic = Some(Generic {
                    params: params.clone(),
                    fields: typed,
                })
            }
            None => plain.push((*id, typed)),
        }
    }
    for (id, fields) in plain {
        let mut out = Vec::new();
        for (n, ty) in fields {
            out.push(FieldDef {
                name: n,
                ty: super::generic::field_ty(&ty, known, &[])?,
            });
        }
        known[id].fields = out;
    }
    super::generic::instantiate_all(known)?;
    let first = first?;
    if !known[first].names.iter().any(|n| n == requested) {
        known[first].names.push(requested.to_string());
    }
    Some(first)
}

/// `[T: Float, U: Int]`: each parameter's name, bound and the bound's types.
fn read_params(g: &Group) -> Option<ParamList> {
    let toks: Vec<TokenTree> = g.stream().into_iter().collect();
    toks.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .filter(|p| !p.is_empty())
        .map(|p| match p {
            [TokenTree::Ident(n), TokenTree::Punct(c), TokenTree::Ident(b)]
                if c.as_char() == ':' =>
            {
                let b = b.to_string();
                let types = super::generic::bound_types(&b)?;
                Some((n.to_string(), b, types))
            }
            _ => None,
        })
        .collect()
}
