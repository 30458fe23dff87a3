//! The f32 matrix multiplications of seed 002, shared by the `matmul` and `bench` examples
//! (each includes this file with `#[path = "kernels/matmul.rs"] mod matmul_kernels;`), and
//! the CPU reference they are checked against.
//!
//! Each kernel exists twice: [`checked`] (the default, bounds-checked; also re-exported
//! here under the same names) and [`unchecked`] (`#[gpu_kernel(unchecked)]`), written once
//! by `matmul_kernels!` so the bench can time what the checks cost.

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use warpspeed::prelude::*;

/// The kernels with the kernel options `$opt` (none: checked; `unchecked`).
macro_rules! matmul_kernels {
    ($($opt:tt)*) => {
        /// Seed 002's naive kernel: one thread per element of C (A is m x k, B is k x n,
        /// row-major), the dot product read from global memory. Launch with 2-D blocks
        /// covering n columns (x) and m rows (y).
        #[gpu_kernel($($opt)*)]
        pub fn matmul_naive(
            #[len(m * n)] c: &mut [f32],
            #[len(m * k)] a: &[f32],
            #[len(k * n)] b: &[f32],
            m: usize,
            k: usize,
            n: usize,
        ) {
            let (col, row) = grid_2d();
            if row < m && col < n {
                let mut acc = 0.0f32;
                for i in 0..k {
                    acc += a[row * k + i] * b[i * n + col];
                }
                c[row * n + col] = acc;
            }
        }

        /// Seed 002's shared-memory kernel: blocks of 16x16 threads; for each 16-wide slab
        /// of the inner dimension the block loads a 16x16 tile of A and one of B (zeros
        /// outside the matrices), waits, accumulates the 16 products from shared memory and
        /// waits again before the next tile overwrites them. Threads outside C take part in
        /// the loads and barriers and write nothing.
        #[gpu_kernel(block = (16, 16), $($opt)*)]
        pub fn matmul_tiled(
            #[len(m * n)] c: &mut [f32],
            #[len(m * k)] a: &[f32],
            #[len(k * n)] b: &[f32],
            m: usize,
            k: usize,
            n: usize,
        ) {
            let sa = SharedArray::<[f32; 16], 16>::new();
            let sb = SharedArray::<[f32; 16], 16>::new();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let col = block_idx().x as usize * 16 + tx;
            let row = block_idx().y as usize * 16 + ty;
            let mut acc = 0.0f32;
            let tiles = (k + 15) / 16;
            for t in 0..tiles {
                let ak = t * 16 + tx;
                sa[ty][tx] = if row < m && ak < k {
                    a[row * k + ak]
                } else {
                    0.0
                };
                let bk = t * 16 + ty;
                sb[ty][tx] = if bk < k && col < n {
                    b[bk * n + col]
                } else {
                    0.0
                };
                sync_threads();
                #[unroll]
                for i in 0..16 {
                    acc += sa[ty][i] * sb[i][tx];
                }
                sync_threads();
            }
            if row < m && col < n {
                c[row * n + col] = acc;
            }
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use super::*;
    matmul_kernels!();
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    matmul_kernels!(unchecked);
}

pub use checked::{matmul_naive, matmul_tiled};

/// Small integers (-8..=8) as f32 from `next` (a random u64 each call): products and sums
/// of them stay exact in f32 while `64 * k < 2^24`, so any order of additions gives the
/// same bits.
pub fn small_ints(mut next: impl FnMut() -> u64, len: usize) -> Vec<f32> {
    (0..len).map(|_| (next() % 17) as f32 - 8.0).collect()
}

/// Element (row, col) of C = A * B on the CPU.
pub fn cpu_element(a: &[f32], b: &[f32], k: usize, n: usize, row: usize, col: usize) -> f32 {
    (0..k).fold(0.0f32, |acc, i| acc + a[row * k + i] * b[i * n + col])
}
