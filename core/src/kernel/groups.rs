//! Cooperative groups: the block, tiles of it, and the grid, as CUDA's
//! `cooperative_groups` names them. A group has no run-time value (the macro knows its
//! kind and size), so its methods cost what the barrier or warp function they stand for
//! costs.

use super::{outside_kernel, WarpValue};
use crate::Dim3;

/// The thread's block as a group.
pub fn this_thread_block() -> ThreadBlock {
    outside_kernel("this_thread_block")
}

/// The grid as a group: its [`GridGroup::sync`] needs the kernel launched with
/// `launch_cooperative`.
pub fn this_grid() -> GridGroup {
    outside_kernel("this_grid")
}

/// The block cut into tiles of `N` consecutive threads (`N` a power of two from 2 to 32);
/// the result is the tile this thread is in.
pub fn tiled_partition<const N: u32>(block: ThreadBlock) -> ThreadBlockTile<N> {
    let _ = block;
    outside_kernel("tiled_partition")
}

/// The block as a cooperative group (`this_thread_block()`).
#[derive(Clone, Copy, Debug)]
pub struct ThreadBlock(());

impl ThreadBlock {
    /// Block barrier (`__syncthreads`).
    pub fn sync(&self) {
        outside_kernel("ThreadBlock::sync")
    }
    /// The thread's rank in the block, `0..size()`, x fastest.
    pub fn thread_rank(&self) -> u32 {
        outside_kernel("ThreadBlock::thread_rank")
    }
    /// The threads in the block.
    pub fn size(&self) -> u32 {
        outside_kernel("ThreadBlock::size")
    }
    /// The threads in the block (CUDA's newer name of `size`).
    pub fn num_threads(&self) -> u32 {
        outside_kernel("ThreadBlock::num_threads")
    }
    /// The block's index in the grid (`blockIdx`).
    pub fn group_index(&self) -> Dim3 {
        outside_kernel("ThreadBlock::group_index")
    }
    /// The thread's index in the block (`threadIdx`).
    pub fn thread_index(&self) -> Dim3 {
        outside_kernel("ThreadBlock::thread_index")
    }
    /// The block's extent (`blockDim`).
    pub fn dim_threads(&self) -> Dim3 {
        outside_kernel("ThreadBlock::dim_threads")
    }
}

/// `N` consecutive threads of a block (`tiled_partition::<N>(block)`), within one warp.
#[derive(Clone, Copy, Debug)]
pub struct ThreadBlockTile<const N: u32>(());

impl<const N: u32> ThreadBlockTile<N> {
    /// Barrier of the tile's lanes.
    pub fn sync(&self) {
        outside_kernel("ThreadBlockTile::sync")
    }
    /// The thread's rank in the tile, `0..N`.
    pub fn thread_rank(&self) -> u32 {
        outside_kernel("ThreadBlockTile::thread_rank")
    }
    /// `N`.
    pub fn size(&self) -> u32 {
        outside_kernel("ThreadBlockTile::size")
    }
    /// `N` (CUDA's newer name of `size`).
    pub fn num_threads(&self) -> u32 {
        outside_kernel("ThreadBlockTile::num_threads")
    }
    /// The tile's index among the block's tiles.
    pub fn meta_group_rank(&self) -> u32 {
        outside_kernel("ThreadBlockTile::meta_group_rank")
    }
    /// How many tiles the block has.
    pub fn meta_group_size(&self) -> u32 {
        outside_kernel("ThreadBlockTile::meta_group_size")
    }
    /// The `value` of the tile's lane `src_rank`.
    pub fn shfl<T: WarpValue>(&self, value: T, src_rank: u32) -> T {
        let _ = (value, src_rank);
        outside_kernel("ThreadBlockTile::shfl")
    }
    /// The `value` of rank `thread_rank() - delta` (lanes below `delta` keep their own).
    pub fn shfl_up<T: WarpValue>(&self, value: T, delta: u32) -> T {
        let _ = (value, delta);
        outside_kernel("ThreadBlockTile::shfl_up")
    }
    /// The `value` of rank `thread_rank() + delta` (lanes past the end keep their own).
    pub fn shfl_down<T: WarpValue>(&self, value: T, delta: u32) -> T {
        let _ = (value, delta);
        outside_kernel("ThreadBlockTile::shfl_down")
    }
    /// The `value` of rank `thread_rank() ^ lane_mask`.
    pub fn shfl_xor<T: WarpValue>(&self, value: T, lane_mask: u32) -> T {
        let _ = (value, lane_mask);
        outside_kernel("ThreadBlockTile::shfl_xor")
    }
    /// Whether `predicate` holds on some lane of the tile.
    pub fn any(&self, predicate: bool) -> bool {
        let _ = predicate;
        outside_kernel("ThreadBlockTile::any")
    }
    /// Whether `predicate` holds on every lane of the tile.
    pub fn all(&self, predicate: bool) -> bool {
        let _ = predicate;
        outside_kernel("ThreadBlockTile::all")
    }
    /// The tile's lanes whose `predicate` holds, as bits (rank 0 the lowest).
    pub fn ballot(&self, predicate: bool) -> u32 {
        let _ = predicate;
        outside_kernel("ThreadBlockTile::ballot")
    }
}

/// The whole grid as a cooperative group (`this_grid()`).
#[derive(Clone, Copy, Debug)]
pub struct GridGroup(());

impl GridGroup {
    /// Grid barrier: every thread of every block waits here. Only under
    /// `launch_cooperative`, which checks that every block fits on the device at once.
    pub fn sync(&self) {
        outside_kernel("GridGroup::sync")
    }
}
