//! Polynomial evaluation with Horner's method (seed 002's `cuda_polyval`), shared by the
//! `polyval` and `bench` examples (each includes this file with
//! `#[path = "kernels/polyval.rs"] mod polyval_kernels;`), and the CPU reference.
//!
//! Each kernel exists twice: [`checked`] (the default, bounds-checked; also re-exported
//! here under the same names) and [`unchecked`] (`#[gpu_kernel(unchecked)]`).

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use std::ops::{Add, Mul};

use warpspeed::prelude::*;

/// One kernel `$name` for the float type `$t` with the kernel options `$opt`: the kernel
/// language has no generics, so a `macro_rules!` writes it once for f32 and f64.
macro_rules! polyval_kernel {
    ([$($opt:tt)*] $name:ident, $t:ident) => {
        /// `result[i]` = the polynomial with coefficients `coeffs` (descending order) at
        /// `x[i]`, by Horner's method: `val = c[0]; val = val * x + c[k]` for k = 1..; one
        /// thread per x.
        #[gpu_kernel($($opt)*)]
        pub fn $name(result: &mut [$t], x: &[$t], coeffs: &[$t]) {
            let i = grid_1d();
            if i >= x.len() {
                return;
            }
            let xi = x[i];
            let mut val = coeffs[0];
            for k in 1..coeffs.len() {
                val = val * xi + coeffs[k];
            }
            result[i] = val;
        }
    };
}

/// `polyval_f32` and `polyval_f64` with the kernel options `$opt`.
macro_rules! polyval_kernels {
    ($($opt:tt)*) => {
        polyval_kernel!([$($opt)*] polyval_f32, f32);
        polyval_kernel!([$($opt)*] polyval_f64, f64);
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use super::*;
    polyval_kernels!();
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    polyval_kernels!(unchecked);
}

pub use checked::{polyval_f32, polyval_f64};

/// The CPU reference, in the kernel's order of operations (Rust never fuses `a * b + c`,
/// and warpspeed compiles with `--fmad=false`, so the GPU does not either).
pub fn horner<T: Copy + Mul<Output = T> + Add<Output = T>>(cs: &[T], x: T) -> T {
    cs[1..].iter().fold(cs[0], |val, &c| val * x + c)
}
