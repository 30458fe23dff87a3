//! The one driver of a `#[gpu_kernel]` / `#[gpu_device]`: the options, then the front
//! (`front::analyse`: parse, check, type), emit C, emit Rust; a generic function goes to
//! the generics stage (`generics::expand`), which runs the same front once per instance.
//! On error: the errors, plus a stub with the same signature so call sites do not pile up
//! secondary errors.

use crate::ctxt::Ctxt;
use crate::ir::ast::{FnKind, Function};
use crate::ir::structs::StructDef;
use proc_macro2::TokenStream;
use quote::quote;

/// The expansion of a function that may name the `#[gpu_struct]`s `structs`.
pub fn expand(
    args: TokenStream,
    input: TokenStream,
    kind: FnKind,
    structs: Vec<StructDef>,
) -> TokenStream {
    // The macro never panics: a bug in it becomes a compile error that says so.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pipeline(args, input, kind, structs)
    })) {
        Ok(ts) => ts,
        Err(_) => {
            quote!(compile_error!("internal error in #[gpu_kernel] (this is a warpspeed bug: please report it with the kernel that caused it)");)
        }
    }
}

/// The pipeline without the safety net, for a function that names no struct (the fuzz
/// tests drive it, to see panics).
#[cfg(test)]
pub(crate) fn expand_inner(args: TokenStream, input: TokenStream, kind: FnKind) -> TokenStream {
    pipeline(args, input, kind, Vec::new())
}

/// The pipeline itself.
fn pipeline(
    args: TokenStream,
    input: TokenStream,
    kind: FnKind,
    structs: Vec<StructDef>,
) -> TokenStream {
    let cx = Ctxt::new();
    let options = crate::front::parse_args(&cx, args, kind);
    let item: syn::ItemFn = match syn::parse2(input) {
        Ok(item) => item,
        Err(err) => {
            let what = if kind == FnKind::Kernel {
                "#[gpu_kernel]"
            } else {
                "#[gpu_device]"
            };
            cx.syn_error(syn::Error::new(
                err.span(),
                format!("{what} applies to a function: {err}"),
            ));
            return cx.fail("parser");
        }
    };
    if !item.sig.generics.params.is_empty() || item.sig.generics.where_clause.is_some() {
        // The generics stage: the front below once per instance, then one module.
        return crate::generics::expand(cx, &item, kind, options, structs);
    }
    let (f, types) = match crate::front::analyse(&cx, &item, kind, &options, None, structs) {
        Ok(typed) => typed,
        Err(None) => {
            let errors = cx.fail("parser");
            if item.sig.receiver().is_some() {
                return errors;
            }
            let stub = crate::generics::stub(&item, kind);
            return quote!(#errors #stub);
        }
        Err(Some(f)) => {
            let errors = cx.fail("type checker");
            if item.sig.receiver().is_some() {
                // Inside an `impl`, where a module stub would be one more error.
                return errors;
            }
            let stub = fallback(&f, &item);
            return quote!(#errors #stub);
        }
    };
    if let Err(errors) = cx.check() {
        return errors;
    }
    let c = crate::emit::cuda::write_function(&f, &types);
    crate::emit::host::module(&f, &types, &c)
}

/// A module with the kernel's `launch` signature and no body, after an error (a device
/// function's: `device_fallback`). Where a parameter was refused, the parameters as
/// written (`generics::stub`), so the launches elsewhere add no errors of their own.
fn fallback(f: &Function, item: &syn::ItemFn) -> TokenStream {
    let name = &f.name;
    let vis = &f.vis;
    if f.kind == FnKind::Device || f.params.len() != item.sig.inputs.len() {
        return crate::generics::stub(item, f.kind);
    }
    // A parameter declared twice is reported already; a second copy would be rustc's E0415.
    let mut seen = Vec::new();
    let params = f.params.iter().filter(|p| {
        let dup = seen.contains(&&p.name);
        seen.push(&p.name);
        !dup
    });
    let sc = crate::emit::host::Scope::of(f);
    let params: Vec<_> = params
        .map(|p| crate::emit::host::launch_param(&sc, p))
        .collect();
    quote! {
        #[allow(dead_code, unused_variables)]
        #vis mod #name {
            pub static ITEM: ::warpspeed::__private::SourceItem = ::warpspeed::__private::SourceItem {
                rust_name: "", prototype: "", definition: "", deps: &[], consts: None,
            };
            pub fn launch(dev: &::warpspeed::Device, cfg: ::warpspeed::LaunchConfig, #(#params),*) -> ::core::result::Result<(), ::warpspeed::Error> {
                unreachable!()
            }
            pub fn launch_cooperative(dev: &::warpspeed::Device, cfg: ::warpspeed::LaunchConfig, #(#params),*) -> ::core::result::Result<(), ::warpspeed::Error> {
                unreachable!()
            }
            pub fn kernel() -> &'static ::warpspeed::KernelDef {
                unreachable!()
            }
            pub fn cuda_source() -> ::std::string::String {
                unreachable!()
            }
        }
    }
}
