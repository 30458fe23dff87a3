//! The Rust side of a kernel: the module named after it, with its CUDA source, its
//! typed `launch`, and the simulator body — the kernel re-emitted as Rust with every
//! inferred type written out, so rustc proves the macro's inference (a disagreement is a
//! build error, never a kernel that computes something else than the Rust reads).

use crate::analysis::typeck::{ConstInfo, Types};
use crate::emit::cuda::{CFunction, FILE_MARKER};
use crate::ir::ast::*;
use crate::ir::atomics::{AtomicOp, CasUse};
use crate::ir::call::Call;
use crate::ir::groups::{GroupKind, GroupMethod};
use crate::ir::intrinsics::ParamKind;
use crate::ir::methods::Sim;
use crate::ir::numeric_consts::ConstPath;
use crate::ir::texture::TexMethod;
use crate::ir::ty::fragment::FragMethod;
use crate::ir::ty::{Len, Scalar, Ty};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

mod consts;
mod device;
mod generic;
mod matching;
mod provable;
mod slices;
mod structs;
use consts::{const_value, consts_fn, len_rust};
pub(crate) use device::device_fallback;
use device::{
    bound_impl, callee, const_decls, cycle_checks, device_deps, device_marker, kernel_only,
};
pub(crate) use generic::generic_module;
use generic::Part;
pub use generic::{Instance, Scope};
use matching::{binding, match_pat};
use syn::spanned::Spanned;

pub fn module(f: &Function, types: &Types, c: &CFunction) -> TokenStream {
    let sc = &Scope::of(f);
    let rust_name = f.name.to_string();
    let prototype = &c.prototype;
    let definition = with_file(&c.definition);
    let deps = device_deps(sc, &f.body);
    let struct_deps = structs::struct_deps(sc);
    let sim = sim_fn(sc, f, types);
    let (consts_fn, consts) = consts_fn(sc, f, types);
    let item = quote! {
        /// The CUDA C of this function (see `CUDA_SOURCE` on kernels for the whole program).
        pub static ITEM: ::warpspeed::__private::SourceItem = ::warpspeed::__private::SourceItem {
            rust_name: #rust_name,
            prototype: #prototype,
            definition: #definition,
            deps: &[#(#deps.item(),)* #(#struct_deps),*],
            consts: #consts,
        };
        #consts_fn
    };
    let kernel_items = match f.kind {
        FnKind::Device => quote!(),
        FnKind::Kernel => kernel_items(sc, f, c, types),
    };
    let what = match f.kind {
        FnKind::Kernel => format!(
            "The GPU kernel `{rust_name}`: launch it with [`{rust_name}::launch`](self::launch). Its CUDA C is [`cuda_source()`](self::cuda_source) (also the static `CUDA_SOURCE`), its `KernelDef` [`kernel()`](self::kernel) (also `KERNEL`), as a generic kernel's instances have theirs."
        ),
        FnKind::Device => format!("The device function `{rust_name}`, callable from kernels."),
    };
    fn_module(sc, f, &what, quote!(#item #kernel_items #sim))
}

/// The module named after a function (`mod life`, next to `fn life`'s name in the other
/// namespace): the function's docs, what the module is, and `body`.
///
/// A device function also gets its marker type (in the module), which its callers name
/// (`callee`, runtime/src/device_fn.rs), and `kernel_only()`, which its host function
/// (`emit::host_fn`) asks.
fn fn_module(sc: &Scope, f: &Function, what: &str, body: TokenStream) -> TokenStream {
    let (name, vis, docs) = (&f.name, &f.vis, &f.docs);
    let cycles = cycle_checks(sc, f);
    let marker = match f.kind {
        FnKind::Kernel => quote!(),
        FnKind::Device => {
            let marker = device_marker(name, &const_decls(sc, f), false);
            let kernel_only = kernel_only(sc, f);
            quote!(#marker #kernel_only)
        }
    };
    quote! {
        #(#docs)*
        #[doc = ""]
        #[doc = #what]
        #[allow(dead_code, non_snake_case, non_camel_case_types, unreachable_code, clippy::all)]
        #vis mod #name {
            #marker
            #(#cycles)*
            #body
        }
    }
}

/// `concat!("..#line 3 \"", file!(), "\"..")`: the C with the Rust file name filled in.
fn with_file(c: &str) -> TokenStream {
    let parts: Vec<&str> = c.split(FILE_MARKER).collect();
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(quote!(file!()));
        }
        out.push(quote!(#p));
    }
    quote!(concat!(#(#out),*))
}

/// The path, seen from inside the generated module, of a function the user's code names.
fn path_from_module(sc: &Scope, path: &syn::Path) -> TokenStream {
    let mut segs: Vec<TokenStream> = Vec::new();
    let first = path
        .segments
        .first()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    // `super` takes the span of the user's first segment, so rustc's errors about the call
    // (wrong argument count, result type) point at the call, not at `#[gpu_kernel]`.
    let first_span = path
        .segments
        .first()
        .map(|s| s.ident.span())
        .unwrap_or_else(Span::call_site);
    // Paths that start at a crate (`warpspeed::AtomicF32`, `core::sync::atomic::Ordering`)
    // are the same from inside the module.
    let extern_crate =
        ["core", "std", "alloc", "warpspeed"].contains(&first.as_str()) && path.segments.len() > 1;
    // A const parameter of a generic function is in scope in the generated functions.
    if let Some(id) = path.get_ident().filter(|id| sc.is_const_param(id)) {
        return quote!(#id);
    }
    if path.leading_colon.is_some() || first == "crate" || extern_crate {
        // absolute: unchanged
    } else {
        segs.push(quote_spanned!(first_span=> super));
    }
    for (i, s) in path.segments.iter().enumerate() {
        let id = &s.ident;
        if i == 0 && first == "self" {
            continue;
        }
        segs.push(quote!(#id));
    }
    let lead = if path.leading_colon.is_some() || extern_crate {
        quote!(::)
    } else {
        quote!()
    };
    quote!(#lead #(#segs)::*)
}

fn kernel_items(sc: &Scope, f: &Function, c: &CFunction, types: &Types) -> TokenStream {
    let (entry, grid_sync) = (&c.c_name, types.grid_sync);
    let provable = provable::provable_table(sc, f, types, &c.provable);
    let rust_name = f.name.to_string();
    let fast_math = f.fast_math;
    let block = block_shape(sc, f);
    let LaunchParts {
        launchers,
        unpack,
        param_names,
    } = launch_parts(sc, f, &|p| param_elem(p.ty), &quote!(), &quote!(&KERNEL));
    let ctx = hyg("__ctx");
    quote! {
        /// The complete CUDA C program of this kernel, as NVRTC compiles it.
        pub static CUDA_SOURCE: ::std::sync::LazyLock<::std::string::String> =
            ::std::sync::LazyLock::new(|| ::warpspeed::__private::collect_source(&ITEM));

        /// The complete CUDA C program of this kernel (`CUDA_SOURCE`'s text), as a generic
        /// kernel's module gives an instance's (`cuda_source::<..>()`).
        pub fn cuda_source() -> ::std::string::String {
            ::std::string::String::clone(&CUDA_SOURCE)
        }

        /// What the runtime needs to compile and launch this kernel (`&KERNEL`), as a
        /// generic kernel's module gives an instance's (`kernel::<..>()`).
        pub fn kernel() -> &'static ::warpspeed::KernelDef {
            &KERNEL
        }

        /// What the runtime needs to compile and launch this kernel.
        pub static KERNEL: ::warpspeed::__private::KernelDef = ::warpspeed::__private::KernelDef {
            rust_name: #rust_name,
            entry: #entry,
            source: &CUDA_SOURCE,
            options: ::warpspeed::__private::KernelOptions { fast_math: #fast_math },
            params: &[#(#param_names),*],
            grid_sync: #grid_sync,
            block: #block,
            sim: __sim_entry,
            provable: #provable,
        };

        #(#launchers)*

        fn __sim_entry<'a>(
            #ctx: &'a ::warpspeed::__private::ThreadCtx<'a>,
        ) -> ::warpspeed::__private::SimFuture<'a> {
            ::std::boxed::Box::pin(__sim(#ctx, #(#unpack),*))
        }
    }
}

/// `#[gpu_kernel(block = ..)]` as the `KernelDef`'s `Option<[u32; 3]>`.
/// An extent naming a constant (`block = (B, 1, 1)`) is Rust's value, checked against the
/// GPU's limits in a const context (`checked_block`): a compile error where it is wrong.
fn block_shape(sc: &Scope, f: &Function) -> TokenStream {
    let Some(b) = &f.block else {
        return quote!(::core::option::Option::None);
    };
    if b.iter().all(|l| matches!(l, Len::Lit(_))) {
        let v = b.iter().map(|l| match l {
            Len::Lit(v) => proc_macro2::Literal::u64_unsuffixed(*v),
            Len::Const(_) => proc_macro2::Literal::u64_unsuffixed(0),
        });
        return quote!(::core::option::Option::Some([#(#v),*]));
    }
    let v = b.iter().map(|l| match l {
        Len::Lit(v) => {
            let v = proc_macro2::Literal::u64_unsuffixed(*v);
            quote!(#v)
        }
        Len::Const(c) => {
            let e = syn::parse_str::<syn::Expr>(&c.path)
                .map(|e| consts::expr_from_module(sc, &e))
                .unwrap_or_else(|_| quote!(0));
            let e: TokenStream = e
                .into_iter()
                .map(|mut t| {
                    t.set_span(c.span);
                    t
                })
                .collect();
            quote_spanned!(c.span=> (#e) as u64)
        }
    });
    quote!(::core::option::Option::Some(const { ::warpspeed::__private::checked_block([#(#v),*]) }))
}

/// What the launch functions of a kernel are made of.
struct LaunchParts {
    /// `launch` and `launch_cooperative`.
    launchers: [TokenStream; 2],
    /// The simulator entry's reads of the arguments, in order.
    unpack: Vec<TokenStream>,
    param_names: Vec<String>,
}

/// `launch` and `launch_cooperative` of `f`, its parameters' element types given by
/// `elem` (a generic kernel's are `T` where the types say so), generic over `decl`
/// (`<T: ::warpspeed::Float>`, or nothing), launching the definition `kernel`.
fn launch_parts(
    sc: &Scope,
    f: &Function,
    elem: &dyn Fn(&Param) -> Scalar,
    decl: &TokenStream,
    kernel: &TokenStream,
) -> LaunchParts {
    let rust_name = f.name.to_string();
    let taken: Vec<String> = f.params.iter().map(|p| p.name.to_string()).collect();
    let pick = |n: &str| {
        if taken.iter().any(|t| t == n) {
            format_ident!("__{}", n)
        } else {
            format_ident!("{}", n)
        }
    };
    let (dev, cfg) = (pick("dev"), pick("cfg"));
    let mut params = Vec::new();
    let mut pushes = Vec::new();
    let mut unpack = Vec::new();
    let args = hyg("__args");
    let ctx = hyg("__ctx");
    let checks = f.params.iter().filter_map(|p| {
        let decl = p.len.as_ref()?;
        let (n, need) = (&p.name, len_need(&decl.expr));
        let decl = len_decl(f, p, decl);
        Some(quote! {
            ::warpspeed::__private::check_len(#rust_name, #decl, #n.len(), #need)?;
        })
    });
    let checks: Vec<TokenStream> = checks.collect();
    for (i, p) in f.params.iter().enumerate() {
        let n = &p.name;
        params.push(launch_param_of(sc, p, elem(p)));
        let (push, get) = match p.ty {
            ParamTy::Scalar(_) => ("scalar", "arg_scalar"),
            ParamTy::Slice { mutable: false, .. } => ("slice", "arg_slice"),
            ParamTy::Slice { mutable: true, .. } => ("slice_mut", "arg_slice_mut"),
            ParamTy::Atomics(_) => ("slice_mut", "arg_atomic"),
            ParamTy::Texture2D(_) => ("texture", "arg_texture"),
            ParamTy::TensorMap(_) => ("tensor_map", "arg_tensor_map"),
            // Kernels take no arrays by value nor shared tiles (the parser refuses them).
            ParamTy::Array { .. } | ParamTy::Rows { .. } => ("scalar", "arg_scalar"),
        };
        let t = scalar_ty(sc, elem(p));
        let (push, get) = (
            Ident::new(push, Span::call_site()),
            Ident::new(get, Span::call_site()),
        );
        pushes.push(quote!(#args.#push::<#t>(#n);));
        unpack.push(quote!(#ctx.#get::<#t>(#i)));
    }
    let coop_doc = format!(
        "Launches `{rust_name}` so that every block of the grid is resident at once (CUDA's cooperative launch), as `this_grid().sync()` needs; an error if the grid is larger than the device holds at once."
    );
    let doc = format!(
        "Launches `{rust_name}` on `{dev}` (a `&Device`, or a `&Stream` to queue it on that stream) with the grid and blocks of `{cfg}`. Returns once the launch is queued; errors of the run itself surface at the next synchronisation (`download`, `Device::synchronize`, `Stream::synchronize`)."
    );
    // `launch` and `launch_cooperative`: the same arguments, a different runtime entry.
    let launchers = [("launch", doc), ("launch_cooperative", coop_doc)].map(|(name, doc)| {
        let name = Ident::new(name, Span::call_site());
        quote! {
            #[doc = #doc]
            pub fn #name #decl (
                #dev: &impl ::warpspeed::LaunchTarget,
                #cfg: ::warpspeed::LaunchConfig,
                #(#params),*
            ) -> ::core::result::Result<(), ::warpspeed::Error> {
                #(#checks)*
                let mut #args = ::warpspeed::__private::KernelArgs::on(#dev);
                #(#pushes)*
                ::warpspeed::__private::#name(#dev, #kernel, #cfg, #args)
            }
        }
    });
    LaunchParts {
        launchers,
        unpack,
        param_names: taken,
    }
}

/// A parameter of the generated `launch`: scalars by value, device memory by reference
/// (`&mut` where the kernel writes, atomics included): a `DeviceBuffer` or a view of one
/// (`buf.slice(a..b)`), through the runtime's `AsDeviceView`/`AsDeviceViewMut`.
pub fn launch_param(sc: &Scope, p: &Param) -> TokenStream {
    launch_param_of(sc, p, param_elem(p.ty))
}

/// [`launch_param`] with the element type `elem` (a generic kernel's `T`).
fn launch_param_of(sc: &Scope, p: &Param, elem: Scalar) -> TokenStream {
    let n = &p.name;
    let t = scalar_ty(sc, elem);
    match p.ty {
        ParamTy::Scalar(_) | ParamTy::Array { .. } | ParamTy::Rows { .. } => quote!(#n: #t),
        ParamTy::Slice { mutable: false, .. } => {
            quote!(#n: &impl ::warpspeed::AsDeviceView<Elem = #t>)
        }
        ParamTy::Slice { mutable: true, .. } | ParamTy::Atomics(_) => {
            quote!(#n: &mut impl ::warpspeed::AsDeviceViewMut<Elem = #t>)
        }
        ParamTy::Texture2D(_) => quote!(#n: &::warpspeed::Texture2D<#t>),
        ParamTy::TensorMap(_) => quote!(#n: &::warpspeed::TensorMap<'_, #t>),
    }
}

/// The scalar a parameter holds or points at.
fn param_elem(p: ParamTy) -> Scalar {
    match p {
        ParamTy::Scalar(s)
        | ParamTy::Slice { elem: s, .. }
        | ParamTy::Atomics(s)
        | ParamTy::Texture2D(s)
        | ParamTy::TensorMap(s)
        | ParamTy::Rows { elem: s, .. }
        | ParamTy::Array { elem: s, .. } => s,
    }
}

/// `&'static LenDecl` of a parameter's `#[len(..)]`, for the runtime's messages.
fn len_decl(f: &Function, p: &Param, decl: &LenDecl) -> TokenStream {
    let (function, param) = (f.name.to_string(), p.name.to_string());
    let declared = &decl.text;
    let line = decl.line as u32;
    let (at, d) = (hyg("__AT"), hyg("__DECL"));
    quote!({
        static #at: ::warpspeed::__private::SrcLoc =
            ::warpspeed::__private::SrcLoc::new(file!(), #line, 1);
        static #d: ::warpspeed::__private::LenDecl = ::warpspeed::__private::LenDecl {
            function: #function,
            param: #param,
            declared: #declared,
            at: &#at,
        };
        &#d
    })
}

/// A declared length as Rust: `Option<u64>`, `None` when it overflows.
fn len_need(e: &LenExpr) -> TokenStream {
    fn go(e: &LenExpr) -> TokenStream {
        match e {
            LenExpr::Lit(v) => quote!(#v),
            LenExpr::Param(_, n) => quote!((#n as u64)),
            LenExpr::Add(a, b) => {
                let (a, b) = (go(a), go(b));
                quote!(#a.checked_add(#b)?)
            }
            LenExpr::Mul(a, b) => {
                let (a, b) = (go(a), go(b));
                quote!(#a.checked_mul(#b)?)
            }
        }
    }
    let body = go(e);
    quote!((|| -> ::core::option::Option<u64> { ::core::option::Option::Some(#body) })())
}

/// `&'static SrcLoc` of an expression: where the simulator says an access or a barrier is.
fn site(e: &Expr) -> TokenStream {
    let line = e.line as u32;
    let column = e.span.start().column as u32 + 1;
    let at = hyg("__AT");
    quote!({
        static #at: ::warpspeed::__private::SrcLoc =
            ::warpspeed::__private::SrcLoc::new(file!(), #line, #column);
        &#at
    })
}

/// A name the emitted Rust declares for itself (`__ctx`, `__value`, ...): with mixed-site
/// hygiene it never captures, nor is captured by, a user variable of the same name.
fn hyg(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The Rust type of a scalar: the primitive, or warpspeed's `f16`/`bf16`/`f16x2`/`f32x4`/...
/// (library types whose names the user's scope may not have).
fn scalar_ty(sc: &Scope, s: Scalar) -> TokenStream {
    if s.is_struct() {
        return structs::struct_ty(sc, s);
    }
    let id = Ident::new(s.rust_name(), Span::call_site());
    if let Scalar::Param(name) = s {
        let id = sc.param_ident(name);
        return quote!(#id);
    }
    if s.is_library() {
        quote!(::warpspeed::#id)
    } else {
        quote!(#id)
    }
}

impl RustWriter<'_> {
    /// Whether `e` is `frag.x`, a fragment's elements.
    fn fragment_elements(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Field(f, Member::Named(n)) if n == "x" && matches!(self.ty(f), Ty::Fragment(_)))
    }
}

fn rust_ty(sc: &Scope, t: &Ty) -> TokenStream {
    match t {
        Ty::Scalar(s) => {
            let id = scalar_ty(sc, *s);
            quote!(#id)
        }
        Ty::Dim3 => quote!(::warpspeed::__private::Dim3),
        Ty::Tuple(items) => {
            // A trailing comma, so a one-element tuple stays one: `(i32,)`.
            let items = items.iter().map(|t| rust_ty(sc, t));
            quote!((#(#items,)*))
        }
        Ty::Array(elem, n) => {
            let e = rust_ty(sc, elem);
            let n = len_rust(sc, n);
            quote!([#e; #n])
        }
        Ty::Slice(s, false) => {
            let id = scalar_ty(sc, *s);
            quote!(::warpspeed::__private::Slice<#id>)
        }
        Ty::Slice(s, true) | Ty::Rows(s, _) => {
            let id = scalar_ty(sc, *s);
            quote!(::warpspeed::__private::SliceMut<#id>)
        }
        Ty::Atomics(s) => {
            let id = scalar_ty(sc, *s);
            quote!(::warpspeed::__private::AtomicSlice<#id>)
        }
        Ty::Texture2D(s) => {
            let id = scalar_ty(sc, *s);
            quote!(::warpspeed::__private::SimTexture<#id>)
        }
        Ty::TensorMap(s) => {
            let id = scalar_ty(sc, *s);
            quote!(::warpspeed::__private::SimTensorMap<#id>)
        }
        Ty::Mbarriers => quote!(::warpspeed::__private::SimMbarriers),
        Ty::CasResult(s) => {
            let id = scalar_ty(sc, *s);
            quote!(::core::result::Result<#id, #id>)
        }
        Ty::Fragment(f) => {
            let id = scalar_ty(sc, f.elem);
            let n = f.len() as usize;
            quote!(::warpspeed::__private::Fragment<#id, #n>)
        }
        // Groups are known at compile time: their methods expand to what they stand for.
        Ty::Unit | Ty::Never | Ty::Var(_) | Ty::Ordering | Ty::Group(_) => quote!(()),
    }
}

fn sim_fn(sc: &Scope, f: &Function, types: &Types) -> TokenStream {
    sim_fn_with(sc, f, types, quote!())
}

/// The simulator body; `generics` are a generic function's parameters (`<T: Float>`).
fn sim_fn_with(sc: &Scope, f: &Function, types: &Types, generics: TokenStream) -> TokenStream {
    let allows = &f.allows;
    let params = f.params.iter().map(|p| {
        let n = &p.name;
        let m = if p.mutable { quote!(mut) } else { quote!() };
        let t = rust_ty(sc, &generic::or_ast(p.ty.ty(), &types.vars[p.var].ty));
        quote!(#m #n: #t)
    });
    let ret = match &f.ret {
        Some((t, _)) => {
            let t = rust_ty(sc, t);
            quote!(-> #t)
        }
        None => quote!(),
    };
    let name = &f.name;
    let w = RustWriter {
        sc,
        types,
        device: (f.kind == FnKind::Device).then_some(&f.name),
    };
    let body = w.block(&f.body);
    // A device function checks its `#[len(..)]`s at entry (a kernel's launch did already).
    let len_checks = f.params.iter().filter_map(|p| {
        let decl = p.len.as_ref().filter(|_| f.kind == FnKind::Device)?;
        let (n, need) = (&p.name, len_need(&decl.expr));
        let decl = len_decl(f, p, decl);
        Some(quote!(::warpspeed::__private::sim_check_len(#decl, #n.len(), #need);))
    });
    let body = quote!({ #(#len_checks)* #body });
    let ctx = hyg("__ctx");
    // `&[AtomicU32]` must name the real atomic types (and so uses the user's import).
    let atomic_checks = f.params.iter().filter_map(|p| {
        let (ParamTy::Atomics(s), Some(path)) = (p.ty, &p.atomic_path) else {
            return None;
        };
        let user = path_from_module(sc, path);
        let name = Ident::new(s.atomic_name()?, path.span());
        let real = if s.is_float() || s.is_half() {
            quote!(::warpspeed::#name)
        } else {
            quote!(::core::sync::atomic::#name)
        };
        Some(quote_spanned!(path.span()=> const _: fn(&#user) -> &#real = |atomic| atomic;))
    });
    let doc = quote! {
        /// One thread of this function on the CPU simulator, with every type spelled out.
        #[allow(unused_parens, unused_braces, unreachable_code, clippy::all)]
        #(#allows)*
    };
    // A kernel's body is the module's `__sim`, which its entry calls. A device function's
    // is a method of its marker bound to the thread (`Bound`, which its callers reach
    // through `callee`), of the function's name, so its parameters and generic parameters
    // are the function's: rustc's errors about a call (the wrong number of arguments, a
    // const parameter to name) name the user's function.
    let sim = match f.kind {
        FnKind::Kernel => quote! {
            #doc
            pub async fn __sim #generics (#ctx: &::warpspeed::__private::ThreadCtx<'_>, #(#params),*) #ret #body
        },
        FnKind::Device => {
            let bound = bound_impl(sc, f);
            quote! {
            #bound {
                #doc
                pub async fn #name #generics (self, #(#params),*) #ret {
                    let #ctx = self.0;
                    #body
                }
            }
            }
        }
    };
    quote! {
        #sim
        #(#atomic_checks)*
    }
}

struct RustWriter<'a> {
    sc: &'a Scope<'a>,
    types: &'a Types,
    /// The function written, when it is a device function: its calls of other device
    /// functions are checked for cycles back to it.
    device: Option<&'a Ident>,
}

impl RustWriter<'_> {
    fn ty(&self, e: &Expr) -> &Ty {
        &self.types.expr[e.id]
    }

    /// `call` (a callee's simulator future) awaited. In a device function, a call whose
    /// callee leads back to the function closes a cycle (`cycle_checks` refuses it): the
    /// future is boxed there, so rustc's own error about recursive futures does not join
    /// in (runtime/src/device_fn.rs). Elsewhere the future is awaited as it is.
    fn cycle_checked(&self, path: &syn::Path, call: TokenStream) -> TokenStream {
        let span = path.span();
        if self.device.is_none() {
            return quote_spanned!(span=> #call.await);
        }
        // A const argument, which cannot name the function's own const parameters.
        let callee = callee(self.sc, path, Part::ConstHoles);
        let reaches = quote_spanned!(span=> ::warpspeed::__private::reaches(#callee.item(), &ITEM));
        quote_spanned!(span=> ::warpspeed::__private::sim_call::<{ #reaches }, _>(#call).await)
    }

    fn block(&self, b: &Block) -> TokenStream {
        let stmts = b.stmts.iter().map(|s| self.stmt(s));
        let tail = b.tail.as_ref().map(|t| self.expr(t));
        quote!({ #(#stmts)* #tail })
    }

    fn stmt(&self, s: &Stmt) -> TokenStream {
        match s {
            Stmt::Let(l) => {
                let pat = self.pat(&l.pat);
                let ty = match &l.pat {
                    Pat::Bind { var, .. } => Some(self.types.vars[*var].ty.clone()),
                    Pat::Tuple(..) => l.init.as_ref().map(|i| self.ty(i).clone()),
                    Pat::Wild => None,
                };
                let ann = ty.filter(|t| !matches!(t, Ty::Never | Ty::Unit)).map(|t| {
                    let t = rust_ty(self.sc, &t);
                    quote!(: #t)
                });
                let init = l.init.as_ref().map(|i| {
                    let v = self.expr(i);
                    quote!(= #v)
                });
                quote_spanned!(l.span=> let #pat #ann #init;)
            }
            Stmt::Expr(e, _) => {
                let v = self.expr(e);
                quote!(#v;)
            }
        }
    }

    fn pat(&self, p: &Pat) -> TokenStream {
        match p {
            Pat::Bind { name, mutable, .. } => {
                let m = if *mutable { quote!(mut) } else { quote!() };
                quote!(#m #name)
            }
            Pat::Wild => quote!(_),
            Pat::Tuple(items, _) => {
                let items = items.iter().map(|i| self.pat(i));
                quote!((#(#items,)*))
            }
        }
    }

    fn lit(&self, lit: &Lit, t: &Ty, span: Span, negated: bool) -> TokenStream {
        let s = t.scalar().unwrap_or(Scalar::I32);
        let minus = if negated { quote!(-) } else { quote!() };
        match lit {
            Lit::Bool(b) => quote_spanned!(span=> #b),
            Lit::Int(v, _) => {
                let l = syn::LitInt::new(&format!("{v}{}", s.rust_name()), span);
                quote!(#minus #l)
            }
            Lit::Float { text, .. } => {
                let l = syn::LitFloat::new(&format!("{text}{}", s.rust_name()), span);
                quote!(#minus #l)
            }
        }
    }

    fn expr(&self, e: &Expr) -> TokenStream {
        let span = e.span;
        let t = self.ty(e);
        if let Some(&c) = self.types.const_uses.get(&e.id) {
            return const_value(self.sc, &self.types.consts[c], span);
        }
        match &e.kind {
            ExprKind::Lit(Lit::Int(v, _)) if self.types.call_literals.contains(&e.id) => {
                let l = syn::LitInt::new(&v.to_string(), span);
                quote!(#l)
            }
            ExprKind::Unary(UnOp::Neg, inner) if self.types.call_literals.contains(&e.id) => {
                let ExprKind::Lit(Lit::Int(v, _)) = &inner.kind else {
                    unreachable!()
                };
                let l = syn::LitInt::new(&v.to_string(), span);
                quote!((-#l))
            }
            ExprKind::Lit(l) => self.lit(l, t, span, false),
            ExprKind::Const(c) => {
                let ty = scalar_ty(self.sc, c.ty);
                let path = match c.path {
                    ConstPath::Assoc(owner, name) => {
                        let (owner, name) = (scalar_ty(self.sc, owner), Ident::new(name, span));
                        quote_spanned!(span=> <#owner>::#name)
                    }
                    ConstPath::Module { krate, float, name } => {
                        let (krate, float, name) = (
                            Ident::new(krate, span),
                            scalar_ty(self.sc, float),
                            Ident::new(name, span),
                        );
                        quote_spanned!(span=> ::#krate::#float::consts::#name)
                    }
                };
                // rustc checks the constant has the type the macro gave it.
                quote_spanned!(span=> ::core::convert::identity::<#ty>(#path))
            }
            ExprKind::Var(name) => quote!(#name),
            // Always in `const_uses` (above).
            ExprKind::ConstItem(path) => path_from_module(self.sc, path),
            ExprKind::Binary(op, l, r) => {
                let (a, b) = (
                    self.expr(l),
                    generic::shift_amount(self.sc, *op, self.ty(r), self.expr(r)),
                );
                binary(*op, self.ty(l), a, b, span)
            }
            ExprKind::Unary(UnOp::Neg, inner)
                if matches!(inner.kind, ExprKind::Lit(Lit::Int(..) | Lit::Float { .. })) =>
            {
                let ExprKind::Lit(l) = &inner.kind else {
                    unreachable!()
                };
                let v = self.lit(l, t, inner.span, true);
                quote!((#v))
            }
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner);
                match (op, t.scalar()) {
                    (_, Some(Scalar::Param(_))) => generic::unary(*op, v, span),
                    (UnOp::Neg, Some(s)) if s.is_int() => {
                        quote_spanned!(span=> (#v).wrapping_neg())
                    }
                    (UnOp::Neg, _) => quote_spanned!(span=> (-#v)),
                    (UnOp::Not, _) => quote_spanned!(span=> (!#v)),
                }
            }
            ExprKind::Cast(inner, _) if t.has_param() || self.ty(inner).has_param() => {
                generic::cast(self.sc, self.ty(inner), t, self.expr(inner), span)
            }
            ExprKind::Cast(inner, to) => {
                let v = self.expr(inner);
                let to = scalar_ty(self.sc, *to);
                quote_spanned!(span=> ((#v) as #to))
            }
            ExprKind::Index(base, idx) => {
                let b = self.expr(base);
                let i = self.expr(idx);
                let at = site(e);
                let ctx = hyg("__ctx");
                match self.ty(base) {
                    Ty::Slice(..) => quote_spanned!(span=> #b.load(#ctx, #i, #at)),
                    Ty::Rows(_, w) => {
                        let w = len_rust(self.sc, w);
                        quote_spanned!(span=> #b.row(#i, #w, #at))
                    }
                    // A fragment's elements: checked as the C checks them (`OutOfBounds`).
                    Ty::Array(_, n) if self.fragment_elements(base) => {
                        let n = len_rust(self.sc, n);
                        quote_spanned!(span=> #b[::warpspeed::__private::fragment_index(#i, #n, #at)])
                    }
                    _ => quote_spanned!(span=> #b[#i]),
                }
            }
            ExprKind::Field(base, member) => {
                let b = self.expr(base);
                match member {
                    Member::Named(n) => {
                        let n = Ident::new(n, span);
                        quote!((#b).#n)
                    }
                    Member::Index(i) => {
                        let i = syn::Index { index: *i, span };
                        quote!((#b).#i)
                    }
                }
            }
            ExprKind::Method(recv, name, args) => match self.types.calls.get(&e.id) {
                Some(&Call::Group(kind, m)) => {
                    // The group has no value, but its variable is used (no unused warning).
                    let r = self.expr(recv);
                    let body = self.group_rust(e, kind, m, args);
                    quote!({ let _: () = #r; #body })
                }
                Some(&Call::Atomic(op)) => {
                    let ExprKind::Index(base, idx) = &recv.kind else {
                        return quote!(());
                    };
                    let (b, i) = (self.expr(base), self.expr(idx));
                    let values = args
                        .iter()
                        .filter(|a| !matches!(a.kind, ExprKind::Ordering(..)))
                        .map(|a| self.expr(a));
                    let orders = args
                        .iter()
                        .filter(|a| matches!(a.kind, ExprKind::Ordering(..)))
                        .map(|a| self.expr(a));
                    let (ctx, at) = (hyg("__ctx"), site(e));
                    // `compare_exchange_weak` never fails spuriously here, as on the GPU.
                    let name = match op {
                        AtomicOp::CompareExchange => Ident::new("compare_exchange", name.span()),
                        _ => name.clone(),
                    };
                    quote_spanned!(span=> { #(#orders)* #b.#name(#ctx, #i, #(#values,)* #at).await })
                }
                Some(&Call::Mbarrier(m)) => {
                    let ExprKind::Index(base, idx) = &recv.kind else {
                        return quote!(());
                    };
                    let (b, i) = (self.expr(base), self.expr(idx));
                    let args = args.iter().map(|a| self.expr(a));
                    let (ctx, at) = (hyg("__ctx"), site(e));
                    let name = Ident::new(m.name(), name.span());
                    let call = quote_spanned!(span=> #b.#name(#ctx, #i, #(#args,)* #at));
                    if m.suspends() {
                        quote_spanned!(span=> #call.await)
                    } else {
                        call
                    }
                }
                Some(&Call::Fragment(FragMethod::LdMatrix(row))) => {
                    let f = self.expr(recv);
                    let tile = self.expr(&args[0]);
                    let tile = match self.ty(&args[0]) {
                        Ty::Slice(_, true) => quote_spanned!(span=> (#tile).as_slice()),
                        _ => tile,
                    };
                    let start = self.expr(&args[1]);
                    let (ctx, at, trans) = (hyg("__ctx"), site(e), row.trans);
                    quote_spanned!(span=> #ctx.ldmatrix(&mut #f, #tile, #start, #trans, #at).await)
                }
                Some(&Call::Fragment(FragMethod::StMatrix(row))) => {
                    let f = self.expr(recv);
                    let tile = self.expr(&args[0]);
                    let start = self.expr(&args[1]);
                    let (ctx, at, trans) = (hyg("__ctx"), site(e), row.trans);
                    quote_spanned!(span=> #ctx.stmatrix(#f, #tile, #start, #trans, #at).await)
                }
                Some(&Call::Fragment(FragMethod::LoadAcc(_))) => {
                    let a = self.expr(recv);
                    let acc = self.expr(&args[0]);
                    let j = self.expr(&args[1]);
                    let at = site(e);
                    quote_spanned!(span=> ::warpspeed::__private::frag_load_acc(&mut #a, &(#acc), #j, #at))
                }
                Some(&Call::Fragment(FragMethod::Wgmma(row, form))) => {
                    let r = self.expr(recv);
                    let tile = |w: &Self, a: &Expr| {
                        let t = w.expr(a);
                        match w.ty(a) {
                            Ty::Slice(_, true) => quote_spanned!(span=> (#t).as_slice()),
                            _ => t,
                        }
                    };
                    let a = match form.regs {
                        true => {
                            let f = self.expr(&args[0]);
                            quote_spanned!(span=> ::warpspeed::__private::WgmmaA::Regs((#f).x))
                        }
                        false => {
                            let t = tile(self, &args[0]);
                            quote_spanned!(span=> ::warpspeed::__private::WgmmaA::Tile(#t))
                        }
                    };
                    let b = tile(self, &args[1]);
                    let k = self.expr(&args[2]);
                    let (ctx, at, trans_b) = (hyg("__ctx"), site(e), form.trans_b);
                    let elem = Ident::new(row.sim_elem, span);
                    quote_spanned!(span=> #ctx.wgmma(&mut #r, #a, #b, #k, #trans_b, ::warpspeed::__private::MmaElem::#elem, #at).await)
                }
                Some(&Call::Fragment(FragMethod::MmaSync(row))) => {
                    let r = self.expr(recv);
                    let args = args.iter().map(|a| self.expr(a));
                    let (ctx, at) = (hyg("__ctx"), site(e));
                    let shape = Ident::new(row.sim_shape, span);
                    quote_spanned!(span=> #ctx.mma_sync(&mut #r, #(#args,)* ::warpspeed::__private::MmaShape::#shape, #at).await)
                }
                Some(Call::Texture(TexMethod::Fetch)) => {
                    let r = self.expr(recv);
                    let args = args.iter().map(|a| self.expr(a));
                    let (ctx, at) = (hyg("__ctx"), site(e));
                    quote_spanned!(span=> (#r).fetch(#ctx, #(#args,)* #at))
                }
                Some(&Call::CasUse(u)) => {
                    let r = self.expr(recv);
                    let v = hyg("__old");
                    match u {
                        CasUse::IsOk => quote_spanned!(span=> (#r).is_ok()),
                        CasUse::IsErr => quote_spanned!(span=> (#r).is_err()),
                        CasUse::Old => quote_spanned!(span=> (#r).unwrap_or_else(|#v| #v)),
                    }
                }
                Some(Call::Method(m)) if m.is_len() && matches!(self.ty(recv), Ty::Rows(..)) => {
                    let Ty::Rows(_, w) = self.ty(recv) else {
                        unreachable!()
                    };
                    let w = len_rust(self.sc, w);
                    let r = self.expr(recv);
                    let rows = quote_spanned!(span=> ((#r).len() / #w));
                    if m.name == "len" {
                        rows
                    } else {
                        quote_spanned!(span=> (#rows == 0))
                    }
                }
                call => {
                    let r = self.expr(recv);
                    let args: Vec<TokenStream> = args.iter().map(|a| self.expr(a)).collect();
                    let sim = match call {
                        Some(Call::Method(m)) => Some(m.sim),
                        _ => None,
                    };
                    // The table's simulator call: the std method itself, its `wrapping_` twin
                    // (what a release build computes), or warpspeed's release-mode helper;
                    // a texture's `width()`/`height()` as written.
                    match sim {
                        Some(Sim::Release(f)) => {
                            let f = Ident::new(f, name.span());
                            quote_spanned!(span=> ::warpspeed::__private::ReleaseInt::#f(#r, #(#args),*))
                        }
                        Some(Sim::Half(f)) => {
                            let f = Ident::new(f, name.span());
                            quote_spanned!(span=> ::warpspeed::Float::#f(#r, #(#args),*))
                        }
                        Some(Sim::Std(f)) => {
                            let f = Ident::new(f, name.span());
                            quote_spanned!(span=> (#r).#f(#(#args),*))
                        }
                        None => quote_spanned!(span=> (#r).#name(#(#args),*)),
                    }
                }
            },
            ExprKind::Intrinsic(i, _) if i.is_group() => quote!(()),
            ExprKind::TiledPartition(_, group) => {
                let g = self.expr(group);
                quote!({ let _: () = #g; })
            }
            ExprKind::Intrinsic(i, args) if i.sim_path().is_some() => {
                let f = i.sim_path().unwrap_or_default();
                let path: TokenStream = format!("::{f}").parse().unwrap_or_default();
                let args = args.iter().map(|a| self.expr(a));
                quote_spanned!(span=> #path(#(#args),*))
            }
            ExprKind::Intrinsic(i, args) => {
                let n = Ident::new(i.rust_name(), span);
                let ctx = hyg("__ctx");
                let mut vals: Vec<TokenStream> = args
                    .iter()
                    .zip(i.params().iter().chain(std::iter::repeat(&ParamKind::U32)))
                    .map(|(a, kind)| match (kind, &a.kind) {
                        // `&bars[i]`: the barrier, bounds-checked here.
                        (ParamKind::Mbarrier, ExprKind::Ref(_, place)) => match &place.kind {
                            ExprKind::Index(base, idx) => {
                                let (b, i, at) = (self.expr(base), self.expr(idx), site(a));
                                quote_spanned!(span=> #b.at(#i, #at))
                            }
                            _ => self.expr(a),
                        },
                        _ => self.expr(a),
                    })
                    .collect();
                if i.takes_width() && vals.len() == i.params().len() {
                    vals.push(quote!(32u32)); // CUDA's default `width = warpSize`
                }
                if i.sim_takes_site() {
                    vals.push(site(e));
                }
                if i.is_sync() {
                    quote_spanned!(span=> #ctx.#n(#(#vals),*).await)
                } else {
                    quote_spanned!(span=> #ctx.#n(#(#vals),*))
                }
            }
            ExprKind::SharedArray(d) => {
                let ctx = hyg("__ctx");
                let t = scalar_ty(self.sc, generic::elem(t, d.elem));
                let n = len_rust(self.sc, &d.len);
                let w = len_rust(self.sc, d.width.as_ref().unwrap_or(&Len::Lit(1)));
                let n = quote!((#n * #w));
                let at = site(e);
                if d.mbarrier {
                    quote_spanned!(span=> #ctx.shared_mbarriers(#n, #at))
                } else if d.atomic {
                    quote_spanned!(span=> #ctx.shared_atomic_array::<#t>(#n, #at))
                } else {
                    quote_spanned!(span=> #ctx.shared_array::<#t>(#n, #at))
                }
            }
            ExprKind::Fragment(f) => {
                let id = scalar_ty(self.sc, f.elem);
                let n = f.len() as usize;
                quote_spanned!(span=> ::warpspeed::__private::Fragment::<#id, #n>::zeroed())
            }
            ExprKind::DynamicShared(s) => {
                let ctx = hyg("__ctx");
                let t = scalar_ty(self.sc, generic::elem(t, *s));
                let at = site(e);
                quote_spanned!(span=> #ctx.dynamic_shared::<#t>(#at))
            }
            ExprKind::Print(p) => {
                let (fmt, args) = self.print_format(p);
                let (ctx, at) = (hyg("__ctx"), site(e));
                quote_spanned!(span=> #ctx.print(::std::format!(#fmt, #(#args),*), #at).await)
            }
            ExprKind::Ordering(_, path) => {
                // The user's own path, typed: `Ordering` must be core's, and its import is used.
                let p = path_from_module(self.sc, path);
                quote_spanned!(span=> { let _: ::core::sync::atomic::Ordering = #p; })
            }
            ExprKind::Call(path, _, call_args) => {
                let callee = callee(self.sc, path, Part::Consts);
                let args = call_args.iter().map(|a| {
                    let v = self.expr(a);
                    if matches!(self.ty(a), Ty::Slice(..)) {
                        quote!(::core::convert::Into::into(#v))
                    } else {
                        v
                    }
                });
                let ctx = hyg("__ctx");
                // The callee's simulator body, its method of the function's name; a
                // generic function named with a turbofish takes its types there (the
                // const arguments went to the marker, `callee`).
                let turbofish = generic::turbofish(self.sc, path, Part::Types);
                let method = path.segments.last().map(|s| s.ident.clone());
                let call = quote_spanned!(span=> #callee.marker().with(#ctx).#method #turbofish (#(#args),*));
                let call = self.cycle_checked(path, call);
                match t {
                    Ty::Unit | Ty::Never | Ty::Var(_) => call,
                    t => {
                        let rt = rust_ty(self.sc, t);
                        let result = hyg("__result");
                        quote_spanned!(span=> { let #result: #rt = #call; #result })
                    }
                }
            }
            ExprKind::Assign(place, value)
                if self
                    .elem_field_write(e, place, value, |_, _| quote!())
                    .is_some() =>
            {
                let set = |p, v| quote!(#p = #v);
                self.elem_field_write(e, place, value, set)
                    .unwrap_or_default()
            }
            ExprKind::AssignOp(op, place, value)
                if self
                    .elem_field_write(e, place, value, |_, _| quote!())
                    .is_some() =>
            {
                let pt = self.ty(place).clone();
                let set = |p: TokenStream, v| {
                    let combined = binary(*op, &pt, p.clone(), v, span);
                    quote!(#p = #combined)
                };
                self.elem_field_write(e, place, value, set)
                    .unwrap_or_default()
            }
            ExprKind::StructLit(l) => self.struct_lit(e, l),
            ExprKind::Ref(_, inner) => self.reference(e, inner),
            ExprKind::SubSlice(s) => self.sub_slice(e, s),
            ExprKind::Assign(place, value) => {
                let v = self.expr(value);
                match &place.kind {
                    ExprKind::Index(base, idx) if matches!(self.ty(base), Ty::Slice(..)) => {
                        let b = self.expr(base);
                        let i = self.expr(idx);
                        let (ctx, at) = (hyg("__ctx"), site(e));
                        let vt = rust_ty(self.sc, self.ty(value));
                        let value = hyg("__value");
                        quote_spanned!(span=> { let #value: #vt = #v; #b.store(#ctx, #i, #value, #at); })
                    }
                    _ => {
                        let p = self.expr(place);
                        quote_spanned!(span=> #p = #v)
                    }
                }
            }
            ExprKind::AssignOp(op, place, value) => {
                let v = generic::shift_amount(self.sc, *op, self.ty(value), self.expr(value));
                let vt = rust_ty(self.sc, self.ty(value));
                let pt = self.ty(place).clone();
                // Hygienic: a user variable named `__value` or `__index` stays the user's.
                let value = hyg("__value");
                let index = hyg("__index");
                let cur = quote!(#value);
                match &place.kind {
                    ExprKind::Index(base, idx) if matches!(self.ty(base), Ty::Slice(..)) => {
                        let b = self.expr(base);
                        let i = self.expr(idx);
                        let (ctx, at) = (hyg("__ctx"), site(e));
                        let combined = binary(
                            *op,
                            &pt,
                            quote!(#b.load(#ctx, #index, #at)),
                            cur.clone(),
                            span,
                        );
                        quote_spanned!(span=> {
                            let #value: #vt = #v;
                            let #index: usize = #i;
                            #b.store(#ctx, #index, #combined, #at);
                        })
                    }
                    _ => {
                        let p = self.expr(place);
                        let combined = binary(*op, &pt, p.clone(), cur.clone(), span);
                        quote_spanned!(span=> { let #value: #vt = #v; #p = #combined; })
                    }
                }
            }
            ExprKind::If(c, then, els) => {
                let c = self.expr(c);
                let then = self.block(then);
                let els = els.as_ref().map(|e| {
                    let v = self.expr(e);
                    match e.kind {
                        ExprKind::If(..) | ExprKind::Block(_) => quote!(else #v),
                        _ => quote!(else { #v }),
                    }
                });
                quote_spanned!(span=> if #c #then #els)
            }
            ExprKind::Match(scrutinee, arms) => {
                let s = self.expr(scrutinee);
                let ty = self.ty(scrutinee).scalar().unwrap_or(Scalar::I32);
                let arms = arms.iter().map(|arm| {
                    let alts: Vec<TokenStream> =
                        arm.pats.iter().map(|p| match_pat(self.sc, p, ty)).collect();
                    let pat = match (&arm.binding, alts.as_slice()) {
                        (Some(b), [_]) if matches!(arm.pats[0], MatchPat::Any) => binding(b),
                        (Some(b), _) => {
                            let b = binding(b);
                            quote!(#b @ (#(#alts)|*))
                        }
                        (None, _) => quote!(#(#alts)|*),
                    };
                    let guard = arm.guard.as_ref().map(|g| {
                        let g = self.expr(g);
                        quote!(if #g)
                    });
                    let body = self.expr(&arm.body);
                    quote!(#pat #guard => #body,)
                });
                // rustc checks this `match` again, exhaustiveness included.
                quote_spanned!(span=> match #s { #(#arms)* })
            }
            ExprKind::While(label, c, body) => {
                let label = label.as_ref().map(|l| {
                    let l = lifetime(l);
                    quote!(#l:)
                });
                let c = self.expr(c);
                let body = self.block(body);
                quote_spanned!(span=> #label while #c #body)
            }
            ExprKind::Loop(label, body) => {
                let label = label.as_ref().map(|l| {
                    let l = lifetime(l);
                    quote!(#l:)
                });
                let body = self.block(body);
                quote_spanned!(span=> #label loop #body)
            }
            ExprKind::For(label, pat, r, body) => {
                let label = label.as_ref().map(|l| {
                    let l = lifetime(l);
                    quote!(#l:)
                });
                let pat = self.pat(pat);
                let (s, en) = (self.expr(&r.start), self.expr(&r.end));
                let mut range = if r.inclusive {
                    quote!((#s..=#en))
                } else {
                    quote!((#s..#en))
                };
                let step = r.step.as_ref().map(|k| self.expr(k));
                if r.rev && !r.step_then_rev {
                    range = quote!(#range.rev());
                }
                if let Some(k) = step {
                    range = quote!(#range.step_by(#k));
                }
                if r.rev && r.step_then_rev {
                    range = quote!(#range.rev());
                }
                let body = self.block(body);
                quote_spanned!(span=> #label for #pat in #range #body)
            }
            ExprKind::Break(label) => {
                let l = label.as_ref().map(lifetime);
                quote_spanned!(span=> break #l)
            }
            ExprKind::Continue(label) => {
                let l = label.as_ref().map(lifetime);
                quote_spanned!(span=> continue #l)
            }
            ExprKind::Return(v) => {
                let v = v.as_ref().map(|v| self.expr(v));
                quote_spanned!(span=> return #v)
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Array(items) => {
                let items = items.iter().map(|i| self.expr(i));
                quote_spanned!(span=> [#(#items),*])
            }
            ExprKind::Tuple(items) => {
                let items = items.iter().map(|i| self.expr(i));
                quote_spanned!(span=> (#(#items,)*))
            }
            ExprKind::Repeat(v, n) => {
                let v = self.expr(v);
                let n = len_rust(self.sc, n);
                quote_spanned!(span=> [#v; #n])
            }
        }
    }
}

impl RustWriter<'_> {
    /// A cooperative-group method on the simulator, as the C writer expands it.
    fn group_rust(&self, e: &Expr, kind: GroupKind, m: GroupMethod, args: &[Expr]) -> TokenStream {
        use GroupMethod::*;
        let span = e.span;
        let (ctx, at) = (hyg("__ctx"), site(e));
        let v: Vec<TokenStream> = args.iter().map(|a| self.expr(a)).collect();
        let n = match kind {
            GroupKind::Tile(n) => n,
            _ => 32,
        };
        let (low, ones) = (
            !(n - 1) & 31,
            if n == 32 { u32::MAX } else { (1u32 << n) - 1 },
        );
        let mask = quote!((#ones << (#ctx.lane_id() & #low)));
        let rank = quote!({
            let (t, d) = (#ctx.thread_idx(), #ctx.block_dim());
            (t.z * d.y + t.y) * d.x + t.x
        });
        let size = quote!({ let d = #ctx.block_dim(); d.x * d.y * d.z });
        match (kind, m) {
            (GroupKind::Grid, _) => quote_spanned!(span=> #ctx.sync_grid(#at).await),
            (GroupKind::Block, Sync) => quote_spanned!(span=> #ctx.sync_threads(#at).await),
            (GroupKind::Block, ThreadRank) => rank,
            (GroupKind::Block, Size) => size,
            (GroupKind::Block, GroupIndex) => quote!(#ctx.block_idx()),
            (GroupKind::Block, ThreadIndex) => quote!(#ctx.thread_idx()),
            (GroupKind::Block, DimThreads) => quote!(#ctx.block_dim()),
            (GroupKind::Block, _) => quote!(0u32),
            (GroupKind::Tile(_), Sync) => quote_spanned!(span=> #ctx.sync_warp(#mask, #at).await),
            (GroupKind::Tile(_), ThreadRank) => {
                let r = n - 1;
                quote!((#ctx.lane_id() & #r))
            }
            (GroupKind::Tile(_), Size) => quote!(#n),
            (GroupKind::Tile(_), MetaGroupRank) => quote!((#rank / #n)),
            (GroupKind::Tile(_), MetaGroupSize) => quote!(((#size).div_ceil(#n))),
            (GroupKind::Tile(_), Shfl | ShflUp | ShflDown | ShflXor) => {
                let f = Ident::new(
                    match m {
                        Shfl => "shfl_sync",
                        ShflUp => "shfl_up_sync",
                        ShflDown => "shfl_down_sync",
                        _ => "shfl_xor_sync",
                    },
                    span,
                );
                let (a, b) = (&v[0], &v[1]);
                quote_spanned!(span=> #ctx.#f(#mask, #a, #b, #n, #at).await)
            }
            (GroupKind::Tile(_), Any) => {
                let p = &v[0];
                quote_spanned!(span=> #ctx.any_sync(#mask, #p, #at).await)
            }
            (GroupKind::Tile(_), All) => {
                let p = &v[0];
                quote_spanned!(span=> #ctx.all_sync(#mask, #p, #at).await)
            }
            (GroupKind::Tile(_), Ballot) => {
                let p = &v[0];
                quote_spanned!(span=> (#ctx.ballot_sync(#mask, #p, #at).await >> (#ctx.lane_id() & #low)))
            }
            (GroupKind::Tile(_), _) => quote!(0u32),
        }
    }

    /// The `format!` string and arguments that print what the C `printf` prints: floats
    /// without a precision through `format_g` (C's `%g`), bools left-aligned as text.
    fn print_format(&self, p: &Print) -> (String, Vec<TokenStream>) {
        let mut fmt = String::new();
        let mut args = Vec::new();
        for piece in &p.pieces {
            match piece {
                FmtPiece::Lit(text) => fmt.push_str(&text.replace('{', "{{").replace('}', "}}")),
                FmtPiece::Arg { index, spec } => {
                    let a = &p.args[*index];
                    let v = self.expr(a);
                    let s = self.ty(a).scalar().unwrap_or(Scalar::I32);
                    let width = spec.width.map(|w| w.to_string()).unwrap_or_default();
                    if let (Scalar::Param(_), None, None) = (s, spec.precision, spec.hex) {
                        // A `T`: as its instance prints it (`%g` for a float, `%d` for an integer).
                        let (w, zero) = (spec.width.unwrap_or(0) as usize, spec.zero);
                        fmt.push_str("{}");
                        args.push(
                            quote!(::warpspeed::__private::GpuPrint::ws_display(#v, #w, #zero)),
                        );
                        continue;
                    }
                    let zero = if spec.zero { "0" } else { "" };
                    if (s.is_float() || s.is_half_float()) && spec.precision.is_none() {
                        fmt.push_str(&format!("{{:>{width}}}"));
                        let d = if s.is_half_float() {
                            quote!((#v).to_f64())
                        } else {
                            quote!((#v) as f64)
                        };
                        args.push(quote!(::warpspeed::__private::format_g(#d)));
                        continue;
                    }
                    let precision = spec.precision.map(|p| format!(".{p}")).unwrap_or_default();
                    let hex = match spec.hex {
                        Some(true) => "X",
                        Some(false) => "x",
                        None => "",
                    };
                    fmt.push_str(&format!("{{:{zero}{width}{precision}{hex}}}"));
                    args.push(v);
                }
            }
        }
        (fmt, args)
    }
}

/// `l op r` in Rust with the GPU's semantics: integer arithmetic wraps.
fn binary(op: BinOp, lt: &Ty, l: TokenStream, r: TokenStream, span: Span) -> TokenStream {
    if let Some(Scalar::Param(_)) = lt.scalar() {
        if let Some(call) = generic::binary(op, &l, &r, span) {
            return call;
        }
    }
    let int = lt.scalar().is_some_and(|s| s.is_int());
    let method = match op {
        BinOp::Add => "wrapping_add",
        BinOp::Sub => "wrapping_sub",
        BinOp::Mul => "wrapping_mul",
        BinOp::Div => "wrapping_div",
        BinOp::Rem => "wrapping_rem",
        BinOp::Shl => "wrapping_shl",
        BinOp::Shr => "wrapping_shr",
        _ => "",
    };
    if int && !method.is_empty() {
        let m = Ident::new(method, span);
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            return quote_spanned!(span=> (#l).#m((#r) as u32));
        }
        return quote_spanned!(span=> (#l).#m(#r));
    }
    let tok: TokenStream = op.rust_token().parse().unwrap_or_default();
    quote_spanned!(span=> (#l #tok #r))
}

/// A loop label as Rust spells it (`'outer`); the AST keeps the bare name.
fn lifetime(id: &Ident) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'{id}"), id.span())
}
