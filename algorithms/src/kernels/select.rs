//! The library's select kernels, generic over the element type (`T: Scalar`: `bool`, the
//! integers and the floats), instances of the one-pass select template
//! (`__select_kernel!`, algorithms/src/template/select.rs):
//!
//! - `flagged_bool`, `flagged_u8`: keep `x[i]` where `flags[i]` is true (non-zero);
//! - `unique`: keep `x[i]` where `i == 0 || x[i] != x[i - 1]` (the heads of runs of
//!   equal elements: `select::unique`, and with `heads` the run starts of
//!   `select::run_length_encode`);
//! - `run_lengths`: `counts[r] = heads[r + 1] - heads[r]`, run-length encoding's second
//!   launch;
//!
//! the first three once a tiling (`select::Tiling`, what the autotuner chooses among), in
//! a module named by its label ([`t4096c4`], the default, whose kernels are also here at
//! the top: `kernels::flagged_bool` is `kernels::t4096c4::flagged_bool`),
//! and [`count_lookback`], the look-back over the tiles' counts every select kernel (a
//! user's too) calls.

use std::sync::atomic::{AtomicU64, Ordering};
use warpspeed_core::prelude::*;

/// The number of elements kept before tile `tile` (what it adds to its places in the
/// output), for the select kernels: warp 0 of the block calls it with the tile's count
/// (`aggregate`), every lane gets the result. The scan's decoupled look-back
/// (algorithms/src/template/lookback.rs, whose docs give the protocol of `status` and
/// `epoch`) for 32-bit wrapping sums: publish the aggregate (tile 0: its inclusive
/// prefix), read the 32 predecessors' words at a time until all are published, add the
/// aggregates up to the nearest inclusive prefix, publish this tile's inclusive prefix.
#[gpu_device]
pub fn count_lookback(status: &[AtomicU64], tile: u32, aggregate: u32, epoch: u32) -> u32 {
    let full = 0xffff_ffffu32;
    let flag_aggregate = 2 * epoch as u64;
    let flag_prefix = flag_aggregate + 1;
    let lane = lane_id();
    let mut exclusive = 0u32;
    // (The caller's block returned already when `tile` has no word; saying it again
    // proves every index below.)
    if tile as usize >= status.len() {
        return exclusive;
    }
    if tile == 0 {
        if lane == 0 {
            status[0].store(flag_prefix << 32 | aggregate as u64, Ordering::Relaxed);
        }
        return exclusive;
    }
    if lane == 0 {
        status[tile as usize].store(flag_aggregate << 32 | aggregate as u64, Ordering::Relaxed);
    }
    // This lane's predecessor is `back` tiles back; before tile 0, a prefix of zero.
    let mut back = lane + 1;
    loop {
        let mut word = flag_prefix << 32;
        if back <= tile {
            word = status[(tile - back) as usize].load(Ordering::Relaxed);
        }
        let mut flag = word >> 32;
        while any_sync(full, flag != flag_aggregate && flag != flag_prefix) {
            if flag != flag_aggregate && flag != flag_prefix && back <= tile {
                word = status[(tile - back) as usize].load(Ordering::Relaxed);
                flag = word >> 32;
            }
        }
        // Lanes up to the nearest inclusive prefix (all 32 if none) count.
        let prefixes = ballot_sync(full, flag == flag_prefix);
        let mut v = word as u32;
        if prefixes != 0 && lane > prefixes.trailing_zeros() {
            v = 0;
        }
        let mut k = 0u32;
        while k < 5 {
            v += shfl_xor_sync(full, v, 16u32 >> k);
            k += 1;
        }
        exclusive += v;
        if prefixes != 0 {
            break;
        }
        back += 32;
    }
    if lane == 0 {
        let inclusive = exclusive + aggregate;
        status[tile as usize].store(flag_prefix << 32 | inclusive as u64, Ordering::Relaxed);
    }
    exclusive
}

/// The select kernels of one tiling, in the module `$m` (`$opts`: `[unchecked]` or `[]`).
macro_rules! select_tiling {
    ($m:ident, $doc:literal, items $items:tt tile $tile:literal mask $tmask:literal, blocks_per_sm [$($bps:tt)?], [$($opt:ident),*]) => {
        #[doc = $doc]
        pub mod $m {
            use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
            use warpspeed_core::prelude::*;
            crate::__select_kernel!(flagged_bool<T: Scalar>, T, [x, i, _v] keep if i < flags.len() { flags[i] } else { false },
                params [flags: &[bool]], items $items tile $tile mask $tmask, blocks_per_sm [$($bps)?], options [$($opt),*]);
            crate::__select_kernel!(flagged_u8<T: Scalar>, T, [x, i, _v] keep if i < flags.len() { flags[i] != 0 } else { false },
                params [flags: &[u8]], items $items tile $tile mask $tmask, blocks_per_sm [$($bps)?], options [$($opt),*]);
            crate::__select_kernel!(unique<T: Scalar>, T, [x, i, v] keep if i > 0 { v != x[i - 1] } else { true },
                params [], items $items tile $tile mask $tmask, blocks_per_sm [$($bps)?], options [$($opt),*]);
        }
    };
}

/// The select kernels (`$opts`: `[unchecked]` or `[]`): one module a tiling (the labels
/// and parameters of `select::TUNED_TILINGS`), the default's kernels again at the top.
macro_rules! select_family {
    ([$($opt:ident),*]) => {
        select_tiling!(t4096c4, "16 items a thread (tiles of 4096), 4 blocks an SM (at most 64 registers): the default.",
            items 16 tile 4096 mask 4095, blocks_per_sm [4], [$($opt),*]);
        select_tiling!(t4096, "16 items a thread (tiles of 4096), registers uncapped.",
            items 16 tile 4096 mask 4095, blocks_per_sm [], [$($opt),*]);
        select_tiling!(t4096c6, "16 items a thread (tiles of 4096), 6 blocks an SM (at most 40 registers).",
            items 16 tile 4096 mask 4095, blocks_per_sm [6], [$($opt),*]);
        select_tiling!(t8192c3, "32 items a thread (tiles of 8192), 3 blocks an SM (at most 80 registers).",
            items 32 tile 8192 mask 8191, blocks_per_sm [3], [$($opt),*]);
        select_tiling!(t2048c8, "8 items a thread (tiles of 2048), 8 blocks an SM (at most 32 registers).",
            items 8 tile 2048 mask 2047, blocks_per_sm [8], [$($opt),*]);
        pub use t4096c4::{flagged_bool, flagged_u8, unique};

        /// Run-length encoding's second launch: `counts[r] = heads[r + 1] - heads[r]` for
        /// each `r < counts.len()` (the select kernel left the runs' starts in `heads`, and
        /// the length after the last).
        #[gpu_kernel(block = (256, 1, 1) $(, $opt)*)]
        pub fn run_lengths(heads: &[u32], counts: &mut [u32]) {
            let r = grid_1d();
            if r < counts.len() && r + 1 < heads.len() {
                counts[r] = heads[r + 1] - heads[r];
            }
        }
    };
}

select_family!([]);

/// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
pub mod unchecked {
    use warpspeed_core::prelude::*;
    select_family!([unchecked]);
}
