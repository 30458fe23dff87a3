//! The library's histogram kernels (`crate::histogram` launches them), generic over the
//! sample type: each counts `samples` into `counts.len()` bins with atomic adds, on top of
//! what `counts` holds (the host zeroes it first with [`zero_counts`]).
//!
//! - **`*_shared`**: each block keeps `copies` private copies of the bins in its 48 KiB of
//!   shared memory (12288 `u32`s; warp `w` counts into copy `w % copies`), adds one to a shared counter per
//!   sample, then merges its copies into `counts` with one global atomic a bin. The add is
//!   the constant 1, which ptxas compiles to `ATOMS.POPC.INC`: the lanes of a warp that hit
//!   the same counter are merged into one update by the hardware, so one-value data does not
//!   serialise a warp (docs/histogram.md measured it: the seed's (e) took the same time on
//!   uniform and on one-value bytes); the copies keep the warps of a block off each other's
//!   counters where the bins are few (256 bins: a copy a warp).
//! - **`*_global`**: for bins whose one copy does not fit (more than 12288; the kernel
//!   language's `dynamic_shared` takes no `AtomicU32`, which would fit about 58,000 on an
//!   H100), the samples go straight to `counts`, aggregated in the warp
//!   first: `match_any_sync` finds the lanes with the same bin, and the lowest of them adds
//!   their number with one global atomic (one-value data: one atomic a warp and sample).
//!
//! Each thread reads four samples a grid stride apart before it counts any (16 bytes of
//! `f32` in flight a thread, each load of a warp 128 consecutive bytes), then single samples
//! to the end. [`NONE`] (the binnings' "not counted": out of range, NaN) is skipped.
//!
//! The binnings are the `#[gpu_device]` functions [`bin_even_float`], [`bin_even_int`] and
//! [`bin_range`]; tests/algorithms_histogram.rs computes the same bins on the CPU (the
//! float formula in the same IEEE operations, the integer bins in `i128`).

use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed_core::prelude::*;

/// Threads a block of every histogram kernel.
pub const BLOCK: u32 = 1024;

/// What a binning gives a sample it does not count (out of range, NaN): no bin, and no
/// index of the shared copies (so the one test `base + bin < 12288` both skips it and
/// proves the shared index).
pub const NONE: u32 = 0xFFFF_FFFF;

/// The bin of a float sample in `bins` bins of equal width over `[lo, hi)`:
/// `((x - lo) * scale)` truncated, at most `bins - 1` (the product may round up to `bins` just
/// below `hi`), with `scale = bins / (hi - lo)` computed once by the host in `T`. [`NONE`]
/// when `x` is below `lo`, at or above `hi`, or NaN. Plain IEEE `-`, `*` and
/// the saturating conversion, never fused: the same bits on the GPU, the simulator and the
/// host.
#[gpu_device]
pub fn bin_even_float<T: Float>(x: T, lo: T, hi: T, scale: T, bins: u32) -> u32 {
    if x >= lo && x < hi {
        ((x - lo) * scale).to_u32().min(bins - 1)
    } else {
        NONE
    }
}

/// Whether the offset `d = x - lo` of an integer sample is at or above the first offset of
/// bin `i`, `ceil(i R / B)` (`R = hi - lo = q B + r`, `B` bins): whether `d B >= i R`, in
/// `u64` without overflow (`i R / B = i q + i r / B`, `i r < 2^32`).
#[gpu_device]
fn at_or_above(d: u64, i: u64, q: u64, r: u64, b: u64) -> bool {
    let iq = i * q;
    if d < iq {
        false
    } else {
        let t = d - iq;
        t >= 4_294_967_296 || t * b >= i * r
    }
}

/// The bin of an integer sample in `bins` bins of equal width over `[lo, hi)` (the host's
/// `i128` levels), exactly `floor((x - lo) bins / (hi - lo))` (as if in unbounded
/// integers); [`NONE`] when `x` is outside. The kernel gets `first` and `last`, the least
/// and the greatest value of `T` in `[lo, hi)` (so `hi` may be one past `T`'s greatest
/// value, 256 for `u8`), `lo64 = lo mod 2^64`, `q`, `r` with `hi - lo = q bins + r`, and
/// `fscale = bins / (hi - lo)` in `f64`. The `f64` estimate `(x - lo) fscale` is within
/// one of the bin (its relative error is below 2^-50, the value below 2^16), and one exact
/// comparison on each side corrects it.
#[gpu_device]
#[allow(clippy::too_many_arguments)]
pub fn bin_even_int<T: Int>(
    x: T,
    first: T,
    last: T,
    lo64: u64,
    q: u64,
    r: u64,
    fscale: f64,
    bins: u32,
) -> u32 {
    if x >= first && x <= last {
        // The offset, exact modulo 2^64 (it lies in [0, 2^64)), sign-extended or not.
        let d = x.to_u64().wrapping_sub(lo64);
        let b = bins as u64;
        let mut bin = ((d as f64 * fscale) as u64).min(b - 1);
        if !at_or_above(d, bin, q, r, b) {
            bin -= 1;
        } else if bin + 1 < b && at_or_above(d, bin + 1, q, r, b) {
            bin += 1;
        }
        bin as u32
    } else {
        NONE
    }
}

/// The bin of a sample among the levels `levels[0] < .. < levels[bins]` (bin `i` is
/// `[levels[i], levels[i + 1])`): a branch-free binary search, `top` the greatest power of
/// two at most `bins`. [`NONE`] when `x` is below the first level, at or above the last, or
/// NaN (every comparison with a NaN is false).
#[gpu_device]
pub fn bin_range<T: Scalar>(x: T, levels: &[T], top: usize) -> u32 {
    if levels.len() < 2 {
        return NONE;
    }
    let bins = levels.len() - 1;
    if !(x >= levels[0] && x < levels[bins]) {
        return NONE;
    }
    // Invariant: levels[pos] <= x < levels[bins], so `levels[next] <= x` fails at
    // `next = bins` and `pos` stays a bin; `next < len` only keeps the loads in the slice.
    let mut pos = 0usize;
    let mut step = top;
    while step > 0 {
        let next = pos + step;
        if next < levels.len() {
            if levels[next] <= x {
                pos = next;
            }
        }
        step >>= 1;
    }
    pos as u32
}

/// A histogram kernel: `$bin` (an expression of the sample `$x` and the bin count `$nb`,
/// a `u32`) gives a sample's bin or [`NONE`]; `shared` or `global` picks the counting.
///
/// The two countings share the sample loop (the `@samples` arm): four samples a grid
/// stride apart loaded before any is binned, then single samples to the end. Each passes
/// what it does around it: its setup, how it counts four bins and one, and its finish.
/// The names both sides use (`counts`, the bins `b0`..`b3` and `b`) are passed down from
/// the counting's arm, since a local of one macro expansion is not seen by another's.
macro_rules! histogram_kernel {
    ($(#[$doc:meta])* $name:ident<$tp:ident: $bound:ident>, shared,
     params [$($p:ident: $pt:ty),*], |$x:ident, $nb:ident| $bin:expr, [$($opt:ident),*]) => {
        histogram_kernel!(@samples $(#[$doc])* $name<$tp: $bound>, [$($opt),*], counts,
            params [$($p: $pt,)* copies: usize], |$x| $bin, cast [as usize],
            setup [
                let smem = SharedArray::<AtomicU32, 12288>::new();
                let bins = counts.len();
                let $nb = bins as u32;
                let tid = thread_idx().x as usize;
                let total = copies * bins;
                // Copies that do not fit (the host never asks for them) count nothing;
                // saying so also proves the shared indices below.
                if copies == 0 || bins == 0 || total > 12288 || bins > 65536 {
                    return;
                }
                let mut k = tid;
                while k < total {
                    smem[k].store(0, Ordering::Relaxed);
                    k += 1024;
                }
                sync_threads();
                let base = ((tid / 32) % copies) * bins;
            ],
            four |b0, b1, b2, b3| [
                if base + b0 < 12288 {
                    smem[base + b0].fetch_add(1, Ordering::Relaxed);
                }
                if base + b1 < 12288 {
                    smem[base + b1].fetch_add(1, Ordering::Relaxed);
                }
                if base + b2 < 12288 {
                    smem[base + b2].fetch_add(1, Ordering::Relaxed);
                }
                if base + b3 < 12288 {
                    smem[base + b3].fetch_add(1, Ordering::Relaxed);
                }
            ],
            one |b| [
                if base + b < 12288 {
                    smem[base + b].fetch_add(1, Ordering::Relaxed);
                }
            ],
            finish [
                sync_threads();
                // Bin b sums its copies and adds the sum to the global bin.
                let mut b = tid;
                while b < bins {
                    let mut count = 0u32;
                    let mut c = 0usize;
                    while c < copies {
                        let at = c * bins + b;
                        if at < total {
                            count += smem[at].load(Ordering::Relaxed);
                        }
                        c += 1;
                    }
                    if count > 0 {
                        counts[b].fetch_add(count, Ordering::Relaxed);
                    }
                    b += 1024;
                }
            ]);
    };
    ($(#[$doc:meta])* $name:ident<$tp:ident: $bound:ident>, global,
     params [$($p:ident: $pt:ty),*], |$x:ident, $nb:ident| $bin:expr, [$($opt:ident),*]) => {
        histogram_kernel!(@samples $(#[$doc])* $name<$tp: $bound>, [$($opt),*], counts,
            params [$($p: $pt),*], |$x| $bin, cast [],
            setup [
                let bins = counts.len();
                let $nb = bins as u32;
                let lane = thread_idx().x & 31;
            ],
            four |b0, b1, b2, b3| [
                // The lanes still in the loop, and among them those with the same bin: the
                // lowest adds their number.
                let mask = active_mask();
                let p0 = match_any_sync(mask, b0);
                let p1 = match_any_sync(mask, b1);
                let p2 = match_any_sync(mask, b2);
                let p3 = match_any_sync(mask, b3);
                if p0.trailing_zeros() == lane && (b0 as usize) < bins {
                    counts[b0 as usize].fetch_add(p0.count_ones(), Ordering::Relaxed);
                }
                if p1.trailing_zeros() == lane && (b1 as usize) < bins {
                    counts[b1 as usize].fetch_add(p1.count_ones(), Ordering::Relaxed);
                }
                if p2.trailing_zeros() == lane && (b2 as usize) < bins {
                    counts[b2 as usize].fetch_add(p2.count_ones(), Ordering::Relaxed);
                }
                if p3.trailing_zeros() == lane && (b3 as usize) < bins {
                    counts[b3 as usize].fetch_add(p3.count_ones(), Ordering::Relaxed);
                }
            ],
            one |b| [
                let peers = match_any_sync(active_mask(), b);
                if peers.trailing_zeros() == lane && (b as usize) < bins {
                    counts[b as usize].fetch_add(peers.count_ones(), Ordering::Relaxed);
                }
            ],
            finish []);
    };
    // The kernel: the counting's setup, the sample loop binning each sample with `$bin`
    // (then `$cast`), the counting of four bins and of one, the counting's finish.
    (@samples $(#[$doc:meta])* $name:ident<$tp:ident: $bound:ident>, [$($opt:ident),*],
     $counts:ident, params [$($p:ident: $pt:ty),*], |$x:ident| $bin:expr,
     cast [$($cast:tt)*], setup [$($setup:tt)*],
     four |$b0:ident, $b1:ident, $b2:ident, $b3:ident| [$($four:tt)*],
     one |$b:ident| [$($one:tt)*], finish [$($finish:tt)*]) => {
        $(#[$doc])*
        #[gpu_kernel(block = (1024, 1, 1) $(, $opt)*)]
        pub fn $name<$tp: $bound>(samples: &[$tp], $counts: &[AtomicU32], $($p: $pt),*) {
            $($setup)*
            let n = samples.len();
            // The grid's threads, as a product of index intrinsics so that the prover
            // knows `3 * stride` cannot wrap.
            let stride = grid_dim().x as usize * block_dim().x as usize;
            let mut i = grid_1d();
            if 3 * stride < n {
                let limit = n - 3 * stride;
                while i < limit {
                    let x0 = samples[i];
                    let x1 = samples[i + stride];
                    let x2 = samples[i + 2 * stride];
                    let x3 = samples[i + 3 * stride];
                    let mut $x = x0;
                    let $b0 = $bin $($cast)*;
                    $x = x1;
                    let $b1 = $bin $($cast)*;
                    $x = x2;
                    let $b2 = $bin $($cast)*;
                    $x = x3;
                    let $b3 = $bin $($cast)*;
                    $($four)*
                    i += 4 * stride;
                }
            }
            while i < n {
                let $x = samples[i];
                let $b = $bin $($cast)*;
                $($one)*
                i += stride;
            }
            $($finish)*
        }
    };
}

/// Every histogram kernel with the options `$opt` (none: checked; `unchecked`).
macro_rules! histogram_family {
    ($($opt:ident)?) => {
        /// Sets every count to zero: the histograms overwrite `counts` (this runs first,
        /// also for an empty input).
        #[gpu_kernel($($opt)?)]
        pub fn zero_counts(counts: &mut [u32]) {
            let mut i = grid_1d();
            while i < counts.len() {
                counts[i] = 0;
                i += grid_stride_1d();
            }
        }

        histogram_kernel!(
            /// `histogram::even` of floats, bins privatised in shared memory.
            even_shared_float<T: Float>, shared, params [lo: T, hi: T, scale: T],
            |x, nb| bin_even_float(x, lo, hi, scale, nb), [$($opt)?]);
        histogram_kernel!(
            /// `histogram::even` of floats, warp-aggregated global atomics.
            even_global_float<T: Float>, global, params [lo: T, hi: T, scale: T],
            |x, nb| bin_even_float(x, lo, hi, scale, nb), [$($opt)?]);
        histogram_kernel!(
            /// `histogram::even` of integers, bins privatised in shared memory.
            even_shared_int<T: Int>, shared,
            params [first: T, last: T, lo64: u64, q: u64, r: u64, fscale: f64],
            |x, nb| bin_even_int(x, first, last, lo64, q, r, fscale, nb), [$($opt)?]);
        histogram_kernel!(
            /// `histogram::even` of integers, warp-aggregated global atomics.
            even_global_int<T: Int>, global,
            params [first: T, last: T, lo64: u64, q: u64, r: u64, fscale: f64],
            |x, nb| bin_even_int(x, first, last, lo64, q, r, fscale, nb), [$($opt)?]);
        histogram_kernel!(
            /// `histogram::range`, bins privatised in shared memory.
            range_shared<T: Scalar>, shared, params [levels: &[T], top: usize],
            |x, _nb| bin_range(x, levels, top), [$($opt)?]);
        histogram_kernel!(
            /// `histogram::range`, warp-aggregated global atomics.
            range_global<T: Scalar>, global, params [levels: &[T], top: usize],
            |x, _nb| bin_range(x, levels, top), [$($opt)?]);
    };
}

histogram_family!();

/// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
pub mod unchecked {
    use super::{bin_even_float, bin_even_int, bin_range};
    use core::sync::atomic::{AtomicU32, Ordering};
    use warpspeed_core::prelude::*;
    histogram_family!(unchecked);
}
