//! warpspeed: write CUDA kernels in Rust.
//!
//! `#[gpu_kernel]` translates a restricted Rust function into CUDA C while cargo builds;
//! at run time NVRTC compiles it for the GPU present, and `<kernel>::launch` runs it.
//! See README.md for the language and a first kernel.

mod atomic_float;

pub use atomic_float::{AtomicF16, AtomicF16x2, AtomicF32, AtomicF64};
pub use warpspeed_macros::{gpu_device, gpu_kernel};
pub use warpspeed_runtime::*;

/// `use warpspeed::prelude::*;` brings the macros and the host API into scope.
pub mod prelude {
    pub use crate::{gpu_device, gpu_kernel};
}

#[doc(hidden)]
pub mod __private {
    pub use warpspeed_runtime::__private::*;
}
