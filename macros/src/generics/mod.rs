//! Generic kernels: `#[gpu_kernel] fn axpy<T: Float>(..)`, `fn block_sum<const B: usize>`.
//!
//! Each instance (one type per type parameter, from its bound's set) is a plain function
//! (`subst`) that goes through the unchanged pipeline: parse, check, type, emit C, so every
//! instance has the exact semantics of the concrete kernel it stands for, under its own C
//! entry (`axpy__f32`). Const parameters stay constants: their values reach the C as the
//! constants' macros when the launch assembles the program. The simulator body is one
//! generic Rust function: its types come from two instances that differ in one parameter
//! (`diff`), `T` where they differ. docs/language.md ("Generics") has the decisions;
//! docs/internal/macro-layers.md says why the types come from a diff.

pub mod device;
pub mod diff;
use crate::parse::generic_params as params;
pub mod subst;

use crate::analysis::typeck::Types;
use crate::ctxt::Ctxt;
use crate::emit::host::Instance;
use crate::front::Options;
use crate::ir::ast::{ExprKind, FnKind, Function, Lit};
use crate::ir::structs::StructDef;
use crate::ir::ty::{Scalar, Ty};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The expansion of a generic `#[gpu_kernel]`.
pub fn expand(
    cx: Ctxt,
    item: &syn::ItemFn,
    kind: FnKind,
    options: Options,
    structs: Vec<StructDef>,
) -> TokenStream {
    let Some(g) = params::parse(&cx, &item.sig.generics) else {
        return failed(cx.fail("parser"), item, kind);
    };
    let names: Vec<Ident> = g.types.iter().map(|t| t.name.clone()).collect();
    subst::check(&cx, item, &names);
    if kind == FnKind::Device {
        device::check(&cx, item, &g);
    }
    block_names(&cx, &options, &g);
    if let Err(errors) = cx.check() {
        return failed(errors, item, kind);
    }
    // Every combination of the bounds' types, the first parameter varying slowest.
    let mut combos: Vec<Vec<Scalar>> = vec![Vec::new()];
    for t in &g.types {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                t.bound.types().into_iter().map(move |s| {
                    let mut c = c.clone();
                    c.push(s);
                    c
                })
            })
            .collect();
    }
    let base: Vec<Scalar> = g
        .types
        .iter()
        .map(|t| t.bound.representatives().0)
        .collect();
    // The representatives first (the base and, per parameter, the base with that one
    // changed): they give the simulator body's types, and a literal typed `T` is reported
    // as such before another instance reports it in its own words.
    let reps: Vec<Vec<Scalar>> = std::iter::once(base.clone())
        .chain(g.types.iter().enumerate().map(|(k, t)| {
            let mut alt = base.clone();
            alt[k] = t.bound.representatives().1;
            alt
        }))
        .collect();
    combos.sort_by_key(|c| !reps.contains(c));
    let mut instances = Vec::new();
    let mut base_fn = None;
    for scalars in combos {
        if instances.len() == reps.len() {
            // The representatives passed: the generic types, and their literal rule.
            let Some(f) = base_fn.as_mut() else {
                return internal("no base instance");
            };
            if let Err(errors) = generic_view(f, item, &g, &base, &mut instances) {
                return failed(errors, item, kind);
            }
        }
        let suffix: Vec<&str> = scalars.iter().map(|s| s.rust_name()).collect();
        // A device function's instances are overloads of one C name (`generics::device`).
        let name = if suffix.is_empty() || kind == FnKind::Device {
            item.sig.ident.clone()
        } else {
            format_ident!("{}__{}", item.sig.ident, suffix.join("_"))
        };
        let inst = subst::instance(item, &names, &scalars, name);
        let context = instance_context(&g, &scalars, item);
        match analyse(&inst, kind, &options, &g, &structs, context) {
            Ok((f, types)) => {
                let c = crate::emit::cuda::write_function(&f, &types);
                let ret = f.ret.as_ref().map(|(t, _)| t.clone());
                if scalars == base {
                    base_fn = Some(f);
                }
                instances.push(Instance {
                    scalars,
                    types,
                    c,
                    ret,
                });
            }
            Err(errors) => return failed(errors, item, kind),
        }
    }
    let Some(mut f) = base_fn else {
        return internal("no base instance");
    };
    if instances.len() == reps.len() {
        if let Err(errors) = generic_view(&mut f, item, &g, &base, &mut instances) {
            return failed(errors, item, kind);
        }
    }
    crate::emit::host::generic_module(&f, &instances[0].types, &g, &instances)
}

/// The errors, and a stub its callers and launches still find (their errors are then
/// this function's, not a missing internal name).
fn failed(errors: TokenStream, item: &syn::ItemFn, kind: FnKind) -> TokenStream {
    let stub = stub(item, kind);
    quote!(#errors #stub)
}

/// After an error in `item`: the names its callers (a device function's) or launches (a
/// kernel's) use, with its parameters as written.
pub fn stub(item: &syn::ItemFn, kind: FnKind) -> TokenStream {
    match kind {
        FnKind::Kernel => kernel_stub(item),
        FnKind::Device => device::stub(item),
    }
}

/// A stub launch's parameter: what the real one takes where the type is plain (so type
/// parameters are inferred as they would be), anything elsewhere (a struct's name, which
/// the stub's module may not see, or which may be the mistake).
fn stub_arg(arg: &syn::FnArg, generics: &syn::Generics) -> TokenStream {
    let any = quote!(_: impl ::core::marker::Sized);
    let syn::FnArg::Typed(pt) = arg else {
        return any;
    };
    match &*pt.ty {
        syn::Type::Reference(r) => {
            let syn::Type::Slice(sl) = &*r.elem else {
                return any;
            };
            let elem = &sl.elem;
            let atomic = quote!(#elem).to_string().contains("Atomic");
            match (r.mutability.is_some(), atomic) {
                (_, true) => any,
                (true, false) => quote!(_: &mut impl ::warpspeed::AsDeviceViewMut<Elem = #elem>),
                (false, false) => quote!(_: &impl ::warpspeed::AsDeviceView<Elem = #elem>),
            }
        }
        syn::Type::Path(p)
            if p.qself.is_none()
                && p.path.get_ident().is_some_and(|id| {
                    Scalar::from_name(&id.to_string()).is_some()
                        || generics.type_params().any(|t| t.ident == *id)
                }) =>
        {
            let t = &pt.ty;
            quote!(_: #t)
        }
        _ => any,
    }
}

/// After an error: `launch` and friends with the kernel's generic parameters (unbounded)
/// and any arguments, so the launches elsewhere add no errors of their own.
fn kernel_stub(item: &syn::ItemFn) -> TokenStream {
    let (name, vis) = (&item.sig.ident, &item.vis);
    let generics: Vec<TokenStream> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => {
                let id = &t.ident;
                Some(quote!(#id))
            }
            syn::GenericParam::Const(c) => {
                let (id, ty) = (&c.ident, &c.ty);
                Some(quote!(const #id: #ty))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let args: Vec<TokenStream> = item
        .sig
        .inputs
        .iter()
        .map(|a| stub_arg(a, &item.sig.generics))
        .collect();
    quote! {
        #[allow(dead_code, unused_variables)]
        #vis mod #name {
            // The parameter types as written (a struct's name) are the user's module's.
            #[allow(unused_imports)]
            use super::*;
            pub fn launch<#(#generics),*>(_: &::warpspeed::Device, _: ::warpspeed::LaunchConfig, #(#args),*) -> ::core::result::Result<(), ::warpspeed::Error> {
                unreachable!()
            }
            pub fn launch_cooperative<#(#generics),*>(_: &::warpspeed::Device, _: ::warpspeed::LaunchConfig, #(#args),*) -> ::core::result::Result<(), ::warpspeed::Error> {
                unreachable!()
            }
            pub fn kernel<#(#generics),*>() -> &'static ::warpspeed::KernelDef {
                unreachable!()
            }
            pub fn cuda_source<#(#generics),*>() -> ::std::string::String {
                unreachable!()
            }
        }
    }
}

/// A block extent names constants: a type parameter is not one.
fn block_names(cx: &Ctxt, o: &Options, g: &params::Generics) {
    let Some(shape) = &o.block else { return };
    for id in crate::parse::block::names(shape) {
        if g.types.iter().any(|t| t.name == *id) {
            cx.error_spanned_by(
                id,
                format!("`{id}` is a type parameter, and a block extent is a number of threads: write an integer literal or a const parameter (`fn f<const B: usize>(..)` with `block = (B, 1, 1)`)"),
            );
        }
    }
}

fn internal(what: &str) -> TokenStream {
    let msg = format!("internal error in #[gpu_kernel]: {what} (this is a warpspeed bug: please report it with the kernel that caused it)");
    quote!(compile_error!(#msg);)
}

/// Turns the base instance (`instances[0]`, `f`) into the generic view the simulator body
/// is written from: its name the user's, its types marked; and checks the literal rule.
fn generic_view(
    f: &mut Function,
    item: &syn::ItemFn,
    g: &params::Generics,
    base: &[Scalar],
    instances: &mut [Instance],
) -> Result<(), TokenStream> {
    f.name = item.sig.ident.clone();
    if generic_types(g, base, instances) != Some(0) {
        return Err(internal("an instance is missing"));
    }
    // The return type, `T` where the representatives' differ.
    if let Some((ret, _)) = f.ret.as_mut() {
        let snapshot = ret.clone();
        for (k, t) in g.types.iter().enumerate() {
            let name: &'static str = Box::leak(t.name.to_string().into_boxed_str());
            let mut want = base.to_vec();
            want[k] = t.bound.representatives().1;
            let alt = instances.iter().find(|i| i.scalars == want);
            if let Some(alt) = alt.and_then(|i| i.ret.as_ref()) {
                *ret = diff::merge(ret, &snapshot, alt, name);
            }
        }
    }
    let cx = Ctxt::new();
    literals(&cx, f, &instances[0].types, g);
    cx.check()
}

/// Parse, check and type one instance with the pipeline's front (as `expand` does a
/// concrete function), whose generic parameters `g` are.
fn analyse(
    item: &syn::ItemFn,
    kind: FnKind,
    o: &Options,
    g: &params::Generics,
    structs: &[StructDef],
    context: Option<String>,
) -> Result<(Function, Types), TokenStream> {
    let cx = Ctxt::within(context);
    match crate::front::analyse(&cx, item, kind, o, Some(g), structs.to_vec()) {
        Ok(typed) => {
            cx.check()?;
            Ok(typed)
        }
        Err(None) => Err(cx.fail("parser")),
        Err(Some(_)) => Err(cx.fail("type checker")),
    }
}

/// What an error of the instance `scalars` says after its message: which instance it
/// is, where the function has type parameters (each instance is compiled on its own, and
/// the first that does not compile reports its errors).
fn instance_context(
    g: &params::Generics,
    scalars: &[Scalar],
    item: &syn::ItemFn,
) -> Option<String> {
    if g.types.is_empty() {
        // Const parameters alone: one instance, whose errors are the function's.
        return None;
    }
    let which: Vec<String> = g
        .types
        .iter()
        .zip(scalars)
        .map(|(t, s)| format!("`{} = {}`", t.name, s.rust_name()))
        .collect();
    let bounds: Vec<String> = g
        .types
        .iter()
        .map(|t| {
            let names: Vec<&str> = t.bound.types().iter().map(|s| s.rust_name()).collect();
            format!("`{}` covers {}", t.bound.name(), names.join(", "))
        })
        .collect();
    let mut msg = format!(
        "in `{}` with {}: a generic kernel is compiled for every type of its bounds ({})",
        item.sig.ident,
        which.join(", "),
        bounds.join("; ")
    );
    if let Some(h) = scalars.iter().find(|s| s.is_half_float()) {
        msg.push_str(&format!(
            "; `{}` has no `as`: convert with `T::from_f32(..)`/`x.to_f32()`",
            h.rust_name()
        ));
    }
    Some(msg)
}

/// Marks the type parameters in the base instance's types (which then serve the
/// simulator body; its C is written already, and its constants' C names do not change);
/// the base instance's index.
fn generic_types(
    g: &params::Generics,
    base: &[Scalar],
    instances: &mut [Instance],
) -> Option<usize> {
    let at =
        |instances: &[Instance], want: &[Scalar]| instances.iter().position(|i| i.scalars == want);
    let b = at(instances, base)?;
    let snapshot = diff::snapshot(&instances[b].types);
    for (k, t) in g.types.iter().enumerate() {
        let mut alt = base.to_vec();
        alt[k] = t.bound.representatives().1;
        let a = at(instances, &alt)?;
        // A proc macro's strings live as long as the expansion: leaked, once per parameter.
        let name: &'static str = Box::leak(t.name.to_string().into_boxed_str());
        let (cur, other) = if a < b {
            let (l, r) = instances.split_at_mut(b);
            (&mut r[0].types, &l[a].types)
        } else {
            let (l, r) = instances.split_at_mut(a);
            (&mut l[b].types, &r[0].types)
        };
        diff::mark(cur, &snapshot, other, name);
    }
    Some(b)
}

/// Rust has no literal of a type parameter's type (`let x: T = 2.0` is an error): nor
/// has a kernel, which says what to write instead.
fn literals(cx: &Ctxt, f: &Function, types: &Types, g: &params::Generics) {
    crate::ir::visit::walk_block(&f.body, &mut |e| {
        if !matches!(e.kind, ExprKind::Lit(Lit::Int(..) | Lit::Float { .. })) {
            return;
        }
        if let Ty::Scalar(Scalar::Param(name)) = &types.expr[e.id] {
            let float = g
                .types
                .iter()
                .any(|t| t.name == name && t.bound == params::Bound::Float);
            let hint = if float {
                format!("`{name}::from_f32(2.5)`, `{name}::zero()`, `{name}::one()`")
            } else {
                format!("`{name}::from_i32(3)`, `{name}::zero()`, `{name}::one()`")
            };
            cx.error_at(
                e.range(),
                format!("a literal cannot have the type parameter's type `{name}` (Rust has no literals of a type parameter): write {hint}"),
            );
        }
    });
}
