//! `#[gpu_struct]`: the struct, made `#[repr(C)]`; its C definition with layout checks (a
//! `SourceItem` kernels depend on); the runtime traits (`KernelScalar`, `GpuStruct`) that
//! let it be a kernel argument and a `DeviceBuffer` element; and a `macro_rules!` named
//! like the struct (macros and types live in different namespaces, so `use a::Params;`
//! imports both) that hands the struct's definition to the macros that use it.

use crate::ctxt::Ctxt;
use crate::ir::structs::{self, FieldDef, StructDef};
use crate::ir::ty::{Len, Scalar, Ty};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

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
    let params = check_item(&cx, &item);
    let names: Vec<String> = params.iter().map(|p| p.0.clone()).collect();
    let mut fields = Vec::new();
    let mut missing = None;
    // A lifetime or const parameter is refused; the fields that use it are not refused
    // again (they are checked once the parameter is gone).
    let mut refused = false;
    let bad_params = item
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Type(_)));
    if let (syn::Fields::Named(named), false) = (&item.fields, bad_params) {
        for f in &named.named {
            match field_ty(&cx, &f.ty, &mut known, &names) {
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
    let generic = (!params.is_empty()).then(|| structs::Generic {
        params,
        fields: match &item.fields {
            syn::Fields::Named(n) => n
                .named
                .iter()
                .map(|f| {
                    (
                        f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                        f.ty.clone(),
                    )
                })
                .collect(),
            _ => Vec::new(),
        },
    });
    let fields = if generic.is_some() {
        Vec::new()
    } else {
        fields
    };
    known.push(StructDef {
        names: vec![name],
        fields,
        generic,
        ..Default::default()
    });
    let own = known.len() - 1;
    if super::generic::instantiate_all(&mut known).is_none() {
        let span = item.ident.span();
        return quote::quote_spanned!(span=> compile_error!("internal error: an instance of a generic #[gpu_struct] (this is a warpspeed bug: please report it)"););
    }
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

/// Type parameters bounded by `Float`, `Int` or `Scalar` only (each: its name, its
/// bound, the bound's types), named fields, no `repr` of its own.
fn check_item(cx: &Ctxt, item: &syn::ItemStruct) -> Vec<(String, String, Vec<Scalar>)> {
    let mut params = Vec::new();
    for p in &item.generics.params {
        match p {
            syn::GenericParam::Lifetime(l) => cx.error_spanned_by(
                l,
                "a #[gpu_struct] holds no references: the launch copies it to the GPU by value (remove the lifetime)",
            ),
            syn::GenericParam::Const(c) => cx.error_spanned_by(
                c,
                "a #[gpu_struct] has no const parameters: give its array fields a literal length (`[f32; 4]`), or make the struct generic over a type (`T: Float`)",
            ),
            syn::GenericParam::Type(t) => match type_bound(t) {
                Some((bound, types)) => params.push((t.ident.to_string(), bound, types)),
                // Bounded in the `where` clause: that clause's error says where instead.
                None if t.bounds.is_empty() && item.generics.where_clause.is_some() => {}
                None => cx.error_spanned_by(
                    t,
                    format!("a #[gpu_struct]'s type parameter has one bound of warpspeed's, `Float`, `Int` or `Scalar` (`{}: Float`): its C definition is made for each of the bound's types", t.ident),
                ),
            },
        }
    }
    if let Some(w) = &item.generics.where_clause {
        cx.error_spanned_by(
            w,
            "a #[gpu_struct] has no `where` clause: bound its type parameters where they are declared (`struct Params<T: Float>`)",
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
    params
}

/// `T: Float` (`warpspeed::Float`): the bound's name and types.
fn type_bound(t: &syn::TypeParam) -> Option<(String, Vec<Scalar>)> {
    if t.default.is_some() || t.bounds.len() != 1 {
        return None;
    }
    let syn::TypeParamBound::Trait(tb) = &t.bounds[0] else {
        return None;
    };
    if tb.lifetimes.is_some() || !matches!(tb.modifier, syn::TraitBoundModifier::None) {
        return None;
    }
    let last = tb.path.segments.last().filter(|s| s.arguments.is_none())?;
    let name = last.ident.to_string();
    let types = super::generic::bound_types(&name)?;
    Some((name, types))
}

/// A field's type: a kernel scalar, a 1-D array `[T; N]` of scalars or structs, or a
/// `#[gpu_struct]`.
fn field_ty(
    cx: &Ctxt,
    ty: &syn::Type,
    known: &mut Vec<StructDef>,
    params: &[String],
) -> Option<FieldTy> {
    let unsupported = |what: &str| {
        let text = quote!(#ty).to_string().replace(' ', "");
        cx.error_spanned_by(
            ty,
            format!("`{text}` cannot be a field of a #[gpu_struct]{what}: fields are kernel scalars (bool, i8..i64, u8..u64, usize, isize, f32, f64, warpspeed::f16, warpspeed::bf16, the vector types), the struct's type parameters, arrays of them `[T; N]`, and other #[gpu_struct]s"),
        );
        None
    };
    match ty {
        syn::Type::Paren(p) => field_ty(cx, &p.elem, known, params),
        syn::Type::Group(g) => field_ty(cx, &g.elem, known, params),
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
            match field_ty(cx, &a.elem, known, params)? {
                FieldTy::Known(t) => Some(FieldTy::Known(Ty::Array(Box::new(t), Len::Lit(n)))),
                unknown => Some(unknown),
            }
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(s) = scalar_of(&p.path) {
                return Some(FieldTy::Known(Ty::Scalar(s)));
            }
            if p.path
                .get_ident()
                .is_some_and(|id| params.iter().any(|n| id == n))
            {
                // A type parameter: each instance has its own type here.
                return Some(FieldTy::Known(Ty::Unit));
            }
            let last = p.path.segments.last()?;
            let leaf = last.ident.to_string();
            let n = p.path.segments.len();
            let plain = p
                .path
                .segments
                .iter()
                .take(n - 1)
                .all(|s| s.arguments.is_none());
            // The standard library's types (never a #[gpu_struct], and often a mistake).
            const STD: &[&str] = &[
                "String",
                "Vec",
                "Box",
                "Option",
                "Result",
                "HashMap",
                "Rc",
                "Arc",
                "Cell",
                "RefCell",
                "PhantomData",
            ];
            if !plain
                || !leaf.starts_with(|c: char| c.is_ascii_uppercase())
                || STD.contains(&leaf.as_str())
            {
                return unsupported("");
            }
            // A generic struct's arguments: the struct's type parameters or scalars.
            let placeholders: Vec<(&str, Scalar)> =
                params.iter().map(|n| (n.as_str(), Scalar::Bool)).collect();
            let Some(args) = super::generic::path_args(&p.path, &placeholders, |_| None) else {
                return unsupported(" (the arguments of a generic #[gpu_struct] are scalars or the struct's own type parameters)");
            };
            let Some(id) = known.iter().position(|d| d.names.contains(&leaf)) else {
                return Some(FieldTy::Unknown(p.path.clone(), leaf));
            };
            let generic = known[id].generic.as_ref().map(|g| g.params.len());
            match generic {
                None if args.is_empty() => {
                    Some(FieldTy::Known(Ty::Scalar(structs::scalar(known, id))))
                }
                Some(n) if n == args.len() => {
                    if !params.is_empty() {
                        // Checked per instance, when the instances are made.
                        return Some(FieldTy::Known(Ty::Unit));
                    }
                    let i = super::generic::instantiate(known, id, &args)?;
                    Some(FieldTy::Known(Ty::Scalar(structs::scalar(known, i))))
                }
                // The field is emitted as written, where rustc refuses the count
                // itself (E0107, with the parameters to write): its error is the one.
                Some(_) => {
                    cx.rustc_reports();
                    None
                }
                None => unsupported(" (it is not generic)"),
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

/// One layout of the struct: the struct itself, or one instance of a generic one.
struct Layout {
    /// Its index in the table.
    index: usize,
    /// Its Rust type (`Params`, `Params<f32>`).
    ty: TokenStream,
    /// The Rust names of its arguments (`["f32"]`; none for a plain struct).
    key: Vec<&'static str>,
    /// The field types as written, with the instance's arguments.
    ftys: Vec<TokenStream>,
}

/// Everything `#[gpu_struct]` emits, with every struct it holds known (and, for a generic
/// struct, its instances).
fn output(item: &syn::ItemStruct, defs: &[StructDef], own: usize) -> TokenStream {
    let name = &item.ident;
    let syn::Fields::Named(named) = &item.fields else {
        return quote!();
    };
    let idents: Vec<&Ident> = named
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .collect();
    let (impl_generics, ty_generics, _) = item.generics.split_for_impl();
    let turbofish = ty_generics.as_turbofish();
    let layouts: Vec<Layout> = match &defs[own].generic {
        None => vec![Layout {
            index: own,
            ty: quote!(#name),
            key: Vec::new(),
            ftys: named.named.iter().map(|f| f.ty.to_token_stream()).collect(),
        }],
        Some(g) => super::generic::combos(&g.params)
            .into_iter()
            .filter_map(|args| {
                let index = defs.iter().position(|d| {
                    d.instance
                        .as_ref()
                        .is_some_and(|(gi, a)| *gi == own && *a == args)
                })?;
                let subst: Vec<(&str, TokenStream)> = g
                    .params
                    .iter()
                    .zip(&args)
                    .map(|((p, _, _), a)| (p.as_str(), scalar_tokens(*a)))
                    .collect();
                let targs = subst.iter().map(|(_, t)| t);
                Some(Layout {
                    index,
                    ty: quote!(#name<#(#targs),*>),
                    key: args.iter().map(|a| a.rust_name()).collect(),
                    ftys: named
                        .named
                        .iter()
                        .map(|f| substitute(f.ty.to_token_stream(), &subst))
                        .collect(),
                })
            })
            .collect(),
    };
    let c_fields: Vec<String> = idents
        .iter()
        .map(|f| crate::emit::cuda::c_field_name(&f.to_string()))
        .collect();
    let is_array: Vec<bool> = named
        .named
        .iter()
        .map(|f| matches!(elem_type_peeled(&f.ty), syn::Type::Array(_)))
        .collect();
    let p = quote!(::warpspeed::__private);
    let writes = idents.iter().zip(&is_array).map(|(f, arr)| {
        if *arr {
            quote!(#p::write_array(self.#f, out, ::core::mem::offset_of!(Self, #f));)
        } else {
            quote!(::warpspeed::KernelScalar::write_bytes(self.#f, &mut out[::core::mem::offset_of!(Self, #f)..]);)
        }
    });
    let reads = idents.iter().zip(&is_array).map(|(f, arr)| {
        if *arr {
            quote!(#f: #p::read_array(bytes, ::core::mem::offset_of!(Self, #f)))
        } else {
            quote!(#f: ::warpspeed::KernelScalar::read_bytes(&bytes[::core::mem::offset_of!(Self, #f)..]))
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
    // Per layout: the C definition and its checks, and rustc's layout asserted.
    let mut c_names = Vec::new();
    let mut statics = Vec::new();
    let mut asserts = Vec::new();
    for (k, l) in layouts.iter().enumerate() {
        let def = &defs[l.index];
        let c_name = match structs::scalar(defs, l.index) {
            Scalar::Struct(id) => Scalar::Struct(id).c_name().to_string(),
            _ => structs::c_struct_name(&name.to_string()),
        };
        let decls: String = def
            .fields
            .iter()
            .zip(&c_fields)
            .map(|(f, c)| format!(" {};", crate::emit::cuda::c_decl(&f.ty, c)))
            .collect();
        let c_def = format!("struct {c_name} {{{decls} }};");
        // The structs this one holds: their C definitions come first.
        let deps: Vec<TokenStream> = def
            .fields
            .iter()
            .zip(&l.ftys)
            .filter_map(|(d, fty)| {
                let inner = match &d.ty {
                    Ty::Array(e, _) => &**e,
                    t => t,
                };
                inner.scalar().filter(|s| s.is_struct())?;
                let ty = array_elem(fty.clone());
                Some(quote!(<#ty as ::warpspeed::GpuStruct>::ITEM))
            })
            .collect();
        let ((size, align), offsets) = super::layout::struct_layout(def, defs);
        let (size, align) = (size as usize, align as usize);
        let offsets = offsets.iter().map(|o| *o as usize);
        let rust_name = def.names[0].clone();
        let layout_msg = format!("#[gpu_struct] {rust_name}: rustc's #[repr(C)] layout is not C's (a warpspeed bug: please report it)");
        let ty = &l.ty;
        asserts.push(quote! {
            const _: () = {
                assert!(
                    ::core::mem::size_of::<#ty>() == #size && ::core::mem::align_of::<#ty>() == #align,
                    #layout_msg
                );
                #(assert!(::core::mem::offset_of!(#ty, #idents) == #offsets, #layout_msg);)*
            };
        });
        let (item_name, layout_fn) = (format_ident!("ITEM_{}", k), format_ident!("layout_{}", k));
        let ftys = &l.ftys;
        statics.push(quote! {
            fn #layout_fn() -> ::std::string::String {
                #p::c_layout_checks(
                    #c_name,
                    ::core::mem::size_of::<#ty>(),
                    ::core::mem::align_of::<#ty>(),
                    &[#((
                        #c_fields,
                        ::core::mem::size_of::<#ftys>(),
                        ::core::mem::align_of::<#ftys>(),
                    )),*],
                )
            }
            static #item_name: #p::SourceItem = #p::SourceItem {
                rust_name: #rust_name,
                prototype: #c_def,
                definition: "",
                deps: &[#(#deps),*],
                consts: ::core::option::Option::Some(#layout_fn),
            };
        });
        c_names.push(c_name);
    }
    let item_names: Vec<Ident> = (0..layouts.len())
        .map(|k| format_ident!("ITEM_{}", k))
        .collect();
    let (c_name_expr, item_expr) = match &defs[own].generic {
        None => {
            let c = &c_names[0];
            (quote!(#c), quote!(&ITEM_0))
        }
        Some(g) => {
            let params = g.params.iter().map(|(n, _, _)| Ident::new(n, name.span()));
            let key = quote!(&[#(<#params as #p::ScalarName>::RUST_NAME),*]);
            let keys: Vec<TokenStream> = layouts
                .iter()
                .map(|l| {
                    let k = &l.key;
                    quote!(&[#(#k),*])
                })
                .collect();
            (
                quote!(#p::pick_instance(#key, &[#((#keys, #c_names)),*])),
                quote!(#p::pick_instance(#key, &[#((#keys, &#item_names)),*])),
            )
        }
    };
    let payload = super::payload::write(defs, own);
    let handover = super::export::handover_macro(
        name,
        &item.vis,
        quote!(::warpspeed::__gpu_resolved! { #payload $($rest)* }),
    );
    let attrs = &item.attrs;
    let (vis, fields) = (&item.vis, &item.fields);
    let generics = &item.generics;
    quote! {
        #(#attrs)*
        #[repr(C)]
        #vis struct #name #generics #fields

        #handover

        impl #impl_generics ::warpspeed::KernelScalar for #name #ty_generics {
            const C_NAME: &'static str = #c_name_expr;
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
                Self { #(#reads),* }
            }
            const STRUCT: ::core::option::Option<#p::StructAccess<Self>> = {
                /// # Safety
                /// `p` points to a live, aligned element of simulated memory.
                unsafe fn load #impl_generics (p: *const #name #ty_generics) -> #name #ty_generics {
                    // SAFETY: each field of the element the caller vouches for.
                    unsafe { #name { #(#loads),* } }
                }
                /// # Safety
                /// As `load`, and the memory is writable.
                unsafe fn store #impl_generics (p: *mut #name #ty_generics, value: #name #ty_generics) {
                    // SAFETY: each field of the element the caller vouches for.
                    unsafe { #(#stores)* }
                }
                ::core::option::Option::Some(#p::StructAccess { load: load #turbofish, store: store #turbofish })
            };
        }

        // The layout by C's rule, as the macro computed it, is rustc's.
        #(#asserts)*

        // SAFETY: a `#[repr(C)]` `Copy` struct of plain data, as the kernel's C declares it
        // (cudarc passes and copies it by its bytes).
        unsafe impl #impl_generics #p::DeviceRepr for #name #ty_generics {}

        // SAFETY: the struct is `#[repr(C)]` with the fields its C definition declares.
        unsafe impl #impl_generics ::warpspeed::GpuStruct for #name #ty_generics {
            const ITEM: &'static #p::SourceItem = {
                #(#statics)*
                #item_expr
            };
        }
    }
}

/// A scalar as a Rust type in the user's crate (`f32`, `::warpspeed::f16`).
fn scalar_tokens(s: Scalar) -> TokenStream {
    let id = Ident::new(s.rust_name(), proc_macro2::Span::call_site());
    if s.is_library() {
        quote!(::warpspeed::#id)
    } else {
        quote!(#id)
    }
}

/// `tokens` with each of `subst`'s type parameters replaced by its argument.
fn substitute(tokens: TokenStream, subst: &[(&str, TokenStream)]) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|t| match t {
            TokenTree::Ident(id) => match subst.iter().find(|(n, _)| id == n) {
                Some((_, to)) => to.clone(),
                None => TokenTree::Ident(id).into(),
            },
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), substitute(g.stream(), subst));
                new.set_span(g.span());
                TokenTree::Group(new).into()
            }
            other => other.into(),
        })
        .collect()
}

/// The element type of an array field's tokens (`[Vec2<f32>; 3]`), or the tokens.
fn array_elem(tokens: TokenStream) -> TokenStream {
    match syn::parse2::<syn::Type>(tokens.clone()) {
        Ok(t) => {
            let e = elem_type(&t);
            quote!(#e)
        }
        Err(_) => tokens,
    }
}

/// The type without parentheses and groups.
fn elem_type_peeled(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Paren(p) => elem_type_peeled(&p.elem),
        syn::Type::Group(g) => elem_type_peeled(&g.elem),
        t => t,
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
