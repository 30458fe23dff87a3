//! Vector addition (seed 002's first Numba kernel), shared by the `vector_add` and `bench`
//! examples (each includes this file with `#[path = "kernels/vector_add.rs"] mod
//! vector_add_kernels;`).
//!
//! Beside it, `vector_add4`, the same sum on `f32x4`s (CUDA's `float4`: one 16-byte load
//! per operand and one store per thread, for four elements), and `copy4`, a device-to-device
//! copy of `f32x4`s (the bench compares both with the driver's copy).
//!
//! Each kernel exists twice: [`checked`] (the default, bounds-checked; `vector_add` is also
//! re-exported here) and [`unchecked`] (`#[gpu_kernel(unchecked)]`).

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

        /// `out[i] = a[i] + b[i]` on four lanes at once: each access is one
        /// `ld.global.nc.v4.f32` / `st.global.v4.f32`. The buffers of `f32` are viewed as
        /// `f32x4` with `DeviceBuffer::into_vectors` (lengths a multiple of 4).
        #[gpu_kernel($($opt)*)]
        pub fn vector_add4(a: &[f32x4], b: &[f32x4], out: &mut [f32x4]) {
            let i = grid_1d();
            if i < out.len() {
                out[i] = a[i] + b[i];
            }
        }

        /// `dst[i] = src[i]`, 16 bytes a thread: a copy in a kernel.
        #[gpu_kernel($($opt)*)]
        pub fn copy4(src: &[f32x4], dst: &mut [f32x4]) {
            let i = grid_1d();
            if i < dst.len() {
                dst[i] = src[i];
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

pub use checked::{copy4, vector_add, vector_add4};
