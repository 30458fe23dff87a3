//! The Rust side of a generic kernel (`fn axpy<T: Float>`, `fn block_sum<const B: usize>`):
//! one C definition per type instance, each its own `SourceItem` with a mangled entry
//! (`axpy__f32`); a generic `launch::<T, B>` that picks the instance by `TypeId` and gets
//! its `KernelDef` from the runtime's instance table (built once per `(T, B)`, the const
//! parameters given to the C as the constants' macros); and one simulator body, generic
//! Rust over the same parameters, so rustc checks it against the bounds. Also the pieces
//! the simulator writer uses where a type is a parameter (`Scalar::Param`).

use super::*;
use crate::emit::cuda::CFunction;
use crate::ir::structs::StructDef;
use crate::parse::generic_params::{GenericRef, Generics};
use quote::ToTokens;

/// What the Rust writer names from inside the generated module, besides the AST: the
/// function's type parameters (the user's idents, for their spans) and const parameters
/// (a generic function's; none for a concrete one), and the structs it names, with their
/// paths. The free functions that write types and paths take it.
pub struct Scope<'a> {
    type_params: Vec<Ident>,
    const_params: Vec<Ident>,
    pub(super) structs: &'a [StructDef],
}

impl<'a> Scope<'a> {
    /// The scope of concrete function `f`.
    pub fn of(f: &'a Function) -> Scope<'a> {
        Scope {
            type_params: Vec::new(),
            const_params: Vec::new(),
            structs: &f.structs,
        }
    }

    /// The scope of generic function `f`, of parameters `g`.
    fn generic(f: &'a Function, g: &Generics) -> Scope<'a> {
        Scope {
            type_params: g.types.iter().map(|t| t.name.clone()).collect(),
            const_params: g.consts.iter().map(|c| c.name.clone()).collect(),
            structs: &f.structs,
        }
    }

    /// The user's ident of the type parameter `name` (its span, for rustc's messages).
    pub(super) fn param_ident(&self, name: &str) -> Ident {
        self.type_params
            .iter()
            .find(|i| *i == name)
            .cloned()
            .unwrap_or_else(|| Ident::new(name, Span::call_site()))
    }

    /// Whether the function being emitted has type parameters.
    pub(super) fn is_generic(&self) -> bool {
        !self.type_params.is_empty()
    }

    /// Whether `id` is a const parameter of the function being emitted.
    pub(super) fn is_const_param(&self, id: &Ident) -> bool {
        self.const_params.iter().any(|c| c == id)
    }

    /// Whether `id` is a type parameter of the function being emitted.
    fn is_type_param(&self, id: &Ident) -> bool {
        self.type_params.iter().any(|t| t == id)
    }
}

/// One instance: its types (one per type parameter, in order), its type-checked types
/// (for its constants) and its C.
pub struct Instance {
    pub scalars: Vec<Scalar>,
    pub types: Types,
    pub c: CFunction,
    /// A device function's return type.
    pub ret: Option<Ty>,
}

/// A parameter's type: the type checker's where it names a type parameter, else as written.
pub(super) fn or_ast(ast: Ty, typed: &Ty) -> Ty {
    if typed.has_param() {
        typed.clone()
    } else {
        ast
    }
}

/// The element type of a shared array or dynamic shared memory of type `t`.
pub(super) fn elem(t: &Ty, ast: Scalar) -> Scalar {
    match t {
        Ty::Slice(s, _) | Ty::Atomics(s) | Ty::Rows(s, _) if t.has_param() => *s,
        _ => ast,
    }
}

/// `l op r` on a `T`: the hidden traits' methods, which have the GPU's semantics (integer
/// arithmetic wraps, shifts mask). `None` for comparisons and `&&`/`||`, which Rust
/// spells the same for every type.
pub(super) fn binary(
    op: BinOp,
    l: &TokenStream,
    r: &TokenStream,
    span: Span,
) -> Option<TokenStream> {
    let (tr, m) = match op {
        BinOp::Add => ("GpuOps", "ws_add"),
        BinOp::Sub => ("GpuOps", "ws_sub"),
        BinOp::Mul => ("GpuOps", "ws_mul"),
        BinOp::Div => ("GpuOps", "ws_div"),
        BinOp::Rem => ("GpuOps", "ws_rem"),
        BinOp::BitAnd => ("GpuBits", "ws_and"),
        BinOp::BitOr => ("GpuBits", "ws_or"),
        BinOp::BitXor => ("GpuBits", "ws_xor"),
        BinOp::Shl => ("GpuBits", "ws_shl"),
        BinOp::Shr => ("GpuBits", "ws_shr"),
        _ => return None,
    };
    let (tr, m) = (Ident::new(tr, span), Ident::new(m, span));
    Some(if matches!(op, BinOp::Shl | BinOp::Shr) {
        quote_spanned!(span=> ::warpspeed::__private::#tr::#m(#l, (#r) as u32))
    } else {
        quote_spanned!(span=> ::warpspeed::__private::#tr::#m(#l, #r))
    })
}

/// A shift amount of type `T` as the `u32` the shift reads (`as`, which masks alike).
pub(super) fn shift_amount(sc: &Scope, op: BinOp, t: &Ty, v: TokenStream) -> TokenStream {
    if matches!(op, BinOp::Shl | BinOp::Shr) && t.has_param() {
        let t = rust_ty(sc, t);
        quote!(::warpspeed::__private::cast::<#t, u32>(#v))
    } else {
        v
    }
}

/// Which generic arguments of a call [`turbofish`] writes.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Part {
    /// The type arguments, for the callee's simulator method (`lerp::<f32>` ->
    /// `.lerp::<f32>(..)`).
    Types,
    /// The const arguments as written, for the hidden function, whose marker carries them
    /// (`nth::<{ super::TILE }>(hole())`).
    Consts,
    /// A placeholder for each const argument, where a constant names the callee (its C is
    /// the same for every value, and a constant cannot name the caller's const parameters).
    ConstHoles,
}

/// `::<f32>` of a call `scale::<f32>(..)`, the part of it `part` says (empty where that
/// part has none). A const argument names constants as seen from inside the module and
/// in braces (`::<{ super::TILE }>`: Rust reads a bare path there as a type first). Which
/// arguments are consts is `parse::generic_args`'s rule: a literal or expression, or a
/// capitalised path that is no type parameter of the caller.
pub(super) fn turbofish(sc: &Scope, path: &syn::Path, part: Part) -> TokenStream {
    let none = quote!();
    let Some(syn::PathArguments::AngleBracketed(a)) = path.segments.last().map(|s| &s.arguments)
    else {
        return none;
    };
    let args: Vec<TokenStream> = a
        .args
        .iter()
        .filter_map(|arg| {
            let konst = match arg {
                syn::GenericArgument::Type(syn::Type::Path(p))
                    if p.qself.is_none()
                        && crate::parse::is_const_name(&p.path)
                        && !p.path.get_ident().is_some_and(|id| sc.is_type_param(id)) =>
                {
                    let v = path_from_module(sc, &p.path);
                    Some(quote_spanned!(arg.span()=> { #v }))
                }
                syn::GenericArgument::Const(e) => {
                    let v = consts::expr_from_module(sc, unbraced(e));
                    Some(quote_spanned!(arg.span()=> { #v }))
                }
                _ => None,
            };
            match (part, konst) {
                (Part::Types, None) => Some(quote!(#arg)),
                (Part::Consts, Some(c)) => Some(c),
                (Part::ConstHoles, Some(_)) => {
                    Some(quote_spanned!(arg.span()=> { ::warpspeed::__private::const_hole() }))
                }
                _ => None,
            }
        })
        .collect();
    if args.is_empty() {
        return none;
    }
    // The brackets at the user's, so rustc's "remove the unnecessary generic argument"
    // points there.
    quote_spanned!(a.span()=> ::<#(#args),*>)
}

/// `e` without the braces of `{ e }`.
fn unbraced(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(inner, None) => unbraced(inner),
            _ => e,
        },
        _ => e,
    }
}

/// `-x` and `!x` on a `T`.
pub(super) fn unary(op: UnOp, v: TokenStream, span: Span) -> TokenStream {
    match op {
        UnOp::Neg => quote_spanned!(span=> ::warpspeed::__private::GpuOps::ws_neg(#v)),
        UnOp::Not => quote_spanned!(span=> ::warpspeed::__private::GpuBits::ws_not(#v)),
    }
}

/// A conversion to or from a `T` (`T::from_f32(v)`, `x.to_usize()`): Rust's `as`, through
/// the runtime's `cast`, since Rust has no `as` for a type parameter.
pub(super) fn cast(sc: &Scope, from: &Ty, to: &Ty, v: TokenStream, span: Span) -> TokenStream {
    let (from, to) = (rust_ty(sc, from), rust_ty(sc, to));
    quote_spanned!(span=> ::warpspeed::__private::cast::<#from, #to>(#v))
}

/// The module of a generic function. `f` and `types` are the base instance's, with the
/// type parameters marked (`generics::diff`); `instances` hold every instance's C.
pub(crate) fn generic_module(
    f: &Function,
    types: &Types,
    g: &Generics,
    instances: &[Instance],
) -> TokenStream {
    module_tokens(&Scope::generic(f, g), f, types, g, instances)
}

fn module_tokens(
    sc: &Scope,
    f: &Function,
    types: &Types,
    g: &Generics,
    instances: &[Instance],
) -> TokenStream {
    if f.kind == FnKind::Device {
        return device_module(sc, f, types, g, instances);
    }
    let rust_name = f.name.to_string();
    // `<T: ::warpspeed::Float, const B: usize>` and `::<T, B>`.
    let decl_items = decl_items(g);
    let arg_items: Vec<TokenStream> = param_names(g)
        .into_iter()
        .map(|n| n.to_token_stream())
        .collect();
    let decl = quote!(<#(#decl_items),*>);
    let args = quote!(::<#(#arg_items),*>);
    let deps = device_deps(sc, &f.body);
    // The `#[gpu_struct]`s the function names: their C definitions come first.
    let struct_deps = super::structs::struct_deps(sc);
    let type_params: Vec<&Ident> = g.types.iter().map(|t| &t.name).collect();
    let type_count = type_params.len();
    let mut items = Vec::new();
    let mut arms = Vec::new();
    for (i, inst) in instances.iter().enumerate() {
        let item = format_ident!("__ITEM_{}", i);
        let consts = format_ident!("__consts_{}", i);
        let (prototype, definition, entry) = (
            &inst.c.prototype,
            with_file(&inst.c.definition),
            &inst.c.c_name,
        );
        let (consts_fn, consts_ref) =
            consts::consts_fn_named(sc, f, &inst.types, &consts, &decl, &args);
        items.push(quote! {
            static #item: ::warpspeed::__private::SourceItem = ::warpspeed::__private::SourceItem {
                rust_name: #rust_name,
                prototype: #prototype,
                definition: #definition,
                deps: &[#(#deps.item(),)* #(#struct_deps),*],
                consts: ::core::option::Option::None,
            };
            #consts_fn
        });
        let tys = inst.scalars.iter().map(|s| scalar_ty(sc, *s));
        arms.push(quote! {
            if __t == [#(::core::any::TypeId::of::<#tys>()),*] {
                return (#entry, &#item, #consts_ref);
            }
        });
    }
    let bounds: Vec<String> = g
        .types
        .iter()
        .map(|t| {
            let names: Vec<&str> = t.bound.types().iter().map(|s| s.rust_name()).collect();
            format!("`{}: {}` ({})", t.name, t.bound.name(), names.join(", "))
        })
        .collect();
    let what = format!(
        "The generic GPU kernel `{rust_name}`, compiled once per instance{}: launch it with [`{rust_name}::launch`](self::launch), which infers the type parameters from its arguments (or takes them named, `launch::<..>`). An instance's CUDA C is [`cuda_source::<..>()`](self::cuda_source), its `KernelDef` [`kernel::<..>()`](self::kernel), the functions a concrete kernel's module has too; the statics `CUDA_SOURCE` and `KERNEL` of a concrete kernel do not exist for a generic one (a static cannot be generic).",
        if bounds.is_empty() { String::new() } else { format!(" of {}", bounds.join(", ")) }
    );
    let kernel_items = kernel_items(sc, f, types, g, (&decl, &decl_items, &args));
    let sim = sim_fn_with(sc, f, types, decl.clone());
    let body = quote! {
            #(#items)*

            /// The instance of the type parameters: its C entry, its definition and the
            /// constants' macros (the const parameters' values among them).
            fn __instance #decl () -> (
                &'static str,
                &'static ::warpspeed::__private::SourceItem,
                ::core::option::Option<fn() -> ::std::string::String>,
            ) {
                let __t: [::core::any::TypeId; #type_count] =
                    [#(::core::any::TypeId::of::<#type_params>()),*];
                #(#arms)*
                unreachable!("the bounds are sealed: every type they admit has an instance")
            }

            /// The complete CUDA C program of one instance, as NVRTC compiles it.
            pub fn cuda_source #decl () -> ::std::string::String {
                let (_, __item, __consts) = __instance #args ();
                ::warpspeed::__private::collect_source_with(__item, __consts)
            }

            #kernel_items
            #sim
    };
    fn_module(sc, f, &what, body)
}

/// The names of the type and const parameters, in the order written (`T`, `B`).
fn param_names(g: &Generics) -> Vec<&Ident> {
    g.order
        .iter()
        .map(|r| match *r {
            GenericRef::Type(i) => &g.types[i].name,
            GenericRef::Const(i) => &g.consts[i].name,
        })
        .collect()
}

/// `T: ::warpspeed::Float`, `const B: usize`, in the order written.
fn decl_items(g: &Generics) -> Vec<TokenStream> {
    g.order
        .iter()
        .map(|r| match *r {
            GenericRef::Type(i) => {
                let (n, b) = (
                    &g.types[i].name,
                    Ident::new(g.types[i].bound.name(), Span::call_site()),
                );
                quote!(#n: ::warpspeed::#b)
            }
            GenericRef::Const(i) => {
                let (n, t) = (&g.consts[i].name, &g.consts[i].ty);
                quote!(const #n: #t)
            }
        })
        .collect()
}

/// `<T: ::warpspeed::Float>`: the type parameters alone (empty without any).
fn type_decl(g: &Generics) -> TokenStream {
    let items: Vec<TokenStream> = decl_items(g)
        .into_iter()
        .zip(&g.order)
        .filter(|(_, r)| matches!(r, GenericRef::Type(_)))
        .map(|(d, _)| d)
        .collect();
    if items.is_empty() {
        return quote!();
    }
    quote!(<#(#items),*>)
}

/// A generic device function's module: one `ITEM` holding every instance, each a C++
/// overload of the function's C name (`generics::device`), those whose C coincides once;
/// and the generic simulator body its callers' bodies call.
fn device_module(
    sc: &Scope,
    f: &Function,
    types: &Types,
    g: &Generics,
    instances: &[Instance],
) -> TokenStream {
    let rust_name = f.name.to_string();
    let mut seen: Vec<&str> = Vec::new();
    let (mut prototypes, mut definitions) = (String::new(), String::new());
    for inst in instances {
        if seen.contains(&inst.c.prototype.as_str()) {
            continue;
        }
        seen.push(&inst.c.prototype);
        prototypes.push_str(&inst.c.prototype);
        prototypes.push('\n');
        definitions.push_str(&inst.c.definition);
        definitions.push('\n');
    }
    let definition = with_file(&definitions);
    let deps = device_deps(sc, &f.body);
    // The `#[gpu_struct]`s the function names: their C definitions come first.
    let struct_deps = super::structs::struct_deps(sc);
    let (consts_fn, consts) = consts_fn(sc, f, &instances[0].types);
    // The const parameters are the bound form's (`device::bound_impl`), the types the
    // method's.
    let sim = sim_fn_with(sc, f, types, type_decl(g));
    let what = format!("The generic device function `{rust_name}`, callable from kernels: one C overload per instance.");
    let body = quote! {
            /// The CUDA C of every instance of this function.
            pub static ITEM: ::warpspeed::__private::SourceItem = ::warpspeed::__private::SourceItem {
                rust_name: #rust_name,
                prototype: #prototypes,
                definition: #definition,
                deps: &[#(#deps.item(),)* #(#struct_deps),*],
                consts: #consts,
            };
            #consts_fn
            #sim
    };
    fn_module(sc, f, &what, body)
}

/// `kernel::<..>()`, `launch`, `launch_cooperative` and the simulator entry.
fn kernel_items(
    sc: &Scope,
    f: &Function,
    types: &Types,
    g: &Generics,
    (decl, decl_items, args_g): (&TokenStream, &[TokenStream], &TokenStream),
) -> TokenStream {
    let rust_name = f.name.to_string();
    let fast_math = f.fast_math;
    let grid_sync = types.grid_sync;
    let block = block_shape(sc, f);
    let ctx = hyg("__ctx");
    let elem = |p: &Param| match or_ast(p.ty.ty(), &types.vars[p.var].ty) {
        Ty::Scalar(s) | Ty::Slice(s, _) | Ty::Atomics(s) => s,
        _ => param_elem(p.ty),
    };
    let LaunchParts {
        launchers,
        unpack,
        param_names,
    } = launch_parts(sc, f, &elem, decl, &quote!(kernel #args_g ()));
    let key_params: Vec<TokenStream> = g
        .order
        .iter()
        .map(|r| match *r {
            GenericRef::Type(i) => g.types[i].name.to_token_stream(),
            GenericRef::Const(i) => {
                let (n, t) = (&g.consts[i].name, &g.consts[i].ty);
                quote!(const #n: #t)
            }
        })
        .collect();
    let phantom: Vec<&Ident> = g.types.iter().map(|t| &t.name).collect();
    quote! {
        /// Names one instance in the runtime's table (`TypeId`).
        struct __Instance<#(#key_params),*>(::core::marker::PhantomData<(#(#phantom,)*)>);

        /// What the runtime needs to compile and launch one instance (built once).
        pub fn kernel #decl () -> &'static ::warpspeed::KernelDef {
            ::warpspeed::__private::kernel_instance(
                ::core::any::TypeId::of::<__Instance #args_g>(),
                || ::warpspeed::KernelDef {
                    rust_name: #rust_name,
                    entry: __instance #args_g ().0,
                    source: ::warpspeed::__private::leak_source(cuda_source #args_g),
                    options: ::warpspeed::__private::KernelOptions { fast_math: #fast_math },
                    params: &[#(#param_names),*],
                    grid_sync: #grid_sync,
                    block: #block,
                    sim: __sim_entry #args_g,
                    // An instance's checks all stay: its conditions are not written.
                    provable: &[],
                },
            )
        }

        #(#launchers)*

        fn __sim_entry<'a, #(#decl_items),*>(
            #ctx: &'a ::warpspeed::__private::ThreadCtx<'a>,
        ) -> ::warpspeed::__private::SimFuture<'a> {
            ::std::boxed::Box::pin(__sim #args_g (#ctx, #(#unpack),*))
        }
    }
}
