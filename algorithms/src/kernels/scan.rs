//! The library's scan kernels:
//!
//! - the three-launch scan's tile scan, generic over the element type, from one template
//!   (`__scan_kernels!`, algorithms/src/template/scan.rs): `scan_*` (a chunk scanned after
//!   its carry) for sums, minima and maxima, each family for `Int` and for `Float` (its
//!   first launch is the reduce's kernel, `block_sums_*` and its kin);
//! - the single-pass look-back scan (`__lookback_scan_kernel!`,
//!   algorithms/src/template/lookback.rs) where the result cannot depend on the order of
//!   combining steps and a value fits 32 bits beside its flag: `lookback_sums_u32`,
//!   `lookback_sums_i32`, and `lookback_{mins,maxs}_{u32,i32,f32}`;
//! - the single-pass scan with a fixed-order look-back (`__tree_lookback_scan_kernel!`,
//!   algorithms/src/template/tree_lookback.rs), whose combining order depends on the
//!   length alone, for the others: `ordered_{sums,mins,maxs}_int` (every integer type,
//!   16 items a thread), `ordered_sums_f32` (32 items a thread) and
//!   `ordered_{sums,mins,maxs}_f64` (16).
//!
//! Sums fill with zero; min and max with `x[0]`, which they may combine any number of
//! times (no identity, so no exclusive min or max scan: the host refuses it).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use warpspeed_core::prelude::*;

/// The kernels of the scans for one bound (`$opts`: `[unchecked]` or `[]`).
macro_rules! scan_family {
    ($bound:ident, [$s:ident, $smin:ident, $smax:ident], $opts:tt) => {
        crate::__scan_kernels!($s<T: $bound>, T, [x, blk] params [carry: &[T], chunk: usize]
            range (blk * chunk, blk * chunk + chunk) carry (blk > 0 && blk < carry.len(), carry[blk])
            |a, b| a + b, init T::zero(), options $opts);
        crate::__scan_kernels!($smin<T: $bound>, T, [x, blk] params [carry: &[T], chunk: usize]
            range (blk * chunk, blk * chunk + chunk) carry (blk > 0 && blk < carry.len(), carry[blk])
            |a, b| a.min(b), init x[0], options $opts);
        crate::__scan_kernels!($smax<T: $bound>, T, [x, blk] params [carry: &[T], chunk: usize]
            range (blk * chunk, blk * chunk + chunk) carry (blk > 0 && blk < carry.len(), carry[blk])
            |a, b| a.max(b), init x[0], options $opts);
    };
}

scan_family!(Int, [scan_sums_int, scan_mins_int, scan_maxs_int], []);
scan_family!(
    Float,
    [scan_sums_float, scan_mins_float, scan_maxs_float],
    []
);

/// The look-back kernels (`$opts`: `[unchecked]` or `[]`).
macro_rules! lookback_family {
    ($opts:tt) => {
        crate::__lookback_scan_kernel!(lookback_sums_u32, u32, [x] |a, b| a + b, init 0u32,
            to_bits |v| v, from_bits |w| w, options $opts);
        crate::__lookback_scan_kernel!(lookback_sums_i32, i32, [x] |a, b| a + b, init 0i32,
            to_bits |v| v as u32, from_bits |w| w as i32, options $opts);
        crate::__lookback_scan_kernel!(lookback_mins_u32, u32, [x] |a, b| a.min(b), init x[0],
            to_bits |v| v, from_bits |w| w, options $opts);
        crate::__lookback_scan_kernel!(lookback_mins_i32, i32, [x] |a, b| a.min(b), init x[0],
            to_bits |v| v as u32, from_bits |w| w as i32, options $opts);
        crate::__lookback_scan_kernel!(lookback_mins_f32, f32, [x] |a, b| a.min(b), init x[0],
            to_bits |v| v.to_bits(), from_bits |w| f32::from_bits(w), options $opts);
        crate::__lookback_scan_kernel!(lookback_maxs_u32, u32, [x] |a, b| a.max(b), init x[0],
            to_bits |v| v, from_bits |w| w, options $opts);
        crate::__lookback_scan_kernel!(lookback_maxs_i32, i32, [x] |a, b| a.max(b), init x[0],
            to_bits |v| v as u32, from_bits |w| w as i32, options $opts);
        crate::__lookback_scan_kernel!(lookback_maxs_f32, f32, [x] |a, b| a.max(b), init x[0],
            to_bits |v| v.to_bits(), from_bits |w| f32::from_bits(w), options $opts);
    };
}

lookback_family!([]);

/// The fixed-order look-back kernels (`$opts`: `[unchecked]` or `[]`). A value travels as
/// a `u64`'s bits: integers by `to_u64`/`from_u64` (wrapping, so exact both ways), floats
/// by their bits.
macro_rules! ordered_family {
    ($opts:tt) => {
        ordered_family!($opts, bounds []);
    };
    ($opts:tt, bounds [$($bnd:tt)*]) => {
        crate::__tree_lookback_scan_kernel!(ordered_sums_int<T: Int>, T, [x] |a, b| a + b,
            init T::zero(), to_bits |v| v.to_u64(), from_bits |w| T::from_u64(w),
            items 16 mask 15, stage 4224 warp_stride 528, words 2, bounds [$($bnd)*], options $opts);
        crate::__tree_lookback_scan_kernel!(ordered_mins_int<T: Int>, T, [x] |a, b| a.min(b),
            init x[0], to_bits |v| v.to_u64(), from_bits |w| T::from_u64(w),
            items 16 mask 15, stage 4224 warp_stride 528, words 2, bounds [$($bnd)*], options $opts);
        crate::__tree_lookback_scan_kernel!(ordered_maxs_int<T: Int>, T, [x] |a, b| a.max(b),
            init x[0], to_bits |v| v.to_u64(), from_bits |w| T::from_u64(w),
            items 16 mask 15, stage 4224 warp_stride 528, words 2, bounds [$($bnd)*], options $opts);
        crate::__tree_lookback_scan_kernel!(ordered_sums_f32, f32, [x] |a, b| a + b,
            init 0.0f32, to_bits |v| v.to_bits() as u64, from_bits |w| f32::from_bits(w as u32),
            items 32 mask 31, stage 8448 warp_stride 1056, words 1, bounds [$($bnd)*], options $opts);
        crate::__tree_lookback_scan_kernel!(ordered_sums_f64, f64, [x] |a, b| a + b,
            init 0.0f64, to_bits |v| v.to_bits(), from_bits |w| f64::from_bits(w),
            items 16 mask 15, stage 4224 warp_stride 528, words 2, bounds [$($bnd)*], options $opts);
        crate::__tree_lookback_scan_kernel!(ordered_mins_f64, f64, [x] |a, b| a.min(b),
            init x[0], to_bits |v| v.to_bits(), from_bits |w| f64::from_bits(w),
            items 16 mask 15, stage 4224 warp_stride 528, words 2, bounds [$($bnd)*], options $opts);
        crate::__tree_lookback_scan_kernel!(ordered_maxs_f64, f64, [x] |a, b| a.max(b),
            init x[0], to_bits |v| v.to_bits(), from_bits |w| f64::from_bits(w),
            items 16 mask 15, stage 4224 warp_stride 528, words 2, bounds [$($bnd)*], options $opts);
    };
}

ordered_family!([]);

/// The fixed-order look-back kernels again with `__launch_bounds__(256, 4)` (`block =
/// (256, 1, 1), min_blocks_per_multiprocessor = 4`): what a launch of 256 threads a block
/// takes. ptxas gives the 64-bit kernels 71 registers, 3 blocks an SM; capped at 64, 4
/// blocks an SM: the inclusive sum of 2^28 i64 on an H100 went 1.955 -> 1.817 ms
/// (torch.cumsum 1.894 in the same run; 56 registers 1.866, 48 2.087). The uncapped
/// kernels above take the other block sizes the autotuner may choose (`scan::TUNED_BLOCKS`).
pub mod capped {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    use warpspeed_core::prelude::*;
    ordered_family!([], bounds [block = (256, 1, 1), min_blocks_per_multiprocessor = 4,]);
}

/// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
pub mod unchecked {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    use warpspeed_core::prelude::*;
    lookback_family!([unchecked]);
    ordered_family!([unchecked]);
    /// `super::capped`'s kernels, `unchecked`.
    pub mod capped {
        use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
        use warpspeed_core::prelude::*;
        ordered_family!([unchecked], bounds [block = (256, 1, 1), min_blocks_per_multiprocessor = 4,]);
    }
    scan_family!(
        Int,
        [scan_sums_int, scan_mins_int, scan_maxs_int],
        [unchecked]
    );
    scan_family!(
        Float,
        [scan_sums_float, scan_mins_float, scan_maxs_float],
        [unchecked]
    );
}
