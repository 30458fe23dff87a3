//! The kernel language's vocabulary as Rust items: what a `#[gpu_kernel]` or
//! `#[gpu_device]` body may call, with its real signature, so `cargo doc` shows each one
//! with its types and an editor completes it. `use warpspeed::prelude::*;` brings them in.
//!
//! Inside a kernel the macro translates each call into CUDA C (`thread_idx()` is
//! `threadIdx`, `shfl_down_sync` is `__shfl_down_sync`) and, for the simulator, into a call
//! on the simulated thread; these functions are the contract both follow. Called from
//! ordinary host code they panic: there is no thread, block or warp there. The macro
//! accepts each name bare (`thread_idx()`), through the prelude, or by path
//! (`warpspeed::kernel::thread_idx()`, `kernel::sync_threads()`).
//!
//! | group | items |
//! |---|---|
//! | where am I | [`thread_idx`], [`block_idx`], [`block_dim`], [`grid_dim`], [`grid_1d`], [`grid_2d`], [`grid_3d`], [`grid_stride_1d`], [`lane_id`] |
//! | barriers and fences | [`sync_threads`], [`sync_threads_count`], [`sync_threads_and`], [`sync_threads_or`], [`sync_warp`], [`thread_fence`], [`thread_fence_block`], [`thread_fence_system`] |
//! | warp functions | [`active_mask`], [`ballot_sync`], [`all_sync`], [`any_sync`], [`shfl_sync`], [`shfl_up_sync`], [`shfl_down_sync`], [`shfl_xor_sync`], [`match_any_sync`] |
//! | cooperative groups | [`this_thread_block`], [`tiled_partition`], [`this_grid`], [`ThreadBlock`], [`ThreadBlockTile`], [`GridGroup`] |
//! | shared memory | [`SharedArray`], [`dynamic_shared`] |
//! | asynchronous copies | [`cp_async`], [`cp_async_commit`], [`cp_async_wait`], [`cp_async_wait_all`] (docs/tensor-cores.md) |
//! | four elements as one access | [`load4`], [`store4`] (docs/vectors.md) |
//! | swizzled tiles | [`swizzle_128b`], [`swizzle_64b`], [`swizzle_32b`] (also on the host) |
//! | Hopper (sm_90) | [`Mbarrier`] (`init`, `arrive`, `arrive_expect_tx`, `wait`, `try_wait`), [`fence_mbarrier_init`], [`fence_proxy_async`], [`tma_load_2d`] on a `&TensorMap<T>` parameter (docs/tensor-cores.md) |
//! | textures | [`TextureFetch::fetch`] on a `&Texture2D<T>` parameter, and its `width()`, `height()` |
//! | tensor cores | [`FragmentA`], [`FragmentB`], [`FragmentAcc`] (`zeroed()`, `x[i]`, [`FragmentAcc::mma_sync`]) of shape [`M16N8K16`], [`M16N8K8`] or [`M16N8K32`] (docs/tensor-cores.md) |
//! | Hopper (sm_90a) | [`FragmentAcc`] of shape [`M64N128K16`] (`M64N{N}K16`; tf32 [`M64N128K8`], `M64N{N}K8`), [`FragmentAcc::wgmma`], [`wgmma_fence`], [`wgmma_commit_group`], [`wgmma_wait_group`], [`setmaxnreg_inc`], [`setmaxnreg_dec`], [`fence_proxy_async`] |
//!
//! Atomics are Rust's own types: a kernel parameter `&[AtomicU32]` (or
//! `SharedArray::<AtomicU32, N>`) and `a[i].fetch_add(1, Ordering::Relaxed)`, with
//! `core::sync::atomic`'s integer atomics and warpspeed's [`AtomicF32`](crate::AtomicF32),
//! [`AtomicF64`](crate::AtomicF64), [`AtomicF16`](crate::AtomicF16),
//! [`AtomicF16x2`](crate::AtomicF16x2), [`AtomicBf16`](crate::AtomicBf16) and
//! [`AtomicBf16x2`](crate::AtomicBf16x2). Printing is `gpu_print!`/`gpu_println!`; numeric
//! methods (`x.rotate_left(3)`, `y.tanh()`) are Rust's, listed in docs/methods.md with
//! their CUDA C and error bounds. docs/methods.md also lists these intrinsics; a test
//! checks that both name the same functions with the same types.

mod cp_async;
mod groups;
mod hopper;
mod index;
mod mma;
mod quad;
mod shared;
mod swizzle;
mod sync;
mod texture;
mod warp;
mod wgmma;

pub use crate::Dim3;
pub use cp_async::{cp_async, cp_async_commit, cp_async_wait, cp_async_wait_all};
pub use groups::{
    this_grid, this_thread_block, tiled_partition, GridGroup, ThreadBlock, ThreadBlockTile,
};
pub use hopper::{fence_mbarrier_init, fence_proxy_async, tma_load_2d, Mbarrier};
pub use index::{
    block_dim, block_idx, grid_1d, grid_2d, grid_3d, grid_dim, grid_stride_1d, lane_id, thread_idx,
};
pub use mma::{FragmentA, FragmentAcc, FragmentB, FragmentShape, M16N8K16, M16N8K32, M16N8K8};
pub use quad::{load4, store4};
pub use shared::{dynamic_shared, SharedArray};
pub use swizzle::{swizzle_128b, swizzle_32b, swizzle_64b};
pub use sync::{
    sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, sync_warp, thread_fence,
    thread_fence_block, thread_fence_system,
};
pub use texture::TextureFetch;
pub use warp::{
    active_mask, all_sync, any_sync, ballot_sync, match_any_sync, shfl_down_sync, shfl_sync,
    shfl_up_sync, shfl_xor_sync, WarpValue,
};
pub use wgmma::{
    setmaxnreg_dec, setmaxnreg_inc, wgmma_commit_group, wgmma_fence, wgmma_wait_group,
    WgmmaOperandA, M64N104K16, M64N112K16, M64N120K16, M64N128K16, M64N136K16, M64N144K16,
    M64N152K16, M64N160K16, M64N168K16, M64N16K16, M64N176K16, M64N184K16, M64N192K16, M64N200K16,
    M64N208K16, M64N216K16, M64N224K16, M64N232K16, M64N240K16, M64N248K16, M64N24K16, M64N256K16,
    M64N32K16, M64N40K16, M64N48K16, M64N56K16, M64N64K16, M64N72K16, M64N80K16, M64N88K16,
    M64N8K16, M64N96K16,
};
pub use wgmma::{
    M64N104K8, M64N112K8, M64N120K8, M64N128K8, M64N136K8, M64N144K8, M64N152K8, M64N160K8,
    M64N168K8, M64N16K8, M64N176K8, M64N184K8, M64N192K8, M64N200K8, M64N208K8, M64N216K8,
    M64N224K8, M64N232K8, M64N240K8, M64N248K8, M64N24K8, M64N256K8, M64N32K8, M64N40K8, M64N48K8,
    M64N56K8, M64N64K8, M64N72K8, M64N80K8, M64N88K8, M64N8K8, M64N96K8,
};

/// What every item here does on the host: a kernel's vocabulary has no meaning outside a
/// kernel, so calling it from host code is a bug in the caller, said plainly.
#[cold]
#[track_caller]
fn outside_kernel(name: &str) -> ! {
    panic!(
        "`{name}` is kernel code: it runs only inside a #[gpu_kernel] or #[gpu_device] body, which the macro translates for the GPU and the simulator"
    )
}
