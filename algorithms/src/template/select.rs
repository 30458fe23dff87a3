//! Stream compaction in one pass (`crate::select`): the select kernel keeps the elements
//! a `keep` expression picks, in order, and the count kernel counts them (a partition's
//! first launch). One template serves the library's kernels (flags, unique, run-length
//! heads: `crate::kernels::select`) and a user's predicate ([`predicate!`](crate::predicate!)).
//!
//! # How to launch the select kernel (what `select::*` does)
//!
//! - 256 threads a block; a tile is `256 * items` elements (`items` a thread, a literal of
//!   the instance: [`Tiling`](crate::select::Tiling) names the library's); grid: exactly
//!   `tiles = len.div_ceil(tile)` blocks; no dynamic shared memory.
//! - `x` not empty, at most `u32::MAX` elements (counts are 32-bit, beside a flag in one
//!   64-bit status word).
//! - `out`: where the kept elements go, `out[0..count]`; with `partition`, the rejected
//!   ones go to `out[split..]` in input order (`split` the count, from the count kernel).
//!   A write past `out`'s end is dropped (the host gives it room).
//! - `heads`: empty, or where each kept element's index goes (`heads[k]` for the `k`-th
//!   kept), and `n` after the last (`heads[count]`): run-length encoding's run starts.
//! - `total`: one word, the count, written by the block of the last tile.
//! - `status`, `counter`, `epoch`: the look-back's, with the protocol of
//!   algorithms/src/template/lookback.rs (one status word a tile, at least `tiles` of
//!   them, zeroed once; the counter zero before a launch and left zero after it; `epoch`
//!   one more each launch).
//!
//! # Per block
//!
//! 1. Thread 0 takes the tile id from the counter (tiles in the order blocks start).
//! 2. Each warp reads its `32 * items` elements in `items` coalesced rounds (lane `l` of
//!    round `j` reads `32 j + l`) into registers, then evaluates `keep` on each, then
//!    `ballot_sync` gives each round's mask: the warp's count is the sum of the masks'
//!    `count_ones`, an element's place among the warp's kept is the count of the rounds
//!    before it plus the `count_ones` of its round's mask below its lane.
//! 3. Each warp writes the indexes of its kept elements, in order, into its part of a
//!    shared stage of `u16`s (with `partition`, the rejected ones' after them), and reads
//!    the elements of its stage's slots again from `x`, lane `l` slots `32 j + l`: they
//!    come from the cache that step 2 filled (`flagged`, whose `keep` does not read `x`,
//!    reads `x` here only).
//! 4. The warps' counts in shared memory give each warp its offset in the tile and the
//!    tile's count; warp 0 publishes it and looks back (`count_lookback`, the scan's
//!    look-back specialised to 32-bit counts) for the tile's offset in the output, while
//!    step 3's reads are in flight.
//! 5. Slot `s` of a warp's stage goes to `offset + warp's offset + s`: consecutive lanes
//!    write consecutive addresses, every store of a warp but its first and last whole.
//!
//! The input is read once from memory and the kept elements written once: the one pass
//! CUB's `DeviceSelect` makes.
//!
//! Why a stage of indexes: before it (2026-11-28), each round's kept elements went from
//! the registers that read them straight to `out`, so the rounds and their masks lived
//! across the look-back: 64 to 87 registers a thread for 16 items, 4 blocks an SM at
//! most, and warps waiting at the barrier half the time (ncu). With only the stage
//! living across it, and the reads again issued before it, the same tiles on an H100
//! went `select_if` (x > 0.5, 2^28 f32) 1.470 -> 0.907 ms, `flagged` 1.221 -> 1.016,
//! `unique` (2^26 i32) 0.286 -> 0.226, each at its tuned tiling (docs/algorithms.md).
//! The stage holds indexes rather than elements so that its size (2 bytes an element of
//! the tile) does not depend on `T`, which may be a user's struct of any size.

//! # Instances
//!
//! Each instance names its items a thread and, optionally, the blocks an SM it asks NVRTC
//! for (`blocks_per_sm [4]`: `__launch_bounds__(256, 4)`, at most 64 registers a thread;
//! `blocks_per_sm []`: no cap). The kernel is latency bound: more items a thread put more
//! loads in flight and spread the per-tile costs (the counter, the look-back) over more
//! elements, more blocks an SM hide more of those costs; which wins depends on the GPU,
//! the element type and `keep`, so the library times them (`select::TUNED_TILINGS`). The
//! result is the same whatever the tile.

/// `__select_kernel!(name $(<T: Bound>)?, T, [x, i, v] keep K, params [p: P, ..],
/// items N tile S mask M, blocks_per_sm [B?], options [..])`: the select kernel of `T`,
/// keeping `x[i]` where `K` is true, `N` elements a thread (a literal: 8, 16, 32), tiles of
/// `S = 256 N` (`M = S - 1`, literals for the stage's size and indexes),
/// with `__launch_bounds__(256, B)` when `B` is given. `K` is evaluated only for `i <
/// x.len()`, with `v` bound to `x[i]` (loaded already), and may read `x`, `i` and the
/// parameters `p`.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_kernel {
    (
        $name:ident $(<$tp:ident: $bound:ident>)?, $t:ty, [$x:ident, $i:ident, $v:ident]
        keep $keep:expr, params [$($p:ident: $pt:ty),*], items $items:tt tile $tile:literal mask $tmask:literal,
        blocks_per_sm [$($bps:tt)?], options [$($opt:ident),*]
    ) => {
        /// Keeps the elements `keep` picks, in one pass with a decoupled look-back over
        /// the tiles' counts: see `warpspeed::algorithms::select` and the template's
        /// documentation (algorithms/src/template/select.rs) for the launch.
        // The blocks an SM, when given, cap the registers: at 87 registers and 2 blocks
        // the 16-item kernel was bound by latency; with 4 (64 registers) `flagged` of 2^28
        // f32 went 1.75 -> 1.22 ms on an H100 and `unique` 0.28 -> 0.33 ms
        // (docs/algorithms.md), so each instance says its own.
        #[gpu_kernel(block = (256, 1, 1) $(, min_blocks_per_multiprocessor = $bps)? $(, $opt)*)]
        pub fn $name $(<$tp: $bound>)? (
            $x: &[$t],
            $($p: $pt,)*
            out: &mut [$t],
            heads: &mut [u32],
            total: &mut [u32],
            status: &[AtomicU64],
            #[len(1)] counter: &[AtomicU32],
            epoch: u32,
            split: usize,
            partition: bool,
        ) {
            let __warp_counts = SharedArray::<u32, 8>::new();
            let __index = SharedArray::<u16, $tile>::new();
            let __tile_id = SharedArray::<u32, 1>::new();
            let __tile_prefix = SharedArray::<u32, 1>::new();
            let __full = 0xffff_ffffu32;
            let __tid = thread_idx().x;
            // Shared indexes bounded by `&` (256 threads: 8 warps), so the bounds prover
            // removes their checks.
            let __lane = lane_id() as usize & 31;
            let __warp = (__tid / 32) as usize & 7;
            // This lane's bit and the bits below it, in a round's mask.
            let __bit = 1u32 << lane_id();
            let __below = __bit - 1;
            let __n = $x.len();
            if __n == 0 {
                return;
            }

            // 1. The tile id, in the order blocks start; the last block resets the counter.
            if __tid == 0 {
                let __t = counter[0].fetch_add(1, Ordering::Relaxed);
                if __t + 1 == grid_dim().x {
                    counter[0].store(0, Ordering::Relaxed);
                }
                __tile_id[0] = __t;
            }
            sync_threads();
            let __tile = __tile_id[0];
            // One status word a tile: a block past them has nothing to do.
            if __tile as usize >= status.len() {
                return;
            }

            // 2. `items` coalesced rounds a warp into registers, then `keep` of each, then
            // the rounds' masks: three loops, so that the loads (and the reads `keep`
            // makes) are issued back to back before the first ballot waits for them. The
            // loops are `while` loops over a literal count so that NVRTC unrolls them and
            // the arrays stay in registers (as the look-back scan's); `% items` bounds the
            // local arrays' indexes for the prover.
            let __warp_base = __tile as usize * (256 * $items) + __warp * (32 * $items);
            let __first = $x[0];
            let mut __items = [__first; $items];
            let mut __j = 0usize;
            while __j < $items {
                let __jj = __j % $items;
                let __g = __warp_base + 32 * __jj + __lane;
                if __g < $x.len() {
                    __items[__jj] = $x[__g];
                }
                __j += 1;
            }
            let mut __keeps = [false; $items];
            let mut __j = 0usize;
            while __j < $items {
                let __jj = __j % $items;
                let $i = __warp_base + 32 * __jj + __lane;
                if $i < $x.len() {
                    let $v = __items[__jj];
                    __keeps[__jj] = $keep;
                }
                __j += 1;
            }
            let mut __masks = [0u32; $items];
            let mut __count = 0u32;
            let mut __j = 0usize;
            while __j < $items {
                let __jj = __j % $items;
                let __m = ballot_sync(__full, __keeps[__jj]);
                __masks[__jj] = __m;
                __count += __m.count_ones();
                __j += 1;
            }
            // 3. The warp's stage: the kept elements' indexes in the warp's part of the
            // tile (`e`, element `warp_base + e`) in order, then with `partition` the
            // rejected ones'; the rounds and their masks die here, before the look-back.
            let __ws = __warp * (32 * $items);
            let mut __valid = 0usize;
            if __warp_base < __n {
                __valid = (__n - __warp_base).min(32 * $items);
            }
            let mut __before = 0u32;
            let mut __j = 0usize;
            while __j < $items {
                let __jj = __j % $items;
                let __m = __masks[__jj];
                let __e = 32 * __jj + __lane;
                let __p = __before + (__m & __below).count_ones();
                if __e < __valid {
                    if __m & __bit != 0 {
                        __index[(__ws + __p as usize) & $tmask] = __e as u16;
                    } else if partition {
                        __index[(__ws + __count as usize + __e - __p as usize) & $tmask] = __e as u16;
                    }
                }
                __before += __m.count_ones();
                __j += 1;
            }
            if __lane == 0 {
                __warp_counts[__warp] = __count;
            }
            sync_threads();
            let mut __warp_prefix = 0u32;
            let mut __aggregate = 0u32;
            let mut __w = 0usize;
            while __w < 8 {
                let __c = __warp_counts[__w & 7];
                if __w < __warp {
                    __warp_prefix += __c;
                }
                __aggregate += __c;
                __w += 1;
            }

            // The elements of the warp's slots, read again from `x` (where step 2 read
            // them, so mostly from the cache) before the look-back, so that the reads are
            // in flight while it waits: `flagged`, whose `keep` does not read `x`, reads
            // `x` here only. Slot `s` is `vals[s / 32]` in lane `s % 32`.
            let mut __limit = __count as usize;
            if partition {
                __limit = __valid;
            }
            let mut __vals = [__first; $items];
            let mut __j = 0usize;
            while __j < $items {
                let __jj = __j % $items;
                let __s = 32 * __jj + __lane;
                if __s < __limit {
                    let __g = __warp_base + __index[(__ws + __s) & $tmask] as usize;
                    if __g < $x.len() {
                        __vals[__jj] = $x[__g];
                    }
                }
                __j += 1;
            }

            // 4. The tile's offset: the look-back over the tiles' counts.
            if __warp == 0 {
                let __exclusive =
                    $crate::kernels::select::count_lookback(status, __tile, __aggregate, epoch);
                if __lane == 0 {
                    __tile_prefix[0] = __exclusive;
                }
            }
            sync_threads();
            let __offset = __tile_prefix[0];
            // The block of the last tile knows the count.
            if __tid == 0 && (__tile as usize + 1) * (256 * $items) >= __n {
                let __all = __offset + __aggregate;
                if total.len() > 0 {
                    total[0] = __all;
                }
                if (__all as usize) < heads.len() {
                    heads[__all as usize] = __n as u32;
                }
            }

            // 5. The kept elements to their places; with `partition`, the rejected after
            // `split`, in order (what comes before an element and is not kept is its index
            // less the kept before it). Slot `s` of the warp's stage goes to
            // `out[kept + s]`, so a warp's stores are consecutive.
            let __kept = (__offset + __warp_prefix) as usize;
            let mut __j = 0usize;
            while __j < $items {
                let __jj = __j % $items;
                let __s = 32 * __jj + __lane;
                if __s < __limit {
                    let __v = __vals[__jj];
                    if __s < __count as usize {
                        let __d = __kept + __s;
                        if __d < out.len() {
                            out[__d] = __v;
                        }
                        if __d < heads.len() {
                            heads[__d] = (__warp_base + __index[(__ws + __s) & $tmask] as usize) as u32;
                        }
                    } else {
                        let __r = split + (__warp_base - __kept) + (__s - __count as usize);
                        if __r < out.len() {
                            out[__r] = __v;
                        }
                    }
                }
                __j += 1;
            }
        }
    };
}

/// `__select_count_kernel!(name $(<T: Bound>)?, T, [x, i] keep K, params [p: P, ..],
/// options [..])`: adds the number of `x[i]` where `K` is true to `total[0]` (zeroed
/// before the launch): a partition's first launch. 256 threads a block, any grid; each
/// warp counts 512 elements a step with ballots and adds its count once.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_count_kernel {
    (
        $name:ident $(<$tp:ident: $bound:ident>)?, $t:ty, [$x:ident, $i:ident] keep $keep:expr,
        params [$($p:ident: $pt:ty),*], options [$($opt:ident),*]
    ) => {
        /// Adds how many elements `keep` picks to `total[0]` (see
        /// algorithms/src/template/select.rs).
        #[gpu_kernel(block = (256, 1, 1) $(, $opt)*)]
        pub fn $name $(<$tp: $bound>)? (
            $x: &[$t],
            $($p: $pt,)*
            #[len(1)] total: &[AtomicU32],
        ) {
            let __full = 0xffff_ffffu32;
            let __lane = lane_id() as usize & 31;
            let __warp = (thread_idx().x / 32) as usize;
            let __warps = (grid_dim().x * block_dim().x / 32) as usize;
            let mut __count = 0u32;
            let mut __base = (block_idx().x as usize * (block_dim().x / 32) as usize + __warp) * 512;
            while __base < $x.len() {
                let mut __j = 0usize;
                while __j < 16 {
                    let $i = __base + 32 * __j + __lane;
                    let mut __k = false;
                    if $i < $x.len() {
                        __k = $keep;
                    }
                    __count += ballot_sync(__full, __k).count_ones();
                    __j += 1;
                }
                __base += __warps * 512;
            }
            if __lane == 0 && __count > 0 {
                total[0].fetch_add(__count, Ordering::Relaxed);
            }
        }
    };
}
