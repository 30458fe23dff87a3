//! The single-pass scan with decoupled look-back (Merrill and Garland, "Single-pass
//! Parallel Prefix Scan with Decoupled Look-back", NVIDIA 2016; CUB's `DeviceScan`), as a
//! template over the combining step: one launch reads every element once and writes it
//! once. The library instantiates it for the operators whose results do not depend on the
//! order of combining steps and whose values fit 32 bits beside a flag: wrapping sums of
//! `u32`/`i32`, min and max of `u32`/`i32`/`f32` (`crate::kernels::scan`); the scan
//! example and the bench launch the same kernels beside a hand-written CUDA C twin.
//!
//! # How to launch (what `scan::inclusive` does for those operators)
//!
//! - `block`: threads per block, a multiple of 32 up to 256. A tile is `32 * block`
//!   elements (32 a thread): 8192 with 256 threads. Grid: exactly `tiles =
//!   len.div_ceil(32 * block)` blocks. Static shared memory 33 KiB, no dynamic.
//! - `x`, `out`: the same length, not 0.
//! - `status: &[AtomicU64]`: one word per tile, zeroed once when allocated, never between
//!   launches (see `epoch`).
//! - `counter: &[AtomicU32]`: one word, zero before a launch. Each block takes its tile id
//!   with `fetch_add`; the block that takes the last one stores 0 back, so the counter is
//!   zero again for the next launch without a reset. Reset it by hand only after a failed
//!   launch.
//! - `epoch: u32`: 1 for the first launch on a status buffer, one more for each launch
//!   after it (below 2^31; then zero the status words and start again at 1). Words left by
//!   earlier launches carry an earlier epoch, so they read as "not published yet".
//! - `inclusive: bool`: `out[i] = x[0] ∘ .. ∘ x[i]`; exclusive: `x[0] ∘ .. ∘ x[i - 1]`
//!   (`out[0]` the identity).
//!
//! # The algorithm (per block)
//!
//! 1. Thread 0 takes the block's tile id from the counter (`fetch_add`), so tiles are
//!    handed out in the order blocks start, and a tile only ever waits for tiles whose
//!    blocks have started: on a GPU, which may start blocks in any order, and on the
//!    simulator, which runs each started block to its end on one CPU thread while its
//!    other workers run other blocks.
//! 2. Each warp loads its 1024 consecutive elements coalesced (lane `l` reads `l + 32 j`,
//!    `j < 32`), passes them through shared memory (one padding word per 32, so neither
//!    pattern has bank conflicts) so that each lane holds 32 consecutive elements, and
//!    scans them in registers. A `shfl_up_sync` scan of the lanes' totals and the warps'
//!    totals in shared memory give each element what comes before it inside the tile, and
//!    the tile's total (its *aggregate*).
//! 3. Warp 0 publishes the aggregate in the tile's status word, then looks back: lane `l`
//!    reads the word of tile `tile - 1 - l` (32 predecessors at a time), the warp spins
//!    (`any_sync`) while any of them is unpublished, finds the nearest predecessor that has
//!    published its *inclusive prefix* (`ballot_sync`, lowest set bit), and combines that
//!    prefix and the aggregates of the tiles between (a `shfl_xor_sync` reduction); with no
//!    inclusive prefix among the 32, it combines all 32 aggregates and looks 32 tiles
//!    further back. Then it publishes the tile's inclusive prefix.
//! 4. Every element gets the tile's exclusive prefix; each warp passes its results back
//!    through shared memory and stores them coalesced.
//!
//! A status word is one `AtomicU64`: the flag in the high 32 bits (`2 * epoch`: aggregate
//! published, `2 * epoch + 1`: inclusive prefix published, anything else: not yet) and the
//! value's bits in the low 32. Flag and value travel in one atomic access, so a reader
//! needs nothing ordered but that word: loads and stores are `Relaxed` (`ld`/`st.volatile`,
//! relaxed at system scope, which read and write the coherent L2, not the L1), as CUB does for
//! values that fit beside the flag in 64 bits. On the simulator the only data passed
//! between blocks goes through these atomics, which its race checks accept; within a
//! block, shared memory is ordered by `sync_threads` and, within a warp, `sync_warp`.
//!
//! The look-back combines the window's values in an order that depends on which
//! predecessors had published what: so the template is for commutative operators whose
//! result does not depend on that order (integer sums, min, max), where it is exact.

/// `__lookback_scan_kernel!(name, T, [x] |a, b| C, init I, to_bits |v| B, from_bits |w| F,
/// options [..])`: the look-back scan of `T` (32 bits at most) with the commutative
/// combining step `C`; `I` is the identity or, for an idempotent operator, `x[0]`; `B`
/// gives a value's bits as a `u32`, `F` the value of a `u32`'s.
#[doc(hidden)]
#[macro_export]
macro_rules! __lookback_scan_kernel {
    (
        $name:ident, $t:ty, [$x:ident] |$a:ident, $b:ident| $combine:expr, init $init:expr,
        to_bits |$v:ident| $to_bits:expr, from_bits |$w:ident| $from_bits:expr,
        options [$($opt:ident),*]
    ) => {
        /// The single-pass look-back scan: see `warpspeed::algorithms::scan` and the
        /// template's documentation (algorithms/src/template/lookback.rs) for the launch.
        #[gpu_kernel($($opt),*)]
        pub fn $name(
            $x: &[$t],
            out: &mut [$t],
            status: &[AtomicU64],
            #[len(1)] counter: &[AtomicU32],
            epoch: u32,
            inclusive: bool,
        ) {
            // Each warp's transpose buffer: 1024 elements, element s at s + s / 32.
            let stage = SharedArray::<$t, 8448>::new();
            let warp_totals = SharedArray::<$t, 8>::new();
            let tile_id = SharedArray::<u32, 1>::new();
            let tile_prefix = SharedArray::<$t, 1>::new();
            let full = 0xffff_ffffu32;
            let tid = thread_idx().x;
            // Shared-memory indexes are 64-bit sums of values bounded by `&` (the launch
            // allows at most 8 warps), so the bounds prover removes their checks.
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
            // One status word per tile: a launch with more blocks than words has nothing
            // to do in the extra ones (the whole block leaves; saying so also proves every
            // status index below).
            if tile as usize >= status.len() {
                return;
            }

            // 2. Coalesced loads (the identity past the end), through shared memory into
            // 32 consecutive elements per lane, scanned in registers. The loops over the
            // 32 items are `while` loops: NVRTC unrolls them (the local array stays in
            // registers), which it does not do with the C the macro emits for `for`.
            let warp_base = tile as usize * (block_dim().x * 32) as usize + warp * 1024;
            let mut j = 0usize;
            while j < 32 {
                let jj = j & 31;
                let g = warp_base + lane + 32 * jj;
                let mut v = __init;
                if g < $x.len() {
                    v = $x[g];
                }
                stage[warp * 1056 + lane + 33 * jj] = v; // element lane + 32 jj of the warp, at lane + 33 jj
                j += 1;
            }
            sync_warp(0xffff_ffff);
            let mut items = [__init; 32];
            let mut acc = __init;
            let mut j = 0usize;
            while j < 32 {
                let jj = j & 31;
                // Element 32 lane + jj of the warp, at 33 lane + jj.
                let ($a, $b) = (acc, stage[warp * 1056 + lane * 33 + jj]);
                acc = $combine;
                items[jj] = acc;
                j += 1;
            }
            let total = acc;
            let mut lanes_incl = total;
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
            // What comes before this lane within the warp (the init before lane 0).
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

            // 3. Publish the aggregate, look back, publish the inclusive prefix.
            if warp == 0 {
                let flag_aggregate = 2 * epoch as u64;
                let flag_prefix = flag_aggregate + 1;
                let $v = aggregate;
                let aggregate_bits: u32 = $to_bits;
                let mut exclusive = __init;
                if tile == 0 {
                    if lane == 0 {
                        let published = flag_prefix << 32 | aggregate_bits as u64;
                        status[0].store(published, Ordering::Relaxed);
                    }
                } else {
                    if lane == 0 {
                        status[tile as usize]
                            .store(flag_aggregate << 32 | aggregate_bits as u64, Ordering::Relaxed);
                    }
                    // This lane's predecessor is `back` tiles back; before tile 0, a zero
                    // prefix (never added: tile 0's own prefix comes first).
                    let mut back = lane_id() + 1;
                    loop {
                        let mut word = flag_prefix << 32;
                        if back <= tile {
                            word = status[(tile - back) as usize].load(Ordering::Relaxed);
                        }
                        let mut flag = word >> 32;
                        while any_sync(full, flag != flag_aggregate && flag != flag_prefix) {
                            // (A lane past tile 0 holds a prefix flag: `back <= tile` is
                            // always true here, and says so to the bounds prover.)
                            if flag != flag_aggregate && flag != flag_prefix && back <= tile {
                                word = status[(tile - back) as usize].load(Ordering::Relaxed);
                                flag = word >> 32;
                            }
                        }
                        // Lanes up to the nearest inclusive prefix (all 32 if none) count.
                        let prefixes = ballot_sync(full, flag == flag_prefix);
                        let $w = word as u32;
                        let mut v: $t = $from_bits;
                        if prefixes != 0 && lane_id() > prefixes.trailing_zeros() {
                            v = __init;
                        }
                        let mut k = 0u32;
                        while k < 5 {
                            let ($a, $b) = (v, shfl_xor_sync(full, v, 16u32 >> k));
                            v = $combine;
                            k += 1;
                        }
                        let ($a, $b) = (exclusive, v);
                        exclusive = $combine;
                        if prefixes != 0 {
                            break;
                        }
                        back += 32;
                    }
                    if lane == 0 {
                        let ($a, $b) = (exclusive, aggregate);
                        let $v = $combine;
                        let inclusive_bits: u32 = $to_bits;
                        status[tile as usize]
                            .store(flag_prefix << 32 | inclusive_bits as u64, Ordering::Relaxed);
                    }
                }
                if lane == 0 {
                    tile_prefix[0] = exclusive;
                }
            }
            sync_threads();

            // 4. Offsets added, results back through shared memory, coalesced stores.
            let ($a, $b) = (tile_prefix[0], warp_prefix);
            let tile_warp = $combine;
            let ($a, $b) = (tile_warp, lane_excl);
            let offset = $combine;
            let mut before = __init;
            let mut j = 0usize;
            while j < 32 {
                let jj = j & 31;
                let v = if inclusive { items[jj] } else { before };
                before = items[jj];
                let ($a, $b) = (offset, v);
                stage[warp * 1056 + lane * 33 + jj] = $combine;
                j += 1;
            }
            sync_warp(0xffff_ffff);
            let mut j = 0usize;
            while j < 32 {
                let jj = j & 31;
                let g = warp_base + lane + 32 * jj;
                if g < out.len() {
                    out[g] = stage[warp * 1056 + lane + 33 * jj];
                }
                j += 1;
            }
        }
    };
}
