//! `#[gpu_struct]`: the struct, made `#[repr(C)]`; its C definition with layout checks (a
//! `SourceItem` kernels depend on); the runtime traits (`KernelScalar`, `GpuStruct`) that
//! let it be a kernel argument and a `DeviceBuffer` element; and a `macro_rules!` named
//! like the struct (macros and types live in different namespaces, so `use a::Params;`
//! imports both) that hands the struct's definition to the macros that use it.

use crate::ctxt::Ctxt;
use crate::ir::structs::{self, FieldDef, StructDef};
use crate::ir::ty::{Len, Scalar, Ty};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The type of a field as written: known, or a struct whose definition is still needed.
enum FieldTy {
    Known(Ty),
    /// A `#[gpu_struct]` not yet known: its path (`Vec3`, `geo::Vec3`) and last name.
    Unknown(syn::Path, String),
}

/// Expands `#[gpu_struct]` on `item`, with the definitions of the structs it holds that
/// are known so far (`known`); asks for the next one through its macro when one is missing.
pub fn expand(args: TokenStream, item: TokenStream, known: Vec<StructDef>) -> TokenStream {
    // `crate = ".."`: the whole expansion names the facade by the crate's path.
    let krate = crate::emit::krate::from_args(&args);
    let out = expand_inner(args, item, known);
    crate::emit::krate::rename(out, krate.as_ref())
}

/// `#[gpu_struct(crate = "::ws")]`: the only option.
fn parse_args(cx: &Ctxt, args: TokenStream) {
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            crate::emit::krate::parse_value(&meta)
        } else {
            Err(meta.error("unknown option: #[gpu_struct] takes only `crate = \"..\"`, the path your crate names warpspeed by"))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
}

fn expand_inner(args: TokenStream, item: TokenStream, mut known: Vec<StructDef>) -> TokenStream {
    let cx = Ctxt::new();
    parse_args(&cx, args.clone());
    let item: syn::ItemStruct = match syn::parse2(item) {
        Ok(item) => item,
        Err(e) => {
            cx.syn_error(syn::Error::new(
                e.span(),
                format!("#[gpu_struct] applies to a struct with named fields: {e}"),
            ));
            return cx.fail("parser");
        }
    };
    check_item(&cx, &item);
    let mut fields = Vec::new();
    let mut missing = None;
    let mut refused = false;
    if let syn::Fields::Named(named) = &item.fields {
        for f in &named.named {
            match field_ty(&cx, &f.ty, &known) {
                Some(FieldTy::Known(t)) => fields.push(FieldDef {
                    name: f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                    ty: t,
                }),
                Some(FieldTy::Unknown(path, leaf)) => {
                    missing.get_or_insert((path, leaf));
                }
                None => refused = true,
            }
        }
    }
    if let Err(errors) = cx.check() {
        let mut plain = item.clone();
        plain.attrs.retain(|a| !a.path().is_ident("repr"));
        if refused {
            // A refused field (`String`) is not `Copy` either: rustc's E0204 would be a
            // second error for it.
            without_copy(&mut plain.attrs);
        }
        return quote!(#errors #[repr(C)] #plain);
    }
    if let Some((path, leaf)) = missing {
        // The definition of a struct this one holds: its macro calls back with it.
        return super::resolve::ask(&path, &leaf, &known, quote!(@struct (#args) #item));
    }
    let name = item.ident.to_string();
    known.push(StructDef {
        names: vec![name],
        fields,
        path: None,
    });
    let own = known.len() - 1;
    output(&item, &known, own)
}

/// `attrs` without `Copy` in their `derive`s.
fn without_copy(attrs: &mut [syn::Attribute]) {
    use syn::punctuated::Punctuated;
    for a in attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
        let Ok(paths) =
            a.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
        else {
            continue;
        };
        let kept: Vec<&syn::Path> = paths
            .iter()
            .filter(|p| p.segments.last().is_none_or(|s| s.ident != "Copy"))
            .collect();
        *a = syn::parse_quote!(#[derive(#(#kept),*)]);
    }
}

/// No generics, no lifetimes, named fields, no `repr` of its own.
fn check_item(cx: &Ctxt, item: &syn::ItemStruct) {
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        cx.error_spanned_by(
            &item.generics,
            "a #[gpu_struct] has no generic parameters: its C definition has one layout (write one struct per type)",
        );
    }
    match &item.fields {
        syn::Fields::Named(n) if !n.named.is_empty() => {}
        syn::Fields::Named(n) => {
            cx.error_spanned_by(n, "a #[gpu_struct] has at least one field (C has no empty structs)")
        }
        other => cx.error_spanned_by(
            other,
            "a #[gpu_struct] has named fields (`struct Params { dt: f32 }`): kernels read them by name",
        ),
    }
    for a in item.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        cx.error_spanned_by(
            a,
            "#[gpu_struct] makes the struct `#[repr(C)]` itself: remove this `repr`",
        );
    }
}

/// A field's type: a kernel scalar, a 1-D array `[T; N]` of scalars or structs, or a
/// `#[gpu_struct]`.
fn field_ty(cx: &Ctxt, ty: &syn::Type, known: &[StructDef]) -> Option<FieldTy> {
    let unsupported = |what: &str| {
        let text = quote!(#ty).to_string().replace(' ', "");
        cx.error_spanned_by(
            ty,
            format!("`{text}` cannot be a field of a #[gpu_struct]{what}: fields are kernel scalars (bool, i8..i64, u8..u64, usize, isize, f32, f64, warpspeed::f16, the vector types), arrays of them `[T; N]`, and other #[gpu_struct]s"),
        );
        None
    };
    match ty {
        syn::Type::Paren(p) => field_ty(cx, &p.elem, known),
        syn::Type::Group(g) => field_ty(cx, &g.elem, known),
        syn::Type::Array(a) => {
            let n = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<u64>().ok().filter(|n| *n > 0),
                _ => None,
            };
            let Some(n) = n else {
                cx.error_spanned_by(
                    &a.len,
                    "the length of an array field of a #[gpu_struct] is a non-zero integer literal",
                );
                return None;
            };
            if matches!(&*a.elem, syn::Type::Array(_)) {
                return unsupported(
                    " (arrays of arrays are not fields yet: use a struct for the rows)",
                );
            }
            match field_ty(cx, &a.elem, known)? {
                FieldTy::Known(t) => Some(FieldTy::Known(Ty::Array(Box::new(t), Len::Lit(n)))),
                unknown => Some(unknown),
            }
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(s) = scalar_of(&p.path) {
                return Some(FieldTy::Known(Ty::Scalar(s)));
            }
            let last = p.path.segments.last()?;
            let leaf = last.ident.to_string();
            let plain = p.path.segments.iter().all(|s| s.arguments.is_none());
            if !plain || !leaf.starts_with(|c: char| c.is_ascii_uppercase()) || leaf == "String" {
                return unsupported("");
            }
            match known.iter().position(|d| d.names.contains(&leaf)) {
                Some(id) => Some(FieldTy::Known(Ty::Scalar(structs::scalar(known, id)))),
                None => Some(FieldTy::Unknown(p.path.clone(), leaf)),
            }
        }
        _ => unsupported(""),
    }
}

/// `f32`, `bool`, `warpspeed::f16`, `warpspeed::f32x4`: a kernel scalar's path.
fn scalar_of(path: &syn::Path) -> Option<Scalar> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [name] => Scalar::from_name(name),
        [krate, name] if krate == "warpspeed" => Scalar::from_name(name).filter(|s| s.is_library()),
        _ => None,
    }
}

/// Everything `#[gpu_struct]` emits, with every struct it holds known.
fn output(item: &syn::ItemStruct, defs: &[StructDef], own: usize) -> TokenStream {
    let name = &item.ident;
    let c_name = structs::c_struct_name(&name.to_string());
    let def = &defs[own];
    let syn::Fields::Named(named) = &item.fields else {
        return quote!();
    };
    let idents: Vec<&Ident> = named
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .collect();
    let c_fields: Vec<String> = def
        .fields
        .iter()
        .map(|f| crate::emit::cuda::c_field_name(&f.name))
        .collect();
    let c_def = {
        let decls: String = def
            .fields
            .iter()
            .zip(&c_fields)
            .map(|(f, c)| format!(" {};", crate::emit::cuda::c_decl(&f.ty, c)))
            .collect();
        format!("struct {c_name} {{{decls} }};")
    };
    // The structs this one holds: their C definitions come first.
    let deps: Vec<TokenStream> = named
        .named
        .iter()
        .zip(&def.fields)
        .filter_map(|(f, d)| {
            let inner = match &d.ty {
                Ty::Array(e, _) => &**e,
                t => t,
            };
            inner.scalar().filter(|s| s.is_struct())?;
            let ty = elem_type(&f.ty);
            Some(quote!(<#ty as ::warpspeed::GpuStruct>::ITEM))
        })
        .collect();
    let is_array: Vec<bool> = def
        .fields
        .iter()
        .map(|f| matches!(f.ty, Ty::Array(..)))
        .collect();
    let p = quote!(::warpspeed::__private);
    let writes = idents.iter().zip(&is_array).map(|(f, arr)| {
        if *arr {
            quote!(#p::write_array(self.#f, out, ::core::mem::offset_of!(#name, #f));)
        } else {
            quote!(::warpspeed::KernelScalar::write_bytes(self.#f, &mut out[::core::mem::offset_of!(#name, #f)..]);)
        }
    });
    let reads = idents.iter().zip(&is_array).map(|(f, arr)| {
        if *arr {
            quote!(#f: #p::read_array(bytes, ::core::mem::offset_of!(#name, #f)))
        } else {
            quote!(#f: ::warpspeed::KernelScalar::read_bytes(&bytes[::core::mem::offset_of!(#name, #f)..]))
        }
    });
    let loads = idents.iter().zip(&is_array).map(|(f, arr)| {
        if *arr {
            quote!(#f: #p::sim_load_array(&raw const (*p).#f))
        } else {
            quote!(#f: #p::sim_load_field(&raw const (*p).#f))
        }
    });
    let stores = idents.iter().zip(&is_array).map(|(f, arr)| {
        if *arr {
            quote!(#p::sim_store_array(&raw mut (*p).#f, value.#f);)
        } else {
            quote!(#p::sim_store_field(&raw mut (*p).#f, value.#f);)
        }
    });
    let ((size, align), offsets) = super::layout::struct_layout(def, defs);
    let (size, align) = (size as usize, align as usize);
    let offsets = offsets.iter().map(|o| *o as usize);
    let layout_msg = format!("#[gpu_struct] {name}: rustc's #[repr(C)] layout is not C's (a warpspeed bug: please report it)");
    let c_field_lits = &c_fields;
    let ftys: Vec<&syn::Type> = named.named.iter().map(|f| &f.ty).collect();
    let rust_name = name.to_string();
    let payload = super::payload::write(defs, own);
    let handover = super::export::handover_macro(
        name,
        &item.vis,
        quote!(::warpspeed::__gpu_resolved! { #payload $($rest)* }),
    );
    let attrs = &item.attrs;
    let (vis, fields) = (&item.vis, &item.fields);
    quote! {
        #(#attrs)*
        #[repr(C)]
        #vis struct #name #fields

        #handover

        impl ::warpspeed::KernelScalar for #name {
            const C_NAME: &'static str = #c_name;
            fn to_bits(self) -> u64 {
                #p::struct_to_bits128(self) as u64
            }
            fn from_bits(bits: u64) -> Self {
                #p::struct_from_bits128(u128::from(bits))
            }
            fn to_bits128(self) -> u128 {
                #p::struct_to_bits128(self)
            }
            fn from_bits128(bits: u128) -> Self {
                #p::struct_from_bits128(bits)
            }
            fn write_bytes(self, out: &mut [u8]) {
                #(#writes)*
            }
            fn read_bytes(bytes: &[u8]) -> Self {
                #name { #(#reads),* }
            }
            const STRUCT: ::core::option::Option<#p::StructAccess<Self>> = {
                /// # Safety
                /// `p` points to a live, aligned element of simulated memory.
                unsafe fn load(p: *const #name) -> #name {
                    // SAFETY: each field of the element the caller vouches for.
                    unsafe { #name { #(#loads),* } }
                }
                /// # Safety
                /// As `load`, and the memory is writable.
                unsafe fn store(p: *mut #name, value: #name) {
                    // SAFETY: each field of the element the caller vouches for.
                    unsafe { #(#stores)* }
                }
                ::core::option::Option::Some(#p::StructAccess { load, store })
            };
        }

        // The layout by C's rule, as the macro computed it, is rustc's.
        const _: () = {
            assert!(
                ::core::mem::size_of::<#name>() == #size && ::core::mem::align_of::<#name>() == #align,
                #layout_msg
            );
            #(assert!(::core::mem::offset_of!(#name, #idents) == #offsets, #layout_msg);)*
        };

        // SAFETY: a `#[repr(C)]` `Copy` struct of plain data, as the kernel's C declares it
        // (cudarc passes and copies it by its bytes).
        unsafe impl #p::DeviceRepr for #name {}

        // SAFETY: the struct is `#[repr(C)]` with the fields its C definition declares.
        unsafe impl ::warpspeed::GpuStruct for #name {
            const ITEM: &'static #p::SourceItem = {
                fn layout() -> ::std::string::String {
                    #p::c_layout_checks(
                        #c_name,
                        ::core::mem::size_of::<#name>(),
                        ::core::mem::align_of::<#name>(),
                        &[#((
                            #c_field_lits,
                            ::core::mem::size_of::<#ftys>(),
                            ::core::mem::align_of::<#ftys>(),
                        )),*],
                    )
                }
                static ITEM: #p::SourceItem = #p::SourceItem {
                    rust_name: #rust_name,
                    prototype: #c_def,
                    definition: "",
                    deps: &[#(#deps),*],
                    consts: ::core::option::Option::Some(layout),
                };
                &ITEM
            };
        }
    }
}

/// The element type of an array field, or the field's type.
fn elem_type(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Array(a) => elem_type(&a.elem),
        syn::Type::Paren(p) => elem_type(&p.elem),
        syn::Type::Group(g) => elem_type(&g.elem),
        t => t,
    }
}
