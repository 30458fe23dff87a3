//! Where a thread is: its indices in the block and the grid, and the grid's shape.

use super::outside_kernel;
use crate::Dim3;

/// The thread's index in its block, CUDA's `threadIdx`: `x` in `0..block_dim().x`, and so
/// on. The bounds prover knows these ranges (docs/bounds.md).
pub fn thread_idx() -> Dim3 {
    outside_kernel("thread_idx")
}

/// The block's index in the grid, CUDA's `blockIdx`.
pub fn block_idx() -> Dim3 {
    outside_kernel("block_idx")
}

/// The block's extent in threads, CUDA's `blockDim` (the launch's `LaunchConfig::block`).
pub fn block_dim() -> Dim3 {
    outside_kernel("block_dim")
}

/// The grid's extent in blocks, CUDA's `gridDim` (the launch's `LaunchConfig::grid`).
pub fn grid_dim() -> Dim3 {
    outside_kernel("grid_dim")
}

/// The thread's global index in x: `block_idx().x * block_dim().x + thread_idx().x`,
/// computed in `usize` so it never wraps (Numba's `cuda.grid(1)`).
pub fn grid_1d() -> usize {
    outside_kernel("grid_1d")
}

/// The thread's global `(x, y)` index (Numba's `cuda.grid(2)`).
pub fn grid_2d() -> (usize, usize) {
    outside_kernel("grid_2d")
}

/// The thread's global `(x, y, z)` index (Numba's `cuda.grid(3)`).
pub fn grid_3d() -> (usize, usize, usize) {
    outside_kernel("grid_3d")
}

/// The grid's thread count in x, `grid_dim().x * block_dim().x`: the step of a
/// grid-stride loop (Numba's `cuda.gridsize(1)`).
pub fn grid_stride_1d() -> usize {
    outside_kernel("grid_stride_1d")
}

/// The thread's lane in its warp, `0..32`.
pub fn lane_id() -> u32 {
    outside_kernel("lane_id")
}
