//! Kernels written as users write them (issue 24, item 1): they declare nothing for the
//! bounds prover. No `#[len(..)]` on any slice, no `block = (..)`, no
//! `n = a.len().min(..)`: the sizes come in as plain parameters and the block shape is
//! whatever the launch says. The bench (`--only user-kernels`) times each against its
//! `#[gpu_kernel(unchecked)]` twin, and tests/user_kernels.rs checks both against the CPU
//! references below.
//!
//! Each kernel exists twice, written once by `user_kernels!`: [`checked`] (the default)
//! and [`unchecked`]. The launch shapes they are written for are in [`config`].
//!
//! The data the tests and the bench feed them are small integers held in `f32`, and the
//! coefficients powers of two, so every sum is exact in any order and the GPU, the
//! simulator and the CPU agree bit for bit.

#![allow(dead_code, unused_imports)] // each includer uses a part of it

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

/// The radius of [`checked::conv1d_shared`]'s filter (it has `2 * RADIUS + 1` taps).
pub const RADIUS: usize = 8;

/// The kernels with the kernel options `$opt` (none: checked; `unchecked`).
macro_rules! user_kernels {
    ($($opt:tt)*) => {
        /// One step of the 2-D heat equation, 5-point stencil, through an 18x18 shared tile
        /// (a 16x16 block's cells and a one-cell halo). Launched with 16x16 blocks
        /// (`config::heat_2d`). Border cells keep their value.
        #[gpu_kernel($($opt)*)]
        pub fn heat_2d(out: &mut [f32], u: &[f32], nx: usize, ny: usize, alpha: f32) {
            let tile = SharedArray::<[f32; 18], 18>::new();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let j = block_idx().x as usize * 16 + tx;
            let i = block_idx().y as usize * 16 + ty;
            if i < ny && j < nx {
                tile[ty + 1][tx + 1] = u[i * nx + j];
                if tx == 0 && j > 0 {
                    tile[ty + 1][0] = u[i * nx + j - 1];
                }
                if tx == 15 && j + 1 < nx {
                    tile[ty + 1][17] = u[i * nx + j + 1];
                }
                if ty == 0 && i > 0 {
                    tile[0][tx + 1] = u[(i - 1) * nx + j];
                }
                if ty == 15 && i + 1 < ny {
                    tile[17][tx + 1] = u[(i + 1) * nx + j];
                }
            }
            sync_threads();
            if i < ny && j < nx {
                let c = tile[ty + 1][tx + 1];
                if i > 0 && i + 1 < ny && j > 0 && j + 1 < nx {
                    let lap = tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx]
                        + tile[ty + 1][tx + 2]
                        - 4.0 * c;
                    out[i * nx + j] = c + alpha * lap;
                } else {
                    out[i * nx + j] = c;
                }
            }
        }

        /// One step of the 3-D heat equation, 7-point stencil, straight from global memory
        /// (x fastest). Launched with 32x8x1 blocks (`config::heat_3d`). Border
        /// cells keep their value.
        #[gpu_kernel($($opt)*)]
        pub fn heat_3d(out: &mut [f32], u: &[f32], nx: usize, ny: usize, nz: usize, alpha: f32) {
            let (x, y, z) = grid_3d();
            if x >= nx || y >= ny || z >= nz {
                return;
            }
            let idx = (z * ny + y) * nx + x;
            let c = u[idx];
            if x > 0 && x + 1 < nx && y > 0 && y + 1 < ny && z > 0 && z + 1 < nz {
                let plane = nx * ny;
                let lap = u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx] + u[idx - plane]
                    + u[idx + plane]
                    - 6.0 * c;
                out[idx] = c + alpha * lap;
            } else {
                out[idx] = c;
            }
        }

        /// `out` (cols x rows) = `a` (rows x cols) transposed, through a 32x33 shared tile
        /// (the padding column keeps the column reads free of bank conflicts). Launched
        /// with 32x8 blocks, each thread moving four elements (`config::transpose`).
        #[gpu_kernel($($opt)*)]
        pub fn transpose(out: &mut [f32], a: &[f32], rows: usize, cols: usize) {
            let tile = SharedArray::<[f32; 33], 32>::new();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let x = block_idx().x as usize * 32 + tx;
            let y = block_idx().y as usize * 32 + ty;
            for k in (0..32).step_by(8) {
                if x < cols && y + k < rows {
                    tile[ty + k][tx] = a[(y + k) * cols + x];
                }
            }
            sync_threads();
            let x = block_idx().y as usize * 32 + tx;
            let y = block_idx().x as usize * 32 + ty;
            for k in (0..32).step_by(8) {
                if x < rows && y + k < cols {
                    out[(y + k) * rows + x] = tile[tx][ty + k];
                }
            }
        }

        /// `out[i] = src[idx[i]]` for `i < n`: a gather through an index array.
        #[gpu_kernel($($opt)*)]
        pub fn gather(out: &mut [f32], src: &[f32], idx: &[u32], n: usize) {
            let i = grid_1d();
            if i < n {
                out[i] = src[idx[i] as usize];
            }
        }

        /// `y = A x` with `A` in CSR form (`row_ptr` of `rows + 1` offsets, `col` and
        /// `val` of the nonzeros): one thread per row.
        #[gpu_kernel($($opt)*)]
        pub fn spmv_csr_scalar(
            y: &mut [f32],
            row_ptr: &[u32],
            col: &[u32],
            val: &[f32],
            x: &[f32],
            rows: usize,
        ) {
            let row = grid_1d();
            if row < rows {
                let start = row_ptr[row] as usize;
                let end = row_ptr[row + 1] as usize;
                let mut s = 0.0f32;
                for k in start..end {
                    s += val[k] * x[col[k] as usize];
                }
                y[row] = s;
            }
        }

        /// [`spmv_csr_scalar`] with the row's range written inline, its ends read from
        /// `row_ptr` in the `for` itself.
        #[gpu_kernel($($opt)*)]
        pub fn spmv_csr_inline(
            y: &mut [f32],
            row_ptr: &[u32],
            col: &[u32],
            val: &[f32],
            x: &[f32],
            rows: usize,
        ) {
            let row = grid_1d();
            if row < rows {
                let mut s = 0.0f32;
                for k in row_ptr[row] as usize..row_ptr[row + 1] as usize {
                    s += val[k] * x[col[k] as usize];
                }
                y[row] = s;
            }
        }

        /// [`spmv_csr_scalar`]'s product, one warp per row: the lanes stride through the
        /// row's nonzeros and sum by shuffles. Launched with 32x8 blocks, a warp per
        /// `threadIdx.y` (`config::warp_per_row`).
        #[gpu_kernel($($opt)*)]
        pub fn spmv_csr_warp(
            y: &mut [f32],
            row_ptr: &[u32],
            col: &[u32],
            val: &[f32],
            x: &[f32],
            rows: usize,
        ) {
            let lane = thread_idx().x as usize;
            let row = block_idx().x as usize * block_dim().y as usize + thread_idx().y as usize;
            if row < rows {
                let start = row_ptr[row] as usize;
                let end = row_ptr[row + 1] as usize;
                let mut s = 0.0f32;
                for k in (start + lane..end).step_by(32) {
                    s += val[k] * x[col[k] as usize];
                }
                s += shfl_xor_sync(0xffff_ffff, s, 16);
                s += shfl_xor_sync(0xffff_ffff, s, 8);
                s += shfl_xor_sync(0xffff_ffff, s, 4);
                s += shfl_xor_sync(0xffff_ffff, s, 2);
                s += shfl_xor_sync(0xffff_ffff, s, 1);
                if lane == 0 {
                    y[row] = s;
                }
            }
        }

        /// `c` (m x n) = `a` (m x k) `b` (k x n), all row-major, through 32x32 shared tiles
        /// of `a` and `b`. Launched with 32x8 blocks: each thread computes four outputs of
        /// the block's 32x32, rows `ty`, `ty + 8`, `ty + 16`, `ty + 24`
        /// (`config::matmul`).
        #[gpu_kernel($($opt)*)]
        pub fn matmul_32x8(c: &mut [f32], a: &[f32], b: &[f32], m: usize, k: usize, n: usize) {
            let sa = SharedArray::<[f32; 32], 32>::new();
            let sb = SharedArray::<[f32; 32], 32>::new();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let row0 = block_idx().y as usize * 32;
            let col = block_idx().x as usize * 32 + tx;
            let mut acc = [0.0f32; 4];
            for t in (0..k).step_by(32) {
                for r in 0..4 {
                    let rr = ty + 8 * r;
                    sa[rr][tx] = if row0 + rr < m && t + tx < k {
                        a[(row0 + rr) * k + t + tx]
                    } else {
                        0.0
                    };
                    sb[rr][tx] = if t + rr < k && col < n {
                        b[(t + rr) * n + col]
                    } else {
                        0.0
                    };
                }
                sync_threads();
                for kk in 0..32 {
                    let bv = sb[kk][tx];
                    for r in 0..4 {
                        acc[r] += sa[ty + 8 * r][kk] * bv;
                    }
                }
                sync_threads();
            }
            for r in 0..4 {
                let row = row0 + ty + 8 * r;
                if row < m && col < n {
                    c[row * n + col] = acc[r];
                }
            }
        }

        /// `sums[r]` = the sum of row `r` of `a` (rows x cols): one warp per row, the lanes
        /// striding through the row and summing by shuffles. Launched with 32x8 blocks
        /// (`config::warp_per_row`).
        #[gpu_kernel($($opt)*)]
        pub fn row_sums(sums: &mut [f32], a: &[f32], rows: usize, cols: usize) {
            let lane = thread_idx().x as usize;
            let row = block_idx().x as usize * block_dim().y as usize + thread_idx().y as usize;
            if row >= rows {
                return;
            }
            let mut s = 0.0f32;
            for c in (lane..cols).step_by(32) {
                s += a[row * cols + c];
            }
            s += shfl_xor_sync(0xffff_ffff, s, 16);
            s += shfl_xor_sync(0xffff_ffff, s, 8);
            s += shfl_xor_sync(0xffff_ffff, s, 4);
            s += shfl_xor_sync(0xffff_ffff, s, 2);
            s += shfl_xor_sync(0xffff_ffff, s, 1);
            if lane == 0 {
                sums[row] = s;
            }
        }

        /// `out[i]` = the sum over `t` of `w[t] * x[i + t - RADIUS]` (zeros outside `x`):
        /// a 1-D convolution through a shared tile of the block's 256 inputs and a halo of
        /// `RADIUS` on each side. Launched with 256-thread blocks (`config::conv1d`).
        #[gpu_kernel($($opt)*)]
        pub fn conv1d_shared(out: &mut [f32], x: &[f32], w: &[f32], n: usize) {
            let tile = SharedArray::<f32, 272>::new();
            let t = thread_idx().x as usize;
            let i = block_idx().x as usize * 256 + t;
            tile[t + RADIUS] = if i < n { x[i] } else { 0.0 };
            if t < RADIUS {
                tile[t] = if i >= RADIUS && i - RADIUS < n { x[i - RADIUS] } else { 0.0 };
                tile[t + 256 + RADIUS] = if i + 256 < n { x[i + 256] } else { 0.0 };
            }
            sync_threads();
            if i < n {
                let mut s = 0.0f32;
                for k in 0..2 * RADIUS + 1 {
                    s += w[k] * tile[t + k];
                }
                out[i] = s;
            }
        }

        /// Every kernel of this module (for NVRTC checks and the bench's list).
        pub fn kernels() -> Vec<&'static warpspeed::__private::KernelDef> {
            vec![
                &heat_2d::KERNEL,
                &heat_3d::KERNEL,
                &transpose::KERNEL,
                &gather::KERNEL,
                &spmv_csr_scalar::KERNEL,
                &spmv_csr_inline::KERNEL,
                &spmv_csr_warp::KERNEL,
                &matmul_32x8::KERNEL,
                &row_sums::KERNEL,
                &conv1d_shared::KERNEL,
            ]
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use super::*;
    user_kernels!();
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    user_kernels!(unchecked);
}

/// The launch shapes the kernels are written for.
pub mod config {
    use warpspeed::LaunchConfig;

    fn blocks(n: usize, per: usize) -> u32 {
        u32::try_from(n.div_ceil(per)).expect("grid extent fits u32")
    }

    /// 16x16 blocks over an `nx` x `ny` grid.
    pub fn heat_2d(nx: usize, ny: usize) -> LaunchConfig {
        LaunchConfig::new((blocks(nx, 16), blocks(ny, 16)), (16, 16))
    }

    /// 32x8x1 blocks over an `nx` x `ny` x `nz` grid.
    pub fn heat_3d(nx: usize, ny: usize, nz: usize) -> LaunchConfig {
        LaunchConfig::new((blocks(nx, 32), blocks(ny, 8), blocks(nz, 1)), (32, 8, 1))
    }

    /// 32x8 blocks, one per 32x32 tile of the `rows` x `cols` input.
    pub fn transpose(rows: usize, cols: usize) -> LaunchConfig {
        LaunchConfig::new((blocks(cols, 32), blocks(rows, 32)), (32, 8))
    }

    /// 256-thread blocks over `n` threads (gather, scalar SpMV).
    pub fn one_per_element(n: usize) -> LaunchConfig {
        LaunchConfig::new(blocks(n, 256), 256)
    }

    /// 32x8 blocks, a warp per row (warp SpMV, row sums).
    pub fn warp_per_row(rows: usize) -> LaunchConfig {
        LaunchConfig::new(blocks(rows, 8), (32, 8))
    }

    /// 32x8 blocks, one per 32x32 tile of the `m` x `n` output.
    pub fn matmul(m: usize, n: usize) -> LaunchConfig {
        LaunchConfig::new((blocks(n, 32), blocks(m, 32)), (32, 8))
    }

    /// 256-thread blocks over `n` outputs.
    pub fn conv1d(n: usize) -> LaunchConfig {
        LaunchConfig::new(blocks(n, 256), 256)
    }
}

/// [`checked::heat_2d`] on the CPU.
pub fn cpu_heat_2d(u: &[f32], nx: usize, ny: usize, alpha: f32) -> Vec<f32> {
    let mut out = u.to_vec();
    for i in 1..ny.saturating_sub(1) {
        for j in 1..nx.saturating_sub(1) {
            let c = u[i * nx + j];
            let lap =
                u[(i - 1) * nx + j] + u[(i + 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1]
                    - 4.0 * c;
            out[i * nx + j] = c + alpha * lap;
        }
    }
    out
}

/// [`checked::heat_3d`] on the CPU.
pub fn cpu_heat_3d(u: &[f32], nx: usize, ny: usize, nz: usize, alpha: f32) -> Vec<f32> {
    let mut out = u.to_vec();
    let plane = nx * ny;
    for z in 1..nz.saturating_sub(1) {
        for y in 1..ny.saturating_sub(1) {
            for x in 1..nx.saturating_sub(1) {
                let idx = (z * ny + y) * nx + x;
                let c = u[idx];
                let lap = u[idx - 1]
                    + u[idx + 1]
                    + u[idx - nx]
                    + u[idx + nx]
                    + u[idx - plane]
                    + u[idx + plane]
                    - 6.0 * c;
                out[idx] = c + alpha * lap;
            }
        }
    }
    out
}

/// [`checked::transpose`] on the CPU.
pub fn cpu_transpose(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = a[r * cols + c];
        }
    }
    out
}

/// [`checked::gather`] on the CPU.
pub fn cpu_gather(src: &[f32], idx: &[u32]) -> Vec<f32> {
    idx.iter().map(|&i| src[i as usize]).collect()
}

// The CPU sums below start from +0.0 as the kernels do (`Iterator::sum` of f32 starts from
// -0.0, and an empty row would then differ in its sign bit).

/// A CSR matrix: `row_ptr` (`rows + 1` offsets), `col` and `val` of the nonzeros.
pub struct Csr {
    pub rows: usize,
    pub cols: usize,
    pub row_ptr: Vec<u32>,
    pub col: Vec<u32>,
    pub val: Vec<f32>,
}

impl Csr {
    /// A random `rows` x `cols` matrix with 0 to `2 * mean_nnz` nonzeros a row (small
    /// integers), from `next` (a PRNG's next u64).
    pub fn random(rows: usize, cols: usize, mean_nnz: usize, mut next: impl FnMut() -> u64) -> Csr {
        let mut row_ptr = Vec::with_capacity(rows + 1);
        let mut col = Vec::new();
        let mut val = Vec::new();
        row_ptr.push(0u32);
        for _ in 0..rows {
            let nnz = (next() % (2 * mean_nnz as u64 + 1)) as usize;
            for _ in 0..nnz {
                col.push((next() % cols as u64) as u32);
                val.push((next() % 9) as f32 - 4.0);
            }
            row_ptr.push(u32::try_from(col.len()).expect("nonzeros fit u32"));
        }
        Csr {
            rows,
            cols,
            row_ptr,
            col,
            val,
        }
    }

    /// `A x` on the CPU.
    pub fn spmv(&self, x: &[f32]) -> Vec<f32> {
        (0..self.rows)
            .map(|r| {
                (self.row_ptr[r] as usize..self.row_ptr[r + 1] as usize)
                    .fold(0.0f32, |s, k| s + self.val[k] * x[self.col[k] as usize])
            })
            .collect()
    }
}

/// [`checked::matmul_32x8`] on the CPU.
pub fn cpu_matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).fold(0.0f32, |s, p| s + a[i * k + p] * b[p * n + j]);
        }
    }
    c
}

/// [`checked::row_sums`] on the CPU.
pub fn cpu_row_sums(a: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    (0..rows)
        .map(|r| {
            a[r * cols..(r + 1) * cols]
                .iter()
                .fold(0.0f32, |s, v| s + v)
        })
        .collect()
}

/// [`checked::conv1d_shared`] on the CPU.
pub fn cpu_conv1d(x: &[f32], w: &[f32]) -> Vec<f32> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let mut s = 0.0f32;
            for (t, &wt) in w.iter().enumerate() {
                if i + t >= RADIUS && i + t - RADIUS < n {
                    s += wt * x[i + t - RADIUS];
                }
            }
            s
        })
        .collect()
}

/// `len` small integers 0..=15 as `f32`, from `next`: sums of thousands of their products
/// stay exact in `f32`.
pub fn small_ints(mut next: impl FnMut() -> u64, len: usize) -> Vec<f32> {
    (0..len).map(|_| (next() % 16) as f32).collect()
}
