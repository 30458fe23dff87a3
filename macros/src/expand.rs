//! The pipeline of one `#[gpu_kernel]` / `#[gpu_device]`: parse, check, type, emit C,
//! emit Rust. On error: the errors, plus a stub with the same signature so call sites do
//! not pile up secondary errors.

use crate::ctxt::Ctxt;
use crate::parse::ast::{FnKind, Function};
use crate::parse::Parser;
use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(args: TokenStream, input: TokenStream, kind: FnKind) -> TokenStream {
    // The macro never panics: a bug in it becomes a compile error that says so.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        expand_inner(args, input, kind)
    })) {
        Ok(ts) => ts,
        Err(_) => {
            quote!(compile_error!("internal error in #[gpu_kernel] (this is a warpspeed bug: please report it with the kernel that caused it)");)
        }
    }
}

/// The pipeline itself, without the safety net (the fuzz tests drive it, to see panics).
pub(crate) fn expand_inner(args: TokenStream, input: TokenStream, kind: FnKind) -> TokenStream {
    let cx = Ctxt::default();
    let (fast_math, unchecked) = parse_args(&cx, args, kind);
    let item: syn::ItemFn = match syn::parse2(input) {
        Ok(item) => item,
        Err(err) => {
            let what = if kind == FnKind::Kernel {
                "#[gpu_kernel]"
            } else {
                "#[gpu_device]"
            };
            let mut e = syn::Error::new(err.span(), format!("{what} applies to a function: {err}"));
            if let Some(errs) = cx.take() {
                e.combine(syn::Error::new(
                    proc_macro2::Span::call_site(),
                    errs.to_string(),
                ));
            }
            return e.to_compile_error();
        }
    };
    let mut parser = Parser::new(&cx);
    let f = parser.function(&item, kind, fast_math).map(|mut f| {
        f.unchecked = unchecked;
        f
    });
    let var_count = parser.next_var;
    let Some(f) = f else {
        return cx.take().unwrap_or_default();
    };
    crate::check::check(&cx, &f);
    let types = crate::ir::typeck::check(&cx, &f, var_count);
    if let Some(errors) = cx.take() {
        if item.sig.receiver().is_some() {
            // Inside an `impl`, where a module stub would be one more error.
            return errors;
        }
        let stub = fallback(&f);
        return quote!(#errors #stub);
    }
    let Some(types) = types else { return quote!() };
    let c = crate::emit::cuda::write_function(&f, &types);
    crate::emit::host::module(&f, &types, &c)
}

/// `#[gpu_kernel(fast_math, unchecked)]`, `#[gpu_device(unchecked)]`: (fast_math, unchecked).
fn parse_args(cx: &Ctxt, args: TokenStream, kind: FnKind) -> (bool, bool) {
    let (mut fast_math, mut unchecked) = (false, false);
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("fast_math") && kind == FnKind::Kernel {
            fast_math = true;
            Ok(())
        } else if meta.path.is_ident("unchecked") {
            unchecked = true;
            Ok(())
        } else {
            Err(meta.error(
                "unknown option: #[gpu_kernel] takes `fast_math` and `unchecked`; #[gpu_device] takes `unchecked`",
            ))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
    (fast_math, unchecked)
}

/// A module with the kernel's `launch` signature and no body, after an error.
fn fallback(f: &Function) -> TokenStream {
    let name = &f.name;
    let vis = &f.vis;
    // A parameter declared twice is reported already; a second copy would be rustc's E0415.
    let mut seen = Vec::new();
    let params = f.params.iter().filter(|p| {
        let dup = seen.contains(&&p.name);
        seen.push(&p.name);
        !dup
    });
    let params: Vec<_> = params.map(crate::emit::host::launch_param).collect();
    let launch = if f.kind == FnKind::Kernel {
        quote! {
            pub fn launch(dev: &::warpspeed::Device, cfg: ::warpspeed::LaunchConfig, #(#params),*) -> ::core::result::Result<(), ::warpspeed::Error> {
                unreachable!()
            }
            pub fn launch_cooperative(dev: &::warpspeed::Device, cfg: ::warpspeed::LaunchConfig, #(#params),*) -> ::core::result::Result<(), ::warpspeed::Error> {
                unreachable!()
            }
        }
    } else {
        quote!()
    };
    quote! {
        #[allow(dead_code, unused_variables)]
        #vis mod #name {
            pub static ITEM: ::warpspeed::__private::SourceItem = ::warpspeed::__private::SourceItem {
                rust_name: "", prototype: "", definition: "", deps: &[],
            };
            #launch
        }
    }
}
