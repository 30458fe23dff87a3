//! The f32 matrix multiplications of seed 002, shared by the `matmul` and `bench` examples
//! (each includes this file with `#[path = "kernels/matmul.rs"] mod matmul_kernels;`), and
//! the CPU reference they are checked against.
//!
//! Each kernel exists twice: [`checked`] (the default, bounds-checked; also re-exported
//! here under the same names) and [`unchecked`] (`#[gpu_kernel(unchecked)]`), written once
//! by `matmul_kernels!` so the bench can time what the checks cost.

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

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

        /// Register-tiled matmul (docs/matmul.md): blocks of 16x16 threads, each block
        /// computes a 128x128 tile of C and each thread an 8x8 sub-tile of it in 64
        /// registers. The inner dimension goes by slabs of 8: the block copies a 128x8 slab
        /// of A (transposed, so a thread's 4 rows lie side by side) and an 8x128 slab of B
        /// into one of two shared buffers, then every thread reads 8 values of A and 8 of B
        /// per step of k and does 64 `mul_add`s. While it multiplies one slab, its loads of
        /// the next are in flight in registers; they go to the other buffer, so one barrier
        /// per slab suffices.
        ///
        /// Any m, k, n: loads outside A and B give zeros and elements outside C are not
        /// written, so the edges cost a few comparisons per slab and nothing else. The fast
        /// path is m and n multiples of 128 and k a multiple of 8, where no comparison
        /// fails. Launch with `matmul_reg_config(m, n)`: grid (n / 128, m / 128) rounded up,
        /// blocks of (16, 16).
        ///
        /// Thread (tx, ty) owns rows `ty * 4 + {0..3}` and `64 + ty * 4 + {0..3}` of the
        /// tile, and the same columns with tx: each group of 4 is one 16-byte shared read
        /// (ptxas merges the 4 scalar reads into one `LDS.128`; `f32x4` will spell it), and
        /// a warp's reads of B cover 256 contiguous bytes without bank conflicts. On sm_90
        /// NVRTC gives it 128 registers, no spills: two blocks per SM.
        #[gpu_kernel(block = (16, 16), $($opt)*)]
        pub fn matmul_reg(
            #[len(m * n)] c: &mut [f32],
            #[len(m * k)] a: &[f32],
            #[len(k * n)] b: &[f32],
            m: usize,
            k: usize,
            n: usize,
        ) {
            // Two buffers of 8 rows each: sa[buffer * 8 + kk][row of the tile] (A transposed;
            // rows padded to 132 so the loaders' stores spread over all 32 banks, still a
            // multiple of 16 bytes) and sb[buffer * 8 + kk][column of the tile].
            let sa = SharedArray::<[f32; 132], 16>::new();
            let sb = SharedArray::<[f32; 128], 16>::new();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let tid = ty * 16 + tx;
            let bm = block_idx().y as usize * 128;
            let bn = block_idx().x as usize * 128;
            // The loaders: thread tid copies the slab's elements (a_row, a_col + j) of A (4
            // side by side: one address, and one 16-byte load once `f32x4` exists) and
            // (b_row, b_col + 32 j) of B (a warp reads 128 contiguous bytes), j = 0..3.
            let a_row = tid / 2;
            let a_col = tid % 2 * 4;
            let b_row = tid / 32;
            let b_col = tid % 32;
            let mut pa = [0.0f32; 4];
            let mut pb = [0.0f32; 4];
            #[unroll]
            for j in 0..4 {
                let row = bm + a_row;
                let col = a_col + j;
                pa[j] = if row < m && col < k {
                    a[row * k + col]
                } else {
                    0.0
                };
                let col = bn + b_col + 32 * j;
                pb[j] = if b_row < k && col < n {
                    b[b_row * n + col]
                } else {
                    0.0
                };
            }
            let mut acc = [0.0f32; 64];
            let slabs = (k + 7) / 8;
            for s in 0..slabs {
                // Slab s: registers -> shared buffer s % 2. The barrier also tells every
                // thread that the other buffer's readers (slab s - 1) are done with it.
                let buf = s % 2 * 8;
                #[unroll]
                for j in 0..4 {
                    sa[buf + a_col + j][a_row] = pa[j];
                    sb[buf + b_row][b_col + 32 * j] = pb[j];
                }
                sync_threads();
                // Slab s + 1: global -> registers, in flight while slab s is multiplied.
                let ka = (s + 1) * 8 + a_col;
                let kb = (s + 1) * 8 + b_row;
                #[unroll]
                for j in 0..4 {
                    let row = bm + a_row;
                    let col = ka + j;
                    pa[j] = if row < m && col < k {
                        a[row * k + col]
                    } else {
                        0.0
                    };
                    let col = bn + b_col + 32 * j;
                    pb[j] = if kb < k && col < n {
                        b[kb * n + col]
                    } else {
                        0.0
                    };
                }
                #[unroll]
                for kk in 0..8 {
                    let mut fa = [0.0f32; 8];
                    let mut fb = [0.0f32; 8];
                    #[unroll]
                    for i in 0..4 {
                        fa[i] = sa[buf + kk][ty * 4 + i];
                        fa[4 + i] = sa[buf + kk][64 + ty * 4 + i];
                        fb[i] = sb[buf + kk][tx * 4 + i];
                        fb[4 + i] = sb[buf + kk][64 + tx * 4 + i];
                    }
                    #[unroll]
                    for i in 0..8 {
                        #[unroll]
                        for j in 0..8 {
                            acc[i * 8 + j] = fa[i].mul_add(fb[j], acc[i * 8 + j]);
                        }
                    }
                }
            }
            #[unroll]
            for i in 0..8 {
                let row = bm + i / 4 * 64 + ty * 4 + i % 4;
                #[unroll]
                for j in 0..8 {
                    let col = bn + j / 4 * 64 + tx * 4 + j % 4;
                    if row < m && col < n {
                        c[row * n + col] = acc[i * 8 + j];
                    }
                }
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

pub use checked::{matmul_naive, matmul_reg, matmul_tiled};

/// The launch configuration of [`matmul_reg`] for an m x n C: one block of 16x16 threads
/// per 128x128 tile, rounded up.
pub fn matmul_reg_config(m: usize, n: usize) -> LaunchConfig {
    LaunchConfig::new((n.div_ceil(128) as u32, m.div_ceil(128) as u32), (16, 16))
}

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
