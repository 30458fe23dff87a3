//! The library's segmented-reduce kernels, generic over the element type, from the
//! range-reduce template (algorithms/src/template/range_reduce.rs): block `b` combines
//! `x[offsets[b]..offsets[b + 1]]` into `out[b]`. Sums write zero for an empty segment;
//! min and max start from the segment's first element and have no value for an empty
//! segment (the host refuses one).

use warpspeed_core::prelude::*;

/// The segmented kernels for one bound (`$opts`: `[unchecked]` or `[]`).
macro_rules! segmented_family {
    ($bound:ident, [$sum:ident, $min:ident, $max:ident], $opts:tt) => {
        crate::__range_reduce_kernel!($sum<T: $bound>, T => T, [x, start, j] load x[j], params [offsets: &[usize]]
            range (offsets[block_idx().x as usize], offsets[block_idx().x as usize + 1])
            |a, b| a + b, init T::zero(), empty T::zero(), options $opts);
        crate::__range_reduce_kernel!($min<T: $bound>, T => T, [x, start, j] load x[j], params [offsets: &[usize]]
            range (offsets[block_idx().x as usize], offsets[block_idx().x as usize + 1])
            |a, b| a.min(b), init x[start], options $opts);
        crate::__range_reduce_kernel!($max<T: $bound>, T => T, [x, start, j] load x[j], params [offsets: &[usize]]
            range (offsets[block_idx().x as usize], offsets[block_idx().x as usize + 1])
            |a, b| a.max(b), init x[start], options $opts);
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
}
