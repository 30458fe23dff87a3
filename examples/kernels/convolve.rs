//! The 2-D convolutions of seed 002, shared by the `convolve` and `bench` examples (each
//! includes this file with `#[path = "kernels/convolve.rs"] mod convolve_kernels;`), and the
//! CPU reference they are checked against:
//!
//! result[i][j] = sum over (k, l) of mask[k][l] * image[i - k + mask_rows / 2][j - l + mask_cols / 2]
//!
//! with zeros outside the image. Each kernel exists twice: [`checked`] (the default,
//! bounds-checked; also re-exported here under the same names) and [`unchecked`]
//! (`#[gpu_kernel(unchecked)]`), written once by `convolve_kernels!`.

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use warpspeed::prelude::*;

/// The largest mask side the shared kernel's tiles hold (seed 002's 13x13).
pub const MAX_MASK: usize = 13;

/// The kernels with the kernel options `$opt` (none: checked; `unchecked`).
macro_rules! convolve_kernels {
    ($($opt:tt)*) => {
        /// Seed 002's `convolve`: one thread per pixel (x = column, y = row), everything
        /// read from global memory; taps outside the image are skipped (zero padding).
        #[gpu_kernel($($opt)*)]
        pub fn convolve_naive(
            #[len(rows * cols)] result: &mut [f32],
            #[len(mask_rows * mask_cols)] mask: &[f32],
            #[len(rows * cols)] image: &[f32],
            rows: usize,
            cols: usize,
            mask_rows: usize,
            mask_cols: usize,
        ) {
            let (j, i) = grid_2d();
            if i >= rows || j >= cols {
                return;
            }
            let dr = mask_rows / 2;
            let dc = mask_cols / 2;
            let mut s = 0.0f32;
            for k in 0..mask_rows {
                for l in 0..mask_cols {
                    // Image row i - k + dr and column j - l + dc, tested without going
                    // below zero.
                    if i + dr >= k && i + dr - k < rows && j + dc >= l && j + dc - l < cols {
                        s += mask[k * mask_cols + l] * image[(i + dr - k) * cols + (j + dc - l)];
                    }
                }
            }
            result[i * cols + j] = s;
        }

        /// Seed 002's `smem_convolve`: blocks of 32x32 threads. The block's threads copy the
        /// mask (at most 13x13) into shared memory, and the image rows i0 - dr .. i0 + 32 +
        /// dr and columns j0 - dc .. j0 + 32 + dc (the tile and its halo, zeros outside the
        /// image, at most 44x44) into a shared tile, each thread a strided share of it;
        /// after the barrier every pixel's sum reads shared memory only. Threads outside
        /// the image help load and write nothing.
        #[gpu_kernel(block = (32, 32), $($opt)*)]
        pub fn convolve_shared(
            #[len(rows * cols)] result: &mut [f32],
            #[len(mask_rows * mask_cols)] mask: &[f32],
            #[len(rows * cols)] image: &[f32],
            rows: usize,
            cols: usize,
            mask_rows: usize,
            mask_cols: usize,
        ) {
            let tile = SharedArray::<[f32; 44], 44>::new();
            let smask = SharedArray::<f32, 169>::new();
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let t = ty * 32 + tx;
            let i0 = block_idx().y as usize * 32;
            let j0 = block_idx().x as usize * 32;
            // The tiles hold masks up to 13x13 (the launch is refused on the host for larger
            // ones); saying so first bounds every shared index below.
            if mask_rows > 13 || mask_cols > 13 {
                return;
            }
            let dr = mask_rows / 2;
            let dc = mask_cols / 2;
            if t < mask_rows * mask_cols {
                smask[t] = mask[t];
            }
            // Tile cell (r, c) holds image pixel (i0 + r - dr, j0 + c - dc).
            let tile_rows = 32 + 2 * dr;
            let tile_cols = 32 + 2 * dc;
            // Rows ty, ty + 32 and columns tx, tx + 32 of the tile: a warp loads consecutive
            // columns (coalesced), and r, c < 44 are known.
            for r in (ty..tile_rows).step_by(32) {
                for c in (tx..tile_cols).step_by(32) {
                    tile[r][c] = if i0 + r >= dr && i0 + r - dr < rows && j0 + c >= dc && j0 + c - dc < cols {
                        image[(i0 + r - dr) * cols + (j0 + c - dc)]
                    } else {
                        0.0
                    };
                }
            }
            sync_threads();
            let i = i0 + ty;
            let j = j0 + tx;
            if i < rows && j < cols {
                // image[i - k + dr][j - l + dc] is tile[ty + 2 dr - k][tx + 2 dc - l].
                let mut s = 0.0f32;
                // k <= 2 * dr always (2 * (m / 2) >= m - 1); the `min` says so to the prover,
                // so the tile's row ty + 2 * dr - k needs no check.
                for k in 0..mask_rows.min(2 * dr + 1) {
                    for l in 0..mask_cols.min(2 * dc + 1) {
                        s += smask[k * mask_cols + l] * tile[ty + 2 * dr - k][tx + 2 * dc - l];
                    }
                }
                result[i * cols + j] = s;
            }
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use super::*;
    convolve_kernels!();
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    convolve_kernels!(unchecked);
}

pub use checked::{convolve_naive, convolve_shared};

/// Row `i` of the convolution on the CPU, written into `out_row` (`cols` pixels): the
/// formula above, taps in the kernels' order.
pub fn cpu_row(
    image: &[f32],
    rows: usize,
    cols: usize,
    mask: &[f32],
    (mr, mc): (usize, usize),
    i: usize,
    out_row: &mut [f32],
) {
    let (dr, dc) = ((mr / 2) as isize, (mc / 2) as isize);
    let i = i as isize;
    for (j, o) in out_row.iter_mut().enumerate() {
        let mut s = 0.0f32;
        for k in 0..mr {
            let ii = i - k as isize + dr;
            if ii < 0 || ii >= rows as isize {
                continue;
            }
            for l in 0..mc {
                let jj = j as isize - l as isize + dc;
                if jj >= 0 && jj < cols as isize {
                    s += mask[k * mc + l] * image[ii as usize * cols + jj as usize];
                }
            }
        }
        *o = s;
    }
}
