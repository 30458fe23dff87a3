//! How callers reach a `#[gpu_device]` function on the Rust side (runtime/src/device_fn.rs
//! tells the whole story): the function's marker type and the hidden function of its name
//! (`device_marker`), the expression a call names it by (`callee`), a caller's C
//! dependencies and cycle assertions built from those, and the stub after an error.
//!
//! A const-generic device function (`fn nth<const N: usize>`) carries its const parameters
//! on the hidden function, the marker and the bound form (`Bound<'_, '_, N>`), so a call's
//! const arguments go to the hidden function (`nth::<4>(hole())`), where rustc checks them
//! and says what is missing in the user's words ("cannot infer the value of the const
//! parameter `N` declared on the function `nth`"); the simulator method takes the type
//! arguments alone (`generic::turbofish`).

use super::generic::{self, Part};
use super::*;

/// A const parameter as the marker declares it: its name and Rust type (`N`, `usize`).
pub(super) type ConstDecl = (Ident, TokenStream);

/// The const parameters of `f` (a device function's; a kernel's are its launch's).
pub(super) fn const_decls(sc: &Scope, f: &Function) -> Vec<ConstDecl> {
    f.const_params
        .iter()
        .map(|(id, s)| (id.clone(), scalar_ty(sc, *s)))
        .collect()
}

/// `<const N: usize, const HIGH: bool>` and `N, HIGH` (both empty without any).
pub(super) fn const_generics(consts: &[ConstDecl]) -> (TokenStream, Vec<&Ident>) {
    let names: Vec<&Ident> = consts.iter().map(|(n, _)| n).collect();
    if consts.is_empty() {
        return (quote!(), names);
    }
    let decls = consts.iter().map(|(n, t)| quote!(const #n: #t));
    (quote!(<#(#decls),*>), names)
}

/// A device function's marker type (in its module, named after it, `lerp::lerp`, with the
/// function's const parameters; it points to the module's `ITEM`), which its callers name
/// (`callee`, runtime/src/device_fn.rs). A `fallback`'s bound form has a type parameter
/// `WsResult` for its simulator body's result (`device_fallback`).
pub(super) fn device_marker(name: &Ident, consts: &[ConstDecl], fallback: bool) -> TokenStream {
    let (decl, names) = const_generics(consts);
    let args = if names.is_empty() {
        quote!()
    } else {
        quote!(<#(#names),*>)
    };
    let (r, r_field, r_value) = if fallback {
        (
            quote!(WsResult,),
            quote!(, ::core::marker::PhantomData<WsResult>),
            quote!(, ::core::marker::PhantomData),
        )
    } else {
        (quote!(), quote!(), quote!())
    };
    let bound_decls = consts.iter().map(|(n, t)| quote!(const #n: #t));
    // Calls that name no const arguments require this (`callee`).
    let no_consts = consts
        .is_empty()
        .then(|| quote!(impl ::warpspeed::NoConstParams for #name {}));
    let marker = quote! {
        /// The function as its callers reach it: its C and its simulator body.
        #[derive(Clone, Copy)]
        pub struct #name #decl;
        #[diagnostic::do_not_recommend]
        unsafe impl #decl ::warpspeed::DeviceFunction for #name #args {
            const ITEM: *const ::warpspeed::__private::SourceItem = &ITEM;
            type Sim = #name #args;
            const SIM: #name #args = #name;
        }
        impl #decl #name #args {
            /// The function on the thread of `ctx`: its method of the function's name runs
            /// the body there.
            pub fn with<'c, 't, #r>(self, ctx: &'c ::warpspeed::__private::ThreadCtx<'t>) -> Bound<'c, 't, #r #(#names),*> {
                Bound(ctx #r_value)
            }
        }
        #no_consts
        /// The function bound to one simulated thread.
        pub struct Bound<'c, 't, #r #(#bound_decls),*>(&'c ::warpspeed::__private::ThreadCtx<'t> #r_field);
    };
    marker
}

/// `kernel_only()` in a device function's module: the first kernel-only intrinsic the
/// function or a function it calls uses (`thread_idx`, a barrier, a shuffle, shared
/// memory, atomics), which makes a host call of it panic (runtime/src/sim/host.rs).
pub(super) fn kernel_only(sc: &Scope, f: &Function) -> TokenStream {
    let own = own_kernel_only(f);
    let own = match own {
        Some(what) => quote!(::core::option::Option::Some(#what)),
        None => quote!(::core::option::Option::None),
    };
    let callees = calls(&f.body)
        .into_iter()
        .map(|(path, _)| in_callee_module(sc, path, quote!(::kernel_only())));
    quote! {
        /// The kernel-only intrinsic this function or a function it calls uses, if any.
        pub fn kernel_only() -> ::core::option::Option<&'static str> {
            #own #(.or_else(|| #callees))*
        }
    }
}

/// The first kernel-only construct `f` itself uses.
fn own_kernel_only(f: &Function) -> Option<&'static str> {
    if f.params
        .iter()
        .any(|p| matches!(p.ty, crate::ir::ast::ParamTy::Atomics(_)))
    {
        return Some("atomics");
    }
    let mut found = None;
    crate::ir::visit::walk_block(&f.body, &mut |e| {
        if found.is_some() {
            return;
        }
        found = match &e.kind {
            ExprKind::Intrinsic(i, _) if i.sim_path().is_none() => Some(i.rust_name()),
            ExprKind::SharedArray(_) => Some("SharedArray"),
            ExprKind::DynamicShared(_) => Some("dynamic_shared"),
            ExprKind::TiledPartition(..) => Some("tiled_partition"),
            _ => None,
        };
    });
    found
}

/// `impl<const N: usize> Bound<'_, '_, N>`: where a device function's simulator body is.
pub(super) fn bound_impl(sc: &Scope, f: &Function) -> TokenStream {
    let consts = const_decls(sc, f);
    let (decl, names) = const_generics(&consts);
    quote!(impl #decl Bound<'_, '_, #(#names),*>)
}

/// A device function's module after an error in it: an empty C item, and a marker whose
/// simulator body fits every call the function itself would (its type parameters without
/// their bounds, its const parameters, a parameter of a plain type as that type, any value
/// elsewhere; its result the type each call site annotates, through `Bound`'s
/// `WsResult`), so its callers compile on and their errors are their own, not a missing
/// internal name.
pub(crate) fn device_fallback(item: &syn::ItemFn) -> TokenStream {
    let (name, vis) = (&item.sig.ident, &item.vis);
    let mut types = Vec::new();
    let mut consts: Vec<ConstDecl> = Vec::new();
    for p in &item.sig.generics.params {
        match p {
            syn::GenericParam::Type(t) => types.push(&t.ident),
            syn::GenericParam::Const(c) => {
                let ty = &c.ty;
                consts.push((c.ident.clone(), quote!(#ty)));
            }
            syn::GenericParam::Lifetime(_) => {}
        }
    }
    let params = item.sig.inputs.iter().map(|arg| {
        let syn::FnArg::Typed(pt) = arg else {
            return quote!(_: impl ::core::marker::Sized);
        };
        match &*pt.ty {
            // A scalar or a type parameter as itself; a struct's name is the user's module's,
            // which this module does not see (and may be the mistake): any value.
            syn::Type::Path(p)
                if p.qself.is_none()
                    && p.path.get_ident().is_some_and(|id| {
                        crate::ir::ty::Scalar::from_name(&id.to_string()).is_some()
                            || types.contains(&id)
                    }) =>
            {
                let t = &pt.ty;
                quote!(_: #t)
            }
            // A slice as the simulator passes it (its caller converts with `Into`).
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(sl) if !quote!(#sl).to_string().contains("Atomic") => {
                    let e = &sl.elem;
                    if r.mutability.is_some() {
                        quote!(_: ::warpspeed::__private::SliceMut<#e>)
                    } else {
                        quote!(_: ::warpspeed::__private::Slice<#e>)
                    }
                }
                _ => quote!(_: impl ::core::marker::Sized),
            },
            _ => quote!(_: impl ::core::marker::Sized),
        }
    });
    let marker = device_marker(name, &consts, true);
    let const_decls = consts.iter().map(|(n, t)| quote!(const #n: #t));
    let const_names = consts.iter().map(|(n, _)| n);
    quote! {
        #[allow(dead_code, unused_variables, non_snake_case, non_camel_case_types, clippy::all)]
        #vis mod #name {
            pub static ITEM: ::warpspeed::__private::SourceItem = ::warpspeed::__private::SourceItem {
                rust_name: "", prototype: "", definition: "", deps: &[], consts: None,
            };
            #marker
            /// Nothing kernel-only known (the function did not compile).
            pub fn kernel_only() -> ::core::option::Option<&'static str> {
                ::core::option::Option::None
            }
            impl<WsResult, #(#const_decls),*> Bound<'_, '_, WsResult, #(#const_names),*> {
                pub async fn #name<#(#types),*>(self, #(#params),*) -> WsResult {
                    unreachable!()
                }
            }
        }
    }
}

/// The device functions `b` calls, once each (told apart by the path's text), each with
/// the arguments of its first call.
fn calls(b: &Block) -> Vec<(&syn::Path, &[Expr])> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    crate::ir::visit::walk_block(b, &mut |e| {
        if let ExprKind::Call(path, _, args) = &e.kind {
            let key = quote!(#path).to_string();
            if !seen.contains(&key) {
                seen.push(key);
                out.push((path, args.as_slice()));
            }
        }
    });
    out
}

/// The device functions `b` calls, each as its caller reaches it in a constant
/// (`callee`, any const arguments).
pub(super) fn device_deps(sc: &Scope, b: &Block) -> Vec<TokenStream> {
    calls(b)
        .into_iter()
        .map(|(path, _)| callee(sc, path, Part::ConstHoles))
        .collect()
}

/// A device function's assertions, one per device function it calls: the callee
/// does not lead back to it, where it is the first function of the cycle, which reports
/// it alone (`first_of_cycle`, evaluated by rustc over the functions' C
/// dependencies, so cycles through functions this macro cannot see are found too). At
/// module level, so rustc's note names the function's module and no internal item.
pub(super) fn cycle_checks(sc: &Scope, f: &Function) -> Vec<TokenStream> {
    if f.kind != FnKind::Device {
        return Vec::new();
    }
    let caller = &f.name;
    calls(&f.body)
        .into_iter()
        .map(|(path, _)| {
            let span = path.span();
            let callee = callee(sc, path, Part::ConstHoles);
            let name = path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let msg = format!(
                "`{caller}` calls `{name}`, which leads back to `{caller}`: device functions cannot recurse (the GPU's per-thread stack is small and fixed); write the recursion as a loop"
            );
            quote_spanned!(span=>
                const _: () = ::core::assert!(
                    !::warpspeed::__private::first_of_cycle(#callee.item(), &ITEM),
                    #msg
                );
            )
        })
        .collect()
}

/// `device_fn(&|| { use super::*; lerp(hole(), hole(), hole()) })`: the device function
/// a call names, found through its hidden value-namespace function (runtime/src/device_fn.rs
/// says why). A path that starts at a name (`lerp`, `helpers::lerp`) is looked up as in the
/// user's module, through a glob import of it, so rustc's errors name only what the user
/// wrote; `self::`, `super::`, `crate::` and crate paths go through `path_from_module`.
/// `consts` says how the call's const arguments are passed: as written
/// ([`Part::Consts`], where the simulator call is, in the caller's generic scope) or as
/// placeholders ([`Part::ConstHoles`], in a constant, which cannot name the caller's
/// const parameters; the C item is the same for every value). Every token has the span of
/// the user's path, so the C dependency and the simulator call fail (if they do) with one
/// error, at the call.
pub(super) fn callee(sc: &Scope, path: &syn::Path, consts: Part) -> TokenStream {
    let span = path.span();
    let turbofish = generic::turbofish(sc, path, consts);
    // A call that names no const arguments (`nth(x)` of `fn nth<const N: usize>`): see
    // `without_const_args` in runtime/src/device_fn.rs.
    let unnamed = generic::turbofish(sc, path, Part::Consts).is_empty();
    let leaf = path.segments.last().map(|s| &s.ident);
    let call = in_callee_module(sc, path, quote_spanned!(span=> ::#leaf #turbofish));
    let found = quote_spanned!(span=> ::warpspeed::__private::device_fn(&|| #call));
    if unnamed {
        quote_spanned!(span=> ::warpspeed::__private::without_const_args(#found))
    } else {
        found
    }
}

/// `rest` (`::lerp`, `::kernel_only()`) after the module of the device function a call
/// names, as seen from inside the caller's generated module: a path that starts at a name
/// (`lerp`, `helpers::lerp`) is looked up as in the user's module, through a glob import
/// of it; `self::`, `super::`, `crate::` and crate paths go through `path_from_module`. The
/// function's hand-over macro answered at this path, so the module is there.
pub(super) fn in_callee_module(sc: &Scope, path: &syn::Path, rest: TokenStream) -> TokenStream {
    let span = path.span();
    let first = path.segments.first().map(|s| s.ident.to_string());
    let plain = path.leading_colon.is_none()
        && !matches!(
            first.as_deref(),
            Some("self" | "super" | "crate" | "core" | "std" | "alloc" | "warpspeed")
        );
    let mut bare = path.clone();
    for s in &mut bare.segments {
        s.arguments = syn::PathArguments::None;
    }
    if plain {
        let idents = bare.segments.iter().map(|s| &s.ident);
        quote_spanned!(span=> { #[allow(unused_imports)] use super::*; #(#idents)::* #rest })
    } else {
        let module = path_from_module(sc, &bare);
        quote_spanned!(span=> #module #rest)
    }
}
