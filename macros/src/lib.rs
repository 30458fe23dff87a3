//! The `#[gpu_kernel]` and `#[gpu_device]` macros: a restricted Rust function in, a module
//! with its CUDA C, a typed launch and a simulator body out. The pipeline is in `expand`.

#![forbid(unsafe_code)]

mod analysis;
#[cfg(test)]
mod corpus_tests;
mod ctxt;
mod emit;
mod expand;
mod front;
#[cfg(test)]
mod fuzz_tests;
mod generics;
mod ir;
#[cfg(test)]
mod layers;
mod parse;
mod structs;

use ir::ast::FnKind;
use proc_macro::TokenStream;

/// Turns a Rust function into a GPU kernel; see the crate `warpspeed` for the language.
#[proc_macro_attribute]
pub fn gpu_kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    structs::resolve::function(args.into(), input.into(), FnKind::Kernel, Vec::new()).into()
}

/// Turns a Rust function into a device function that kernels can call.
///
/// ```
/// use warpspeed::prelude::*;
///
/// #[gpu_device]
/// fn divmod(a: u32, b: u32) -> (u32, u32) {
///     (a / b, a % b)
/// }
///
/// #[gpu_kernel]
/// fn k(out: &mut [u32]) {
///     let (q, r) = divmod(7, 2);
///     out[0] = q * 10 + r;
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let mut out = dev.zeros::<u32>(1)?;
/// k::launch(&dev, LaunchConfig::new(1, 1), &mut out)?;
/// assert_eq!(out.download()?, vec![31]);
/// # Ok(()) }
/// ```
///
/// A kernel learns the signature of each function it calls from a macro this attribute
/// defines under the function's name. So a call of a function that is not `#[gpu_device]`
/// is one error of rustc's at the call, "cannot find macro `divmod` in this scope", although
/// no macro was written:
///
/// - where a plain Rust function of that name is in scope, rustc adds "`divmod` is in scope,
///   but it is a function, not a macro": mark it `#[gpu_device]` (its body must then be in
///   the kernel language);
/// - where the `#[gpu_device]` function is in another module, rustc suggests the import
///   ("consider importing this macro through its public re-export: `use
///   crate::helpers::divmod;`"): write that `use`, or call it by its path
///   (`helpers::divmod(..)`);
/// - otherwise no such function exists: check its name.
///
/// Its indexes are checked as a kernel's are (`#[gpu_device(unchecked)]` drops the checks).
/// On a GPU, a failing index of a slice of global memory is reported when the calling
/// kernel returns rather than at the check, with the same line, index and length, so that
/// a loop calling the function keeps what it reads and writes in registers
/// (docs/bounds.md, "Checks in device functions").
///
/// See docs/language.md, "Calling device functions" and "One error per mistake".
#[proc_macro_attribute]
pub fn gpu_device(args: TokenStream, input: TokenStream) -> TokenStream {
    structs::resolve::device(args.into(), input.into()).into()
}

/// Makes a struct of kernel scalars, arrays of them and other `#[gpu_struct]`s usable in
/// kernels: as a parameter (by value), a slice element (`&[Params]`, `DeviceBuffer<Params>`),
/// a local, a field and a device function's parameter or result.
///
/// ```
/// use warpspeed::prelude::*;
///
/// #[gpu_struct]
/// #[derive(Clone, Copy)]
/// struct Params { dt: f32, n: u32, w: [f32; 3] }
///
/// #[gpu_kernel]
/// fn step(p: Params, xs: &mut [f32]) {
///     let i = grid_1d();
///     let mut q = p;
///     q.dt = 2.0 * p.dt;
///     xs[i] += q.dt * q.w[i % 3];
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let mut xs = dev.zeros::<f32>(6)?;
/// let p = Params { dt: 0.5, n: 6, w: [1.0, 2.0, 3.0] };
/// step::launch(&dev, LaunchConfig::new(1, 6), p, &mut xs)?;
/// assert_eq!(xs.download()?, vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
///
/// The struct becomes `#[repr(C)]`; the macro checks at compile time that rustc's layout is
/// C's, and the struct's C definition makes NVRTC check its own. Fields are the kernel
/// scalars, 1-D arrays `[T; N]` (N a literal) and other gpu_structs; no generics. The
/// struct is usable in kernels of the crate that defines it. See docs/language.md,
/// "Structs".
#[proc_macro_attribute]
pub fn gpu_struct(args: TokenStream, input: TokenStream) -> TokenStream {
    let out =
        std::panic::catch_unwind(|| structs::define::expand(args.into(), input.into(), Vec::new()));
    match out {
        Ok(ts) => ts.into(),
        Err(_) => quote::quote!(compile_error!("internal error in #[gpu_struct] (this is a warpspeed bug: please report it)");).into(),
    }
}

/// A `#[gpu_struct]`'s definition handed to the macro that asked for it (generated code
/// only).
#[doc(hidden)]
#[proc_macro]
pub fn __gpu_resolved(input: TokenStream) -> TokenStream {
    let out = std::panic::catch_unwind(|| structs::resolved::resolved(input.into()));
    match out {
        Ok(ts) => ts.into(),
        Err(_) => quote::quote!(compile_error!("internal error in #[gpu_struct] (this is a warpspeed bug: please report it)");).into(),
    }
}
