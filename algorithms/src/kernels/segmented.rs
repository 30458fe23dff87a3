//! The library's segmented kernels, generic over the element type, each family for `Int`
//! and for `Float`:
//!
//! - the segmented reduce's `segment_{sums,mins,maxs}_*`, from the range-reduce template
//!   (algorithms/src/template/range_reduce.rs): block `b` (with `per_warp`, warp `w` of
//!   block `b`: segment `s = 8 b + w`) combines `x[offsets[s]..offsets[s + 1]]` into
//!   `out[s]`. Sums write zero for an empty segment;
//!   min and max start from the segment's first element and have no value for an empty
//!   segment (the host refuses one).
//! - the segmented scan's `segment_scan_{sums,mins,maxs}_*`, from the tile-scan template
//!   (algorithms/src/template/scan.rs, the three-launch scan's last launch without a
//!   carry): block `b` scans `x[offsets[b]..offsets[b + 1]]` into the same places of
//!   `out`, inclusively or exclusively; nothing for an empty segment. They take
//!   `scan::SHARED_ELEMS` elements of dynamic shared memory. Min and max fill the lanes
//!   past a segment's end with `x[0]`, which reaches no output (no exclusive min or max
//!   scan: the host refuses it).

use warpspeed_core::prelude::*;

/// The segmented kernels for one bound (`$opts`: `[unchecked]` or `[]`).
macro_rules! segmented_family {
    ($bound:ident, [$sum:ident, $min:ident, $max:ident], $opts:tt) => {
        crate::__range_reduce_kernel!($sum<T: $bound>, T => T, [x, start, j, r] load x[j],
            params [offsets: &[usize], per_warp: bool]
            skip (r + 1 >= offsets.len()) range (offsets[r], offsets[r + 1]) warps (per_warp)
            |a, b| a + b, init T::zero(), empty T::zero(), options $opts);
        crate::__range_reduce_kernel!($min<T: $bound>, T => T, [x, start, j, r] load x[j],
            params [offsets: &[usize], per_warp: bool]
            skip (r + 1 >= offsets.len()) range (offsets[r], offsets[r + 1]) warps (per_warp)
            |a, b| a.min(b), init x[start], options $opts);
        crate::__range_reduce_kernel!($max<T: $bound>, T => T, [x, start, j, r] load x[j],
            params [offsets: &[usize], per_warp: bool]
            skip (r + 1 >= offsets.len()) range (offsets[r], offsets[r + 1]) warps (per_warp)
            |a, b| a.max(b), init x[start], options $opts);
    };
}

/// The segmented-scan kernels for one bound (`$opts`: `[unchecked]` or `[]`).
macro_rules! segmented_scan_family {
    ($bound:ident, [$sum:ident, $min:ident, $max:ident], $opts:tt) => {
        crate::__scan_kernels!($sum<T: $bound>, T, [x, blk] params [offsets: &[usize]]
            skip (blk + 1 >= offsets.len()) range (offsets[blk], offsets[blk + 1]) |a, b| a + b, init T::zero(), options $opts);
        crate::__scan_kernels!($min<T: $bound>, T, [x, blk] params [offsets: &[usize]]
            skip (blk + 1 >= offsets.len()) range (offsets[blk], offsets[blk + 1]) |a, b| a.min(b), init x[0], options $opts);
        crate::__scan_kernels!($max<T: $bound>, T, [x, blk] params [offsets: &[usize]]
            skip (blk + 1 >= offsets.len()) range (offsets[blk], offsets[blk + 1]) |a, b| a.max(b), init x[0], options $opts);
    };
}

segmented_family!(
    Int,
    [segment_sums_int, segment_mins_int, segment_maxs_int],
    []
);
segmented_family!(
    Float,
    [segment_sums_float, segment_mins_float, segment_maxs_float],
    []
);
segmented_scan_family!(
    Int,
    [
        segment_scan_sums_int,
        segment_scan_mins_int,
        segment_scan_maxs_int
    ],
    []
);
segmented_scan_family!(
    Float,
    [
        segment_scan_sums_float,
        segment_scan_mins_float,
        segment_scan_maxs_float
    ],
    []
);

/// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
pub mod unchecked {
    use warpspeed_core::prelude::*;
    segmented_family!(
        Int,
        [segment_sums_int, segment_mins_int, segment_maxs_int],
        [unchecked]
    );
    segmented_family!(
        Float,
        [segment_sums_float, segment_mins_float, segment_maxs_float],
        [unchecked]
    );
    segmented_scan_family!(
        Int,
        [
            segment_scan_sums_int,
            segment_scan_mins_int,
            segment_scan_maxs_int
        ],
        [unchecked]
    );
    segmented_scan_family!(
        Float,
        [
            segment_scan_sums_float,
            segment_scan_mins_float,
            segment_scan_maxs_float
        ],
        [unchecked]
    );
}
