//! The radix sort's kernels (`crate::sort`): a least-significant-digit radix sort of 8-bit
//! digits in the manner of Onesweep (Adinets and Merrill, "Onesweep: A Faster Least
//! Significant Digit Radix Sort for GPUs", 2022; CUB's `DeviceRadixSort`). Per key type:
//!
//! - `histogram_*`: one read of the keys counts every pass's digits at once, each block
//!   its own contiguous chunk in shared memory, then added to `counts[pass * 256 + digit]`;
//! - `digit_bases` (one kernel for every key type): block `p` scans pass `p`'s counts into
//!   each digit's first position in the sorted output, and zeroes the counts for the next
//!   sort;
//! - `onesweep_*`: one pass, one launch. Each block takes a tile of `TILE = 256 * ITEMS`
//!   keys (const parameters: 4096 or more, 2048 or more of 64-bit keys, as
//!   `sort::SortKey::TILES` lists them for the autotuner), ranks them stably by the
//!   pass's digit, stages them (and loads the values) in the tile's sorted order in
//!   shared memory, finds each digit's place in the output by a decoupled look-back over
//!   the tiles before it (one thread a digit), and stores keys and values from the stage,
//!   so that a warp's stores go to few runs of consecutive addresses. Values are `V`, an
//!   unsigned word (`sort` moves any value of 1, 2, 4 or 8 bytes as the word of its size).
//!
//! Keys are compared as their *ordered bits* (`ordered_*`): an unsigned integer whose
//! order is the key's order. Unsigned keys are their own bits; signed keys flip the sign
//! bit; floats flip the sign bit of positive numbers and every bit of negative ones, which
//! is `total_cmp`'s order (-NaN < -inf < .. < -0.0 < +0.0 < .. < +inf < +NaN). Descending
//! order xors the bits with all ones (`invert`), which keeps equal keys in input order: the
//! sort is stable both ways.
//!
//! # How to launch (what `sort::sort` does)
//!
//! - `histogram_*`: blocks of 256 threads, `chunk` a multiple of 1024 with
//!   `blocks * chunk >= keys.len()`; `counts` `passes * 256` words, zero.
//! - `digit_bases`: `passes` blocks of 256 threads; `bases` `passes * 256` words.
//! - `onesweep_*::launch::<V, ITEMS, TILE, PAIRS>`: `TILE == 256 * ITEMS` (static shared memory
//!   `TILE * size_of::<K>()` bytes and 17 KiB: at most 48 KiB, so `ITEMS` at most 24 of
//!   32-bit keys, 12 of 64-bit ones; `onesweep_wide_*`, 9 KiB: 32 and 16); exactly `keys.len().div_ceil(TILE)` blocks of 256
//!   threads, dynamic shared memory `TILE * size_of::<V>()` bytes with values (`PAIRS`),
//!   none without;
//!   `bases` the pass's 256 words; `status` at least `tiles * 256` words, zeroed when
//!   allocated; `counter` one word, zero; `epoch` as the look-back scan's
//!   (algorithms/src/template/lookback.rs): one more each launch on the same status words.
//!   Keys at most `u32::MAX` (positions are `u32`).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use warpspeed_core::prelude::*;

/// `total_cmp`'s order of an `f32`'s bits: negative numbers (sign set) reversed below the
/// positive ones.
#[gpu_device]
pub fn float_order_u32(b: u32) -> u32 {
    if b >> 31 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// `total_cmp`'s order of an `f64`'s bits.
#[gpu_device]
pub fn float_order_u64(b: u64) -> u64 {
    if b >> 63 != 0 {
        !b
    } else {
        b | 0x8000_0000_0000_0000
    }
}

/// The ordered bits of each key type: unsigned integers whose order is the keys' order
/// (`total_cmp`'s for floats).
macro_rules! ordered_bits {
    ($($name:ident($k:ty) -> $u:ty = |$x:ident| $bits:expr;)*) => {$(
        #[doc = concat!("The ordered bits of a `", stringify!($k), "` key: `a < b` as keys (`total_cmp` for floats) exactly when `", stringify!($name), "(a) < ", stringify!($name), "(b)`.")]
        #[gpu_device]
        pub fn $name($x: $k) -> $u {
            $bits
        }
    )*};
}

ordered_bits! {
    ordered_u8(u8) -> u8 = |k| k;
    ordered_u16(u16) -> u16 = |k| k;
    ordered_u32(u32) -> u32 = |k| k;
    ordered_u64(u64) -> u64 = |k| k;
    ordered_usize(usize) -> u64 = |k| k as u64;
    ordered_i8(i8) -> u8 = |k| k as u8 ^ 0x80;
    ordered_i16(i16) -> u16 = |k| k as u16 ^ 0x8000;
    ordered_i32(i32) -> u32 = |k| k as u32 ^ 0x8000_0000;
    ordered_i64(i64) -> u64 = |k| k as u64 ^ 0x8000_0000_0000_0000;
    ordered_f32(f32) -> u32 = |k| float_order_u32(k.to_bits());
    ordered_f64(f64) -> u64 = |k| float_order_u64(k.to_bits());
}

/// The lanes of the warp whose 8-bit `digit` equals this lane's (all 32 lanes take
/// part): `match_any_sync` by eight ballots, one a bit, as CUB's `MatchAny` does. With
/// it (and the histogram's plain shared atomics) the sort of 2^28 i32 went from 21.3 to
/// 10.9 ms on an H100; the two changes were not measured apart.
#[gpu_device]
pub fn match_digit(digit: u32) -> u32 {
    let mut peers = 0xffff_ffffu32;
    let mut bit = 0u32;
    while bit < 8 {
        let set = (digit >> bit) & 1 != 0;
        let lanes = ballot_sync(0xffff_ffff, set);
        if set {
            peers &= lanes;
        } else {
            peers &= !lanes;
        }
        bit += 1;
    }
    peers
}

/// The inclusive sum of `value` over the warp's lanes (all 32 take part).
#[gpu_device]
pub fn warp_inclusive_sum(value: u32) -> u32 {
    let mut sum = value;
    let mut k = 1u32;
    while k < 32 {
        let y = shfl_up_sync(0xffff_ffff, sum, k);
        if lane_id() >= k {
            sum += y;
        }
        k *= 2;
    }
    sum
}

/// Each digit's first position in the sorted output, for pass `block_idx().x`: the
/// histogram's counts scanned over the digits. Reads each count and sets it back to zero,
/// so the counts are ready for the next sort without a reset. One block a pass, 256
/// threads (one a digit).
#[gpu_kernel(block = (256, 1, 1))]
pub fn digit_bases(counts: &[AtomicU32], bases: &mut [u32]) {
    let warp_sums = SharedArray::<u32, 8>::new();
    let d = thread_idx().x as usize & 255;
    let at = block_idx().x as usize * 256 + d;
    let total = counts[at].load(Ordering::Relaxed);
    counts[at].store(0, Ordering::Relaxed);
    // The exclusive sum over the digits: warps' sums, then the warps before.
    let inclusive = warp_inclusive_sum(total);
    if lane_id() == 31 {
        warp_sums[d / 32] = inclusive;
    }
    sync_threads();
    let mut start = inclusive - total;
    let mut w = 0usize;
    while w < d / 32 {
        start += warp_sums[w & 7];
        w += 1;
    }
    bases[at] = start;
}

/// The kernels of one key type (`$opt`: `unchecked` or nothing): `$hist`, and `$sweep`
/// with `ITEMS` keys a thread and `TILE = 256 * ITEMS` a tile (const parameters, so that
/// one kernel serves every tile size the autotuner chooses among: `sort::TILES_32`, ..).
macro_rules! sort_kernels {
    ($hist:ident, $sweep:ident, $wide:ident, $k:ty, $u:ty, $ordered:ident, $passes:literal; $($opt:ident)?) => {
        /// Every pass's digit counts of one contiguous chunk of the keys (block `b`: keys
        /// `b * chunk ..`), added to `counts[pass * 256 + digit]`; the digits of
        /// `ordered ^ invert`. See `crate::kernels::sort` for the launch.
        #[gpu_kernel($($opt,)? block = (256, 1, 1))]
        pub fn $hist(keys: &[$k], counts: &[AtomicU32], chunk: usize, invert: $u, passes: u32) {
            // One counter a digit a pass (8 passes at most).
            let block_counts = SharedArray::<AtomicU32, 2048>::new();
            let tid = thread_idx().x as usize & 255;
            #[unroll]
            for p in 0..$passes {
                block_counts[(p * 256 + tid) & 2047].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let begin = block_idx().x as usize * chunk;
            // Four keys a thread a step, loaded before any is counted (more loads in
            // flight).
            let mut s = 0usize;
            while s < chunk {
                let mut bits = [invert; 4];
                let mut u = 0usize;
                while u < 4 {
                    let g = begin + s + 256 * u + tid;
                    if g < keys.len() {
                        bits[u & 3] = $ordered(keys[g]) ^ invert;
                    }
                    u += 1;
                }
                let mut u = 0usize;
                while u < 4 {
                    if begin + s + 256 * u + tid < keys.len() {
                        // Every pass of the key type (a literal, so unrolled: the kernel
                        // is bound by its instructions, and the loop's own were many).
                        #[unroll]
                        for p in 0..$passes {
                            let d = (bits[u & 3] >> (8 * p)) as usize & 255;
                            block_counts[(p * 256 + d) & 2047].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    u += 1;
                }
                s += 1024;
            }
            sync_threads();
            let mut p = 0usize;
            while p < passes.min($passes) as usize {
                let c = block_counts[(p * 256 + tid) & 2047].load(Ordering::Relaxed);
                counts[p * 256 + tid].fetch_add(c, Ordering::Relaxed);
                p += 1;
            }
        }

        // Four blocks an SM (at most 64 registers a thread): the pass is bound by
        // latency, and ptxas left alone took 76 registers, 3 blocks; the cap took a
        // sort of 2^28 i32 keys from 8.7 to 8.2 ms on an H100 (docs/algorithms.md).
        // 16 keys a thread (8 of 64-bit keys) fit; more spill (152 bytes a thread at 24
        // keys, 376 at 32, ptxas for sm_90): those tiles take `$wide`. Its lanes find
        // their peers through a table of 2048 words (8 KiB, `match_table`).
        onesweep_kernel!($sweep, $k, $u, $ordered, 4, true, 2048, 4; $($opt)?);
        // Two blocks an SM (at most 128 registers a thread): the larger tiles' keys and
        // ranks stay in registers. No table: with it, a tile of 8192 keys outgrows the
        // 48 KiB of static shared memory; its lanes take eight ballots.
        onesweep_kernel!($wide, $k, $u, $ordered, 2, false, 1, 4; $($opt)?);
    };
}

/// The pass kernel `$sweep` of one key type, asking for `$blocks` blocks an SM, finding a
/// lane's peers through a shared table of `$table_words` words when `$table` (eight
/// ballots otherwise), reading `$lookback` tiles' status words at once in the look-back
/// of keys alone (`$opt`: `unchecked` or nothing).
macro_rules! onesweep_kernel {
    ($sweep:ident, $k:ty, $u:ty, $ordered:ident, $blocks:literal, $table:literal, $table_words:literal, $lookback:literal; $($opt:ident)?) => {
        /// One radix pass: `keys_in` (and `values_in` with `PAIRS`) stably by the digit
        /// `(ordered ^ invert) >> shift & 255` into `keys_out` (`values_out`), after
        /// `bases` (the pass's 256 digit starts), in tiles of `TILE = 256 * ITEMS` keys.
        /// See `crate::kernels::sort` for the launch.
        #[gpu_kernel($($opt,)? block = (256, 1, 1), min_blocks_per_multiprocessor = $blocks)]
        pub fn $sweep<V: Int, const ITEMS: usize, const TILE: usize, const PAIRS: bool>(
            keys_in: &[$k],
            keys_out: &mut [$k],
            values_in: &[V],
            values_out: &mut [V],
            bases: &[u32],
            status: &[AtomicU64],
            #[len(1)] counter: &[AtomicU32],
            epoch: u32,
            invert: $u,
            shift: u32,
        ) {
            // Per warp, per digit: first the warp's count, then where its keys of that
            // digit start in the tile.
            let warp_digits = SharedArray::<u32, 2048>::new();
            // Per digit: its first output position minus its first tile position.
            let digit_dest = SharedArray::<u32, 256>::new();
            let warp_sums = SharedArray::<u32, 8>::new();
            let tile_id = SharedArray::<u32, 1>::new();
            // With `$table`, per warp, per digit: the lanes holding it, while a round of
            // the ranking runs (zero between rounds).
            let match_table = SharedArray::<AtomicU32, $table_words>::new();
            let stage_keys = SharedArray::<$k, TILE>::new();
            let stage_values = dynamic_shared::<V>();
            let full = 0xffff_ffffu32;
            let tid = thread_idx().x as usize & 255;
            let lane = lane_id() as usize & 31;
            let warp = tid / 32;
            let n = keys_in.len();
            // `TILE == 256 * ITEMS` (the launch's promise): said so to the bounds prover,
            // which then proves the indexes into the staged tile (`256 j + tid`, and
            // `% TILE`: a mask, TILE being a power of two or a constant NVRTC folds).
            if n == 0 || bases.len() < 256 || TILE == 0 || TILE < 256 * ITEMS {
                return;
            }
            let mut w = 0usize;
            while w < 8 {
                warp_digits[(w * 256 + tid) & 2047] = 0;
                if $table {
                    match_table[(w * 256 + tid) % $table_words].store(0, Ordering::Relaxed);
                }
                w += 1;
            }
            // The tile id, in the order blocks start; the last block resets the counter.
            if tid == 0 {
                let t = counter[0].fetch_add(1, Ordering::Relaxed);
                if t + 1 == grid_dim().x {
                    counter[0].store(0, Ordering::Relaxed);
                }
                tile_id[0] = t;
            }
            sync_threads();
            let tile = tile_id[0] as usize;
            // One status word a digit a tile; a launch with more blocks has nothing to
            // do in the extra ones.
            if tile * 256 + 256 > status.len() {
                return;
            }
            let tile_base = tile * TILE;
            let warp_base = tile_base + warp * (32 * ITEMS);

            // Load: lane `l` of warp `w` holds keys `warp_base + 32 j + l`, so the tile's
            // order is (warp, j, lane), which the ranking keeps. Past the end, digit 255
            // (ranked after every real key of the tile, so left unstored). Digits are
            // recomputed where needed rather than kept: registers bound the occupancy.
            let mut keys = [keys_in[0]; ITEMS];
            #[unroll]
            for jj in 0..ITEMS {
                let g = warp_base + 32 * jj + lane;
                if g < n {
                    keys[jj] = keys_in[g];
                }
            }

            // Rank within the warp: the lanes holding the same digit count those below
            // them; the lowest adds the group to the warp's count. `ranks[j]` holds the
            // digit in its high 16 bits, the rank in the low. The lanes of a digit are
            // found by each setting its bit in the warp's word for the digit and reading
            // the word back (`$table`), or by eight ballots. The table costs three
            // shared accesses where the ballots cost some 30 instructions; the pass is
            // bound by its instructions, and the table took a sort of 2^28 i32 keys from
            // 7.72 to 6.94 ms on an H200 (docs/algorithms.md, "Finding a digit's lanes").
            let lower = (1u32 << lane_id()) - 1;
            let mut ranks = [0u32; ITEMS];
            #[unroll]
            for jj in 0..ITEMS {
                let mut digit = 255u32;
                if warp_base + 32 * jj + lane < n {
                    digit = (($ordered(keys[jj]) ^ invert) >> shift) as u32 & 255;
                }
                let at = (warp * 256 + digit as usize) & 2047;
                // The lanes holding lane 0's digit find each other by one ballot, without
                // the table: many lanes of one digit (all 32 for sorted keys' high digits
                // or equal keys, most for a float's sign and exponent) would set bits of
                // one word by as many conflicting atomics.
                let first = if $table {
                    ballot_sync(full, digit == shfl_sync(full, digit, 0))
                } else {
                    0
                };
                let lone = $table && (first >> lane_id()) & 1 != 0;
                if $table && !lone {
                    match_table[at % $table_words].fetch_or(1u32 << lane_id(), Ordering::Relaxed);
                }
                if $table {
                    sync_warp(full);
                }
                let peers = if lone {
                    first
                } else if $table {
                    match_table[at % $table_words].load(Ordering::Relaxed)
                } else {
                    match_digit(digit)
                };
                let before = warp_digits[at];
                sync_warp(full);
                if (peers & lower) == 0 {
                    warp_digits[at] = before + peers.count_ones();
                    if $table && !lone {
                        // Every lane has read the word (the barrier above).
                        match_table[at % $table_words].store(0, Ordering::Relaxed);
                    }
                }
                sync_warp(full);
                ranks[jj] = digit << 16 | (before + (peers & lower).count_ones());
            }
            sync_threads();

            // Thread `d`: digit `d`'s count in the tile, each warp's start within it.
            let mut count = 0u32;
            let mut w = 0usize;
            while w < 8 {
                let c = warp_digits[(w * 256 + tid) & 2047];
                warp_digits[(w * 256 + tid) & 2047] = count;
                count += c;
                w += 1;
            }
            // Publish the count at once, so later tiles wait as little as possible.
            let flag_aggregate = 2 * epoch as u64;
            let flag_prefix = flag_aggregate + 1;
            let own = tile * 256 + tid;
            if tile == 0 {
                status[own].store(flag_prefix << 32 | count as u64, Ordering::Relaxed);
            } else {
                status[own].store(flag_aggregate << 32 | count as u64, Ordering::Relaxed);
            }
            // Each digit's first position in the tile: the exclusive sum over digits.
            let inclusive = warp_inclusive_sum(count);
            if lane_id() == 31 {
                warp_sums[warp] = inclusive;
            }
            sync_threads();
            let mut start = inclusive - count;
            let mut w = 0usize;
            while w < warp {
                start += warp_sums[w & 7];
                w += 1;
            }
            let mut w = 0usize;
            while w < 8 {
                warp_digits[(w * 256 + tid) & 2047] += start;
                w += 1;
            }
            sync_threads();

            // Stage the keys in the tile's sorted order before the look-back (their places
            // in the tile are known; only the tile's place in the output waits for the
            // tiles before), and load the values: their loads are then in flight while
            // this block waits for the tiles before (a sort of 2^28 i32 keys with i64
            // indices went from 14.2 to 12.2 ms on an H200; keys alone looking back first
            // and staging after took 9.1 ms against 7.2, f32 keys 10.1 against 8.6).
            let mut values = [V::zero(); ITEMS];
            #[unroll]
            for jj in 0..ITEMS {
                let digit = (ranks[jj] >> 16) as usize;
                let at = warp_digits[(warp * 256 + digit) & 2047] + (ranks[jj] & 0xffff);
                ranks[jj] = at;
                stage_keys[at as usize % TILE] = keys[jj];
                let g = warp_base + 32 * jj + lane;
                if PAIRS && g < n && g < values_in.len() {
                    values[jj] = values_in[g];
                }
            }

            // Look back: the digit's keys in the tiles before, summed from the nearest
            // tile that has published its inclusive count (tile 0 always does). The words
            // of `$lookback` tiles are read at once, then walked nearest first: a walk of
            // one tile a read waits a round trip to L2 a tile, and a tile often walks back
            // over many tiles that have published only their counts (four at once took a
            // pass of 2^28 i32 keys from 1.62 to 1.52 ms on an H200, docs/algorithms.md,
            // "Looking back four tiles at a time"). With values, one tile a read: their
            // registers, live across the look-back, leave no room for more words (a sort
            // of 2^28 i32 keys with i64 values took 12.58 ms with four, 12.21 with one).
            let span = if PAIRS { 1 } else { $lookback };
            let mut before = 0u32;
            if tile != 0 {
                // The tiles before `back` are still to be summed.
                let mut back = tile;
                loop {
                    let mut words = [0u64; $lookback];
                    #[unroll]
                    for k in 0..$lookback {
                        // Always inside (`back <= tile`, and the tile's own words are, by
                        // the test above), said so to the bounds prover: its check here,
                        // with the call that reports a failure, cost 4% of a sort on an
                        // H200.
                        if k < back && k < span {
                            let at = (back - 1 - k) * 256 + tid;
                            if at < status.len() {
                                words[k] = status[at].load(Ordering::Relaxed);
                            }
                        }
                    }
                    // Nearest first: counts are summed until a prefix (done) or a tile
                    // that has published nothing yet (read again from there).
                    let mut found = false;
                    let mut open = true;
                    let mut summed = 0usize;
                    #[unroll]
                    for k in 0..$lookback {
                        let flag = words[k] >> 32;
                        if open && k < back && k < span && (flag == flag_aggregate || flag == flag_prefix) {
                            before += words[k] as u32;
                            summed += 1;
                            if flag == flag_prefix {
                                found = true;
                                open = false;
                            }
                        } else {
                            open = false;
                        }
                    }
                    if found {
                        break;
                    }
                    back -= summed;
                }
                status[own].store(flag_prefix << 32 | (before + count) as u64, Ordering::Relaxed);
            }
            digit_dest[tid] = bases[tid] + before - start;
            if PAIRS {
                #[unroll]
                for jj in 0..ITEMS {
                    let at = ranks[jj] as usize % TILE;
                    if at < stage_values.len() {
                        stage_values[at] = values[jj];
                    }
                }
            }
            sync_threads();

            // Store from the stage: thread `t` the tile positions `t + 256 i`, mostly runs
            // of one digit. The key staged at `i` says where it (and its value) goes.
            let valid = n - tile_base;
            #[unroll]
            for jj in 0..ITEMS {
                let i = 256 * jj + tid;
                if i < valid {
                    let k = stage_keys[i % TILE];
                    let d = (($ordered(k) ^ invert) >> shift) as usize & 255;
                    let dest = (digit_dest[d] + i as u32) as usize;
                    // Always inside (the digit's place is within the output by the
                    // counts); said so to the bounds prover, which cannot know it.
                    if dest < keys_out.len() {
                        keys_out[dest] = k;
                    }
                    if PAIRS && dest < values_out.len() && i < stage_values.len() {
                        values_out[dest] = stage_values[i];
                    }
                }
            }
        }
    };
}

/// Every key type's kernels (`$opt`: `unchecked` or nothing).
macro_rules! sort_family {
    ($($opt:ident)?) => {
        sort_kernels!(histogram_u8, onesweep_u8, onesweep_wide_u8, u8, u8, ordered_u8, 1; $($opt)?);
        sort_kernels!(histogram_u16, onesweep_u16, onesweep_wide_u16, u16, u16, ordered_u16, 2; $($opt)?);
        sort_kernels!(histogram_u32, onesweep_u32, onesweep_wide_u32, u32, u32, ordered_u32, 4; $($opt)?);
        sort_kernels!(histogram_u64, onesweep_u64, onesweep_wide_u64, u64, u64, ordered_u64, 8; $($opt)?);
        sort_kernels!(histogram_usize, onesweep_usize, onesweep_wide_usize, usize, u64, ordered_usize, 8; $($opt)?);
        sort_kernels!(histogram_i8, onesweep_i8, onesweep_wide_i8, i8, u8, ordered_i8, 1; $($opt)?);
        sort_kernels!(histogram_i16, onesweep_i16, onesweep_wide_i16, i16, u16, ordered_i16, 2; $($opt)?);
        sort_kernels!(histogram_i32, onesweep_i32, onesweep_wide_i32, i32, u32, ordered_i32, 4; $($opt)?);
        sort_kernels!(histogram_i64, onesweep_i64, onesweep_wide_i64, i64, u64, ordered_i64, 8; $($opt)?);
        sort_kernels!(histogram_f32, onesweep_f32, onesweep_wide_f32, f32, u32, ordered_f32, 4; $($opt)?);
        sort_kernels!(histogram_f64, onesweep_f64, onesweep_wide_f64, f64, u64, ordered_f64, 8; $($opt)?);
    };
}

sort_family!();

/// `out[i] = i`: the indices `top_k` sorts with its keys, and the positions a sort of
/// values the passes do not move sorts with its keys.
#[gpu_kernel]
pub fn iota(out: &mut [u32]) {
    for i in (grid_1d()..out.len()).step_by(grid_stride_1d()) {
        out[i] = i as u32;
    }
}

/// `out[i] = positions[i]`, widened: the `i64`/`u64` indices of `sort::sort_with_indices`,
/// whose positions ride the passes as `u32`s.
#[gpu_kernel]
pub fn widen_positions(positions: &[u32], out: &mut [u64]) {
    for i in (grid_1d()..out.len()).step_by(grid_stride_1d()) {
        if i < positions.len() {
            out[i] = positions[i] as u64;
        }
    }
}

/// The gathers (`$opt`: `unchecked` or nothing): `gather` of a kernel scalar, and
/// `gather_words` of any value seen as words.
macro_rules! gather_kernels {
    ($($opt:ident)?) => {
        /// `out[i] = src[indices[i]]` (`sort::gather` of a kernel scalar): grid-stride,
        /// any grid. The read of `src` keeps its bounds check: the index comes from
        /// memory, and one past `src` is the caller's error, reported as any kernel's.
        #[gpu_kernel($($opt)?)]
        pub fn gather<T: Scalar>(src: &[T], indices: &[u32], out: &mut [T]) {
            for i in (grid_1d()..out.len()).step_by(grid_stride_1d()) {
                if i < indices.len() {
                    out[i] = src[indices[i] as usize];
                }
            }
        }

        /// Values of `words` words each, gathered: value `i` of `out` is value
        /// `positions[i]` of `src` (word `j` of `out` is word `j % words` of that value).
        /// What moves a `#[gpu_struct]`, which no library kernel can be generic over, by
        /// its memory (`sort::sort_pairs` after sorting the positions, `sort::gather`).
        /// One thread a word, so that a warp reads and writes runs of consecutive words.
        /// Grid-stride, any grid; `words` at least 1. The read of `src` keeps its check,
        /// as `gather`'s.
        #[gpu_kernel($($opt)?)]
        pub fn gather_words<W: Int>(src: &[W], positions: &[u32], out: &mut [W], words: usize) {
            for j in (grid_1d()..out.len()).step_by(grid_stride_1d()) {
                let i = j / words;
                if i < positions.len() {
                    out[j] = src[positions[i] as usize * words + (j - i * words)];
                }
            }
        }
    };
}

gather_kernels!();

/// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
pub mod unchecked {
    use super::*;
    sort_family!(unchecked);
    gather_kernels!(unchecked);
}
