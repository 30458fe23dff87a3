//! Vector addition (seed 002's first Numba kernel), shared by the `vector_add` and `bench`
//! examples (each includes this file with `#[path = "kernels/vector_add.rs"] mod
//! vector_add_kernels;`).
//!
//! The kernel exists twice: [`checked`] (the default, bounds-checked; also re-exported here
//! as `vector_add`) and [`unchecked`] (`#[gpu_kernel(unchecked)]`).

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use warpspeed::prelude::*;

/// The kernel with the kernel options `$opt` (none: checked; `unchecked`).
macro_rules! vector_add_kernels {
    ($($opt:tt)*) => {
        /// `out[i] = a[i] + b[i]`, one thread per element. `i < out.len()` proves
        /// `out[i]`; `a[i]` and `b[i]` keep their checks (nothing says `a` and `b` are as
        /// long as `out`).
        #[gpu_kernel($($opt)*)]
        pub fn vector_add(a: &[f32], b: &[f32], out: &mut [f32]) {
            let i = grid_1d();
            if i < out.len() {
                out[i] = a[i] + b[i];
            }
        }
    };
}

/// The kernel with bounds checks (the default).
pub mod checked {
    use super::*;
    vector_add_kernels!();
}

/// The same kernel `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    vector_add_kernels!(unchecked);
}

pub use checked::vector_add;
