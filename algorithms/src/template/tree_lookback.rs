//! The single-pass scan with a *fixed-order* look-back: one launch reads every element once
//! and writes it once, as the decoupled look-back of algorithms/src/template/lookback.rs
//! does, but every output is combined in an order that depends on the length alone, so a
//! float sum is the same run to run and on both backends, and a 64-bit value (`i64`,
//! `f64`) travels as well as a 32-bit one.
//!
//! # Why another look-back
//!
//! The decoupled look-back (Merrill and Garland, 2016; CUB's `DeviceScan`) adds up the
//! predecessors' aggregates until it meets one that has published its inclusive prefix:
//! *which* one it meets depends on timing, so a float sum rounds differently from run to
//! run. That is why float scans took three launches (algorithms/src/template/scan.rs),
//! reading the input twice: 1.125x torch.cumsum's time for 2^28 f32, and 1.19x for i64,
//! whose 64-bit values do not fit beside a flag in one 64-bit word either.
//!
//! Here a tile's exclusive prefix is a fixed tree over the tiles' aggregates. Write the
//! tile's index in base 32, digits `d_(L-1) .. d_1 d_0`. Level 0's values are the tiles'
//! aggregates `A`; a value of level `k + 1` is the combination of 32 consecutive values of
//! level `k` (a *group*), in order. The prefix of tile `t` is
//!
//! `fold_(L-1) ∘ .. ∘ fold_1 ∘ fold_0`,
//!
//! where `fold_k` combines the values of level `k` before `t`'s own ancestor in its group:
//! `d_k` of them, by a fixed tree (`shfl_down_sync` by 1, 2, 4, 8, 16, which keeps their
//! order, so any associative operator works). A level's value is published by the group's
//! last tile (its digits up to that level all 31), which has the fold before its own
//! ancestor anyway: `S_(k+1) = fold_k ∘ S_k(own)`, where the tile's own `S_k` is what it
//! published one level below. Warp `k` reads level `k`, so the levels are read at the same
//! time (2^28 elements in tiles of 8192 make 32768 tiles, three levels), and warp `k`
//! publishes `S_(k+1)` as soon as it has `fold_k`: a group's value then waits for lower
//! levels only. Nothing waits for a predecessor's *prefix*, only for aggregates and group
//! values.
//!
//! What was measured on an H100 (2^28 elements, torch.cumsum 1.016 ms for f32, 1.852 ms
//! for i64), and why the template is as it is:
//! - publishing a group's value after *every* level's fold made a chain from group to
//!   group: f32 1.796 ms, i64 4.03 ms (55 ns a tile);
//! - publishing right after the level's fold, each value's bits then its flag in a second
//!   word (`st.release` / `ld.acquire`, two round trips a read): f32 1.076, i64 2.154;
//! - warp 0 alone reading every level at once, then folding level by level: slower, f32
//!   1.100, i64 2.576;
//! - the epoch in every word (below): f32 0.894 ms (0.88 of torch; the decoupled
//!   look-back's u32 scan 0.916), i64 1.939 (1.047 of torch).
//!
//! # How to launch (what `scan::inclusive` does for the operators that have it)
//!
//! - `block`: 32 to 256 threads, a multiple of 32 (an instance with `bounds [block = (256,
//!   1, 1), min_blocks_per_multiprocessor = 4,]`: 256 exactly). A tile is `ITEMS * block` elements
//!   (`ITEMS` a thread, the instance's: 32 for 4-byte values, 16 for 8-byte ones). Grid:
//!   exactly `tiles = len.div_ceil(ITEMS * block)` blocks. Static shared memory, no
//!   dynamic.
//! - `x`, `out`: the same length, not 0.
//! - `values: &[AtomicU64]`: the levels' values, `WORDS` words each (the instance's: 1 for
//!   values of 32 bits or fewer, 2 for 64-bit ones), level 0 (one value a tile) first, then
//!   level 1 (`tiles.div_ceil(32)`), ..: at most `WORDS * (2 * tiles + 8)` words, and one
//!   more word past the last value. Zeroed once when allocated, never between launches
//!   (see `epoch`).
//! - `counter: &[AtomicU32]`, `epoch: u32`, `inclusive: bool`: as the decoupled
//!   look-back's (algorithms/src/template/lookback.rs): the tile counter, zero before a
//!   launch and left zero after it; the launch's epoch, one more for each launch on the
//!   same words; inclusive or exclusive.
//!
//! # Publishing
//!
//! Every word of a value carries the launch's epoch in its high 32 bits and 32 of the
//! value's bits in its low ones (the low half first); a reader loads a value's words
//! (`Relaxed`, `ld.volatile`, from the coherent L2) until every one carries the epoch.
//! Each word is written once a launch and read whole, so a value whose words all carry
//! the epoch is the one published, with no fence and one round trip, where a flag beside
//! the value would need a release and an acquire and two. Only atomics pass data between
//! blocks, so the simulator's race checks, which do not model fences between blocks,
//! accept the kernel. Tiles are taken from the counter in the
//! order blocks start, and a tile waits only for tiles before it, whose blocks have
//! started: no deadlock on a GPU, which may start blocks in any order, or on the
//! simulator.

/// `__tree_lookback_scan_kernel!(name $(<T: Bound>)?, T, [x] |a, b| C, init I,
/// to_bits |v| B, from_bits |w| F, items N mask M, stage S warp_stride W, words K,
/// bounds [..], options [..])`:
/// the fixed-order look-back scan of `T` with the associative combining step `C`; `I` is
/// the identity or, for an idempotent operator, `x[0]`; `B` gives a value's bits as a
/// `u64`, `F` the value of a `u64`'s. `N` items a thread (a power of two up to 32, `M =
/// N - 1`), `W = 33 * N` (a warp's stage: element `s` at `s + s / 32`), `S = 8 * W`; `K`
/// words a value (1 where `B` fits 32 bits, else 2). `bounds`: empty, or `#[gpu_kernel]`
/// options that come before `options`' (each with its comma), as `block = (256, 1, 1),
/// min_blocks_per_multiprocessor = 4,` (`crate::kernels::scan::capped`).
#[doc(hidden)]
#[macro_export]
macro_rules! __tree_lookback_scan_kernel {
    (
        $name:ident $(<$tp:ident: $bound:ident>)?, $t:ty, [$x:ident] |$a:ident, $b:ident| $combine:expr,
        init $init:expr, to_bits |$v:ident| $to_bits:expr, from_bits |$w:ident| $from_bits:expr,
        items $n:literal mask $m:literal, stage $stage:literal warp_stride $ws:literal,
        words $words:literal, bounds [$($bnd:tt)*], options [$($opt:ident),*]
    ) => {
        /// The single-pass scan with a fixed-order look-back: see
        /// `warpspeed::algorithms::scan` and the template's documentation
        /// (algorithms/src/template/tree_lookback.rs) for the launch.
        #[gpu_kernel($($bnd)* $($opt),*)]
        pub fn $name $(<$tp: $bound>)? (
            $x: &[$t],
            out: &mut [$t],
            values: &[AtomicU64],
            #[len(1)] counter: &[AtomicU32],
            epoch: u32,
            inclusive: bool,
        ) {
            let stage = SharedArray::<$t, $stage>::new();
            let warp_totals = SharedArray::<$t, 8>::new();
                        // Each level's fold (at most 7 levels: 2^32 tiles).
            let folds = SharedArray::<$t, 8>::new();
            let tile_id = SharedArray::<u32, 1>::new();
            let tile_prefix = SharedArray::<$t, 1>::new();
            let full = 0xffff_ffffu32;
            let tid = thread_idx().x;
            // Shared-memory indexes are sums of values bounded by `&` (at most 8 warps),
            // so the bounds prover removes their checks.
            let lane = lane_id() as usize & 31;
            let warp = (tid / 32) as usize & 7;
            let warps = block_dim().x / 32;
            if $x.len() == 0 {
                return;
            }
            let __init: $t = $init;

            // 1. The tile id, in the order blocks start; the last block resets the counter.
            if tid == 0 {
                let t = counter[0].fetch_add(1, Ordering::Relaxed);
                if t + 1 == grid_dim().x {
                    counter[0].store(0, Ordering::Relaxed);
                }
                tile_id[0] = t;
            }
            sync_threads();
            let tile = tile_id[0];
            let tiles = grid_dim().x;

            // 2. Coalesced loads (the init past the end), through shared memory into `N`
            // consecutive elements a lane, scanned in registers (`while` loops, which
            // NVRTC unrolls, so the local array stays in registers).
            let warp_base = tile as usize * (block_dim().x * $n) as usize + warp * (32 * $n);
            let mut j = 0usize;
            while j < $n {
                let jj = j & $m;
                let g = warp_base + lane + 32 * jj;
                let mut v = __init;
                if g < $x.len() {
                    v = $x[g];
                }
                // Element lane + 32 jj of the warp, at lane + 33 jj.
                stage[warp * $ws + lane + 33 * jj] = v;
                j += 1;
            }
            sync_warp(0xffff_ffff);
            // This lane's first element, N lane, sits at N lane + N lane / 32.
            let mine = warp * $ws + lane * $n + (lane * $n) / 32;
            let mut items = [__init; $n];
            let mut acc = __init;
            let mut j = 0usize;
            while j < $n {
                let jj = j & $m;
                let ($a, $b) = (acc, stage[mine + jj]);
                acc = $combine;
                items[jj] = acc;
                j += 1;
            }
            let mut lanes_incl = acc;
            let mut k = 0u32;
            while k < 5 {
                let d = 1u32 << k;
                let y = shfl_up_sync(full, lanes_incl, d);
                if lane_id() >= d {
                    let ($a, $b) = (y, lanes_incl);
                    lanes_incl = $combine;
                }
                k += 1;
            }
            let mut lane_excl = shfl_up_sync(full, lanes_incl, 1);
            if lane == 0 {
                lane_excl = __init;
            }
            if lane == 31 {
                warp_totals[warp] = lanes_incl;
            }
            sync_threads();
            let mut warp_prefix = __init;
            let mut aggregate = __init;
            for w in 0..warps {
                let s = warp_totals[w as usize & 7];
                if (w as usize) < warp {
                    let ($a, $b) = (warp_prefix, s);
                    warp_prefix = $combine;
                }
                let ($a, $b) = (aggregate, s);
                aggregate = $combine;
            }
            // Levels: the least `L` with `32^L >= tiles` (at least 1).
            let mut levels = 1u32;
            while levels < 7 && ((tiles - 1) >> (5 * levels)) > 0 {
                levels += 1;
            }

            // 3. Publish the aggregate (level 0); then warp `k` folds level `k`'s values
            // before this tile's ancestor, all levels at once.
            let stamp = (epoch as u64) << 32;
            if tid == 0 {
                let $v = aggregate;
                let bits: u64 = $to_bits;
                let i = tile as usize * $words;
                if i + 1 < values.len() {
                    values[i].store(stamp | (bits & 0xffff_ffff), Ordering::Relaxed);
                    if $words == 2 {
                        values[i + 1].store(stamp | (bits >> 32), Ordering::Relaxed);
                    }
                }
            }
            let mut level = warp as u32;
            while level < levels {
                // Level `level` starts after the slots of the levels below it.
                let mut base = 0usize;
                let mut m = 0u32;
                while m < level {
                    base += (((tiles - 1) >> (5 * m)) + 1) as usize;
                    m += 1;
                }
                let index = tile >> (5 * level);
                let digit = index & 31;
                let mut f = __init;
                if (lane as u32) < digit {
                    let i = (base + (index - digit) as usize + lane) * $words;
                    if i + 1 < values.len() {
                        // Each word carries the epoch: a value is whole once every word
                        // of it does.
                        let mut lo = values[i].load(Ordering::Relaxed);
                        let mut hi = stamp;
                        if $words == 2 {
                            hi = values[i + 1].load(Ordering::Relaxed);
                        }
                        while lo >> 32 != epoch as u64 || hi >> 32 != epoch as u64 {
                            lo = values[i].load(Ordering::Relaxed);
                            if $words == 2 {
                                hi = values[i + 1].load(Ordering::Relaxed);
                            }
                        }
                        let $w = (lo & 0xffff_ffff) | (hi << 32);
                        f = $from_bits;
                    }
                }
                // In order: lane 0 ends with lane 0's value ∘ .. ∘ lane 31's.
                let mut d = 1u32;
                while d < 32 {
                    let y = shfl_down_sync(full, f, d);
                    if lane_id() + d < 32 {
                        let ($a, $b) = (f, y);
                        f = $combine;
                    }
                    d *= 2;
                }
                if lane == 0 {
                    folds[level as usize & 7] = f;
                    // The last tile of its group at this level and every level below
                    // publishes the group's value one level up: the fold before its own
                    // ancestor, then the ancestor's value (level 0: the aggregate; above,
                    // what warp `level - 1` of this block published). Right away, not
                    // after the levels above: a group's value then waits for nothing but
                    // lower levels, so no chain runs from group to group.
                    let below = (1u64 << (5 * (level + 1))) - 1;
                    if (tile as u64 & below) == below {
                        let mut own = aggregate;
                        let own_at = (base + index as usize) * $words;
                        if level > 0 && own_at + 1 < values.len() {
                            let mut lo = values[own_at].load(Ordering::Relaxed);
                            let mut hi = stamp;
                            if $words == 2 {
                                hi = values[own_at + 1].load(Ordering::Relaxed);
                            }
                            while lo >> 32 != epoch as u64 || hi >> 32 != epoch as u64 {
                                lo = values[own_at].load(Ordering::Relaxed);
                                if $words == 2 {
                                    hi = values[own_at + 1].load(Ordering::Relaxed);
                                }
                            }
                            let $w = (lo & 0xffff_ffff) | (hi << 32);
                            own = $from_bits;
                        }
                        let ($a, $b) = (f, own);
                        let $v = $combine;
                        let bits: u64 = $to_bits;
                        let up = (base + (((tiles - 1) >> (5 * level)) + 1) as usize + (index >> 5) as usize) * $words;
                        if up + 1 < values.len() {
                            values[up].store(stamp | (bits & 0xffff_ffff), Ordering::Relaxed);
                            if $words == 2 {
                                values[up + 1].store(stamp | (bits >> 32), Ordering::Relaxed);
                            }
                        }
                    }
                }
                level += warps;
            }
            sync_threads();
            // The prefix, top level first.
            if tid == 0 {
                let mut prefix = __init;
                let mut k = 0u32;
                while k < levels {
                    let ($a, $b) = (folds[k as usize & 7], prefix);
                    prefix = $combine;
                    k += 1;
                }
                tile_prefix[0] = prefix;
            }
            sync_threads();

            // 4. Offsets added, results back through shared memory, coalesced stores.
            let ($a, $b) = (tile_prefix[0], warp_prefix);
            let tile_warp = $combine;
            let ($a, $b) = (tile_warp, lane_excl);
            let offset = $combine;
            let mut before = __init;
            let mut j = 0usize;
            while j < $n {
                let jj = j & $m;
                let v = if inclusive { items[jj] } else { before };
                before = items[jj];
                let ($a, $b) = (offset, v);
                stage[mine + jj] = $combine;
                j += 1;
            }
            sync_warp(0xffff_ffff);
            let mut j = 0usize;
            while j < $n {
                let jj = j & $m;
                let g = warp_base + lane + 32 * jj;
                if g < out.len() {
                    out[g] = stage[warp * $ws + lane + 33 * jj];
                }
                j += 1;
            }
        }
    };
}
