//! The `#[gpu_kernel]` and `#[gpu_device]` macros: a restricted Rust function in, a module
//! with its CUDA C, a typed launch and a simulator body out. The pipeline is in `expand`.

#![forbid(unsafe_code)]

mod check;
mod ctxt;
mod emit;
mod expand;
#[cfg(test)]
mod fuzz_tests;
mod generics;
mod ir;
mod parse;

use parse::ast::FnKind;
use proc_macro::TokenStream;

/// Turns a Rust function into a GPU kernel; see the crate `warpspeed` for the language.
#[proc_macro_attribute]
pub fn gpu_kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::expand(args.into(), input.into(), FnKind::Kernel).into()
}

/// Turns a Rust function into a device function that kernels can call.
#[proc_macro_attribute]
pub fn gpu_device(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::expand(args.into(), input.into(), FnKind::Device).into()
}
