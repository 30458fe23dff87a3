//! A `#[gpu_device]` function as host code calls it: `fn classify(v: i32) -> (u32, bool)`
//! in the value namespace is a real Rust function with the signature as written, whose body
//! runs the function's simulator body on the host (`host_call`, runtime/src/sim/host.rs),
//! so a CPU reference computes exactly what the kernel computes. Kernels reach the function
//! through its module (`classify::classify`, the marker) and its hand-over macro, never
//! through this function. A function that is kernel code (`classify::kernel_only()` names
//! what makes it so) panics, saying so.

use proc_macro2::TokenStream;
use quote::quote;

/// The host function of device function `item` (the item as the user wrote it).
/// `refused`: rustc refuses the signature itself (a generic struct's arguments): then the
/// body names no parameter, since a closure that captured one would be a second error of
/// rustc's about its type.
pub fn host_fn(item: &syn::ItemFn, refused: bool) -> TokenStream {
    let mut sig = item.sig.clone();
    let name = &sig.ident;
    let name_text = name.to_string();
    let mut args = Vec::new();
    let mut kernel_only: Option<&str> = None;
    for (i, input) in sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(pt) = input else {
            return quote!();
        };
        pt.attrs.clear();
        // `_: u32` (or any other pattern) gets a name to pass on.
        if !matches!(&*pt.pat, syn::Pat::Ident(_)) {
            let id = quote::format_ident!("__ws_arg{}", i, span = proc_macro2::Span::mixed_site());
            *pt.pat = syn::parse_quote!(#id);
        }
        let syn::Pat::Ident(id) = &*pt.pat else {
            return quote!();
        };
        let arg = id.ident.clone();
        let arg = &arg;
        args.push(match &*pt.ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) if quote!(#s).to_string().contains("Atomic") => {
                    kernel_only.get_or_insert("atomics");
                    quote!(#arg)
                }
                syn::Type::Slice(_) if r.mutability.is_some() => {
                    quote!(::warpspeed::__private::SliceMut::host(#arg))
                }
                syn::Type::Slice(_) => quote!(::warpspeed::__private::Slice::host(#arg)),
                syn::Type::Path(p)
                    if p.path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "SharedArray") =>
                {
                    kernel_only.get_or_insert("shared memory");
                    quote!(#arg)
                }
                // A texture (kernels only), or a reference the function refuses anyway.
                _ => {
                    kernel_only.get_or_insert("textures");
                    quote!(#arg)
                }
            },
            _ => quote!(#arg),
        });
    }
    let types: Vec<&syn::Ident> = sig.generics.type_params().map(|t| &t.ident).collect();
    let consts: Vec<&syn::Ident> = sig.generics.const_params().map(|c| &c.ident).collect();
    let types = if types.is_empty() {
        quote!()
    } else {
        quote!(::<#(#types),*>)
    };
    let consts = if consts.is_empty() {
        quote!()
    } else {
        quote!(::<#(#consts),*>)
    };
    let docs = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc") || a.path().is_ident("allow"));
    let vis = &item.vis;
    // Hygienic: a parameter of the same name stays the user's.
    let ctx = proc_macro2::Ident::new("__ctx", proc_macro2::Span::mixed_site());
    let body = if refused {
        quote!(unreachable!())
    } else if let Some(what) = kernel_only {
        // Atomics in memory and textures are kernel code: no host value stands for them.
        quote!(::warpspeed::__private::kernel_code(#name_text, #what))
    } else {
        quote! {
            ::warpspeed::__private::host_call(#name_text, #name::kernel_only(), move |#ctx| {
                ::std::boxed::Box::pin(#name::#name #consts.with(#ctx).#name #types (#(#args),*))
            })
        }
    };
    quote! {
        #(#docs)*
        #[allow(dead_code, unused_mut, unused_variables, clippy::all)]
        #vis #sig {
            #body
        }
    }
}
