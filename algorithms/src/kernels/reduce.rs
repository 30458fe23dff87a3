//! The library's reduce kernels, generic over the element type, all from the range-reduce
//! template (algorithms/src/template/range_reduce.rs; block `b` combines chunk `b`): sums, minima, maxima,
//! min-max pairs and arg-min/arg-max pairs, each family for `Int` and for `Float`. Read
//! them, copy them (`warpspeed::algorithms::reduce::kernels::block_sums_int`).
//!
//! Sums start each accumulator at zero; the others at the chunk's first element, which they
//! may combine any number of times (they are idempotent), so they need no identity (and an
//! empty input is refused by the host before anything runs). The `_pairs` kernels combine
//! the partials the first launch left ([`MinMax`], [`Arg`]), the others take their own
//! output type as input.

use warpspeed_core::prelude::*;

/// The least and the greatest element seen: what `min_max` reduces into.
#[doc(hidden)]
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMax<T: Scalar> {
    pub lo: T,
    pub hi: T,
}

/// A value and its index: what `arg_min` and `arg_max` reduce into.
#[doc(hidden)]
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arg<T: Scalar> {
    pub value: T,
    pub index: u64,
}

/// Whether `b` goes before `a` in `arg_min`'s order when `b_first_value` says `b`'s value
/// goes first: numbers before NaNs (a NaN is passed over, as `min` passes it over), equal
/// values (and NaNs among themselves) by index, so the first of the least wins, as
/// `Iterator::min_by` keeps the first.
#[gpu_device]
fn goes_first<T: Scalar>(a: Arg<T>, b: Arg<T>, b_first_value: bool) -> bool {
    let a_nan = a.value != a.value;
    let b_nan = b.value != b.value;
    if a_nan != b_nan {
        return a_nan;
    }
    if a_nan || b.value == a.value {
        return b.index < a.index;
    }
    b_first_value
}

/// The arg-min of two: the lesser value, the lower index among equals.
#[gpu_device]
pub fn arg_min_of<T: Scalar>(a: Arg<T>, b: Arg<T>) -> Arg<T> {
    if goes_first(a, b, b.value < a.value) {
        b
    } else {
        a
    }
}

/// The arg-max of two: the greater value, the lower index among equals.
#[gpu_device]
pub fn arg_max_of<T: Scalar>(a: Arg<T>, b: Arg<T>) -> Arg<T> {
    if goes_first(a, b, b.value > a.value) {
        b
    } else {
        a
    }
}

/// The kernels of every reduction for one bound (`$opt`: `unchecked` or nothing).
macro_rules! kernel_family {
    (
        $bound:ident, [$sum:ident, $min:ident, $max:ident]
        $(, [$mm:ident, $mm_pairs:ident, $amin:ident, $amax:ident, $arg_pairs_min:ident, $arg_pairs_max:ident])?
        $(; $opt:ident)?
    ) => {
        $crate::kernels::reduce::kernel_family!(@one $bound, [$($opt)?], [$sum, $min, $max] $(, [$mm, $mm_pairs, $amin, $amax, $arg_pairs_min, $arg_pairs_max])?);
    };
    (
        @one $bound:ident, $opts:tt, [$sum:ident, $min:ident, $max:ident]
        $(, [$mm:ident, $mm_pairs:ident, $amin:ident, $amax:ident, $arg_pairs_min:ident, $arg_pairs_max:ident])?
    ) => {
        crate::kernels::reduce::kernel_family!(@k $sum<T: $bound>, T => T, [x, start, j] load x[j],
            |a, b| a + b, init T::zero(), empty T::zero(), options $opts);
        crate::kernels::reduce::kernel_family!(@k $min<T: $bound>, T => T, [x, start, j] load x[j],
            |a, b| a.min(b), init x[start], options $opts);
        crate::kernels::reduce::kernel_family!(@k $max<T: $bound>, T => T, [x, start, j] load x[j],
            |a, b| a.max(b), init x[start], options $opts);
        $(
        crate::kernels::reduce::kernel_family!(@k $mm<T: $bound>, T => MinMax<T>, [x, start, j]
            load MinMax { lo: x[j], hi: x[j] },
            |a, b| MinMax { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi) },
            init MinMax { lo: x[start], hi: x[start] }, options $opts);
        crate::kernels::reduce::kernel_family!(@k $mm_pairs<T: $bound>, MinMax<T> => MinMax<T>, [x, start, j]
            load x[j], |a, b| MinMax { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi) },
            init x[start], options $opts);
        crate::kernels::reduce::kernel_family!(@k $amin<T: $bound>, T => Arg<T>, [x, start, j]
            load Arg { value: x[j], index: j as u64 }, |a, b| arg_min_of(a, b),
            init Arg { value: x[start], index: start as u64 }, options $opts);
        crate::kernels::reduce::kernel_family!(@k $amax<T: $bound>, T => Arg<T>, [x, start, j]
            load Arg { value: x[j], index: j as u64 }, |a, b| arg_max_of(a, b),
            init Arg { value: x[start], index: start as u64 }, options $opts);
        crate::kernels::reduce::kernel_family!(@k $arg_pairs_min<T: $bound>, Arg<T> => Arg<T>, [x, start, j]
            load x[j], |a, b| arg_min_of(a, b), init x[start], options $opts);
        crate::kernels::reduce::kernel_family!(@k $arg_pairs_max<T: $bound>, Arg<T> => Arg<T>, [x, start, j]
            load x[j], |a, b| arg_max_of(a, b), init x[start], options $opts);
        )?
    };
    // One kernel: block `b` combines chunk `b` of `x` (`chunk` elements from `b * chunk`).
    (
        @k $name:ident<T: $bound:ident>, $in:ty => $acc:ty, [$x:ident, $start:ident, $j:ident] load $load:expr,
        |$a:ident, $b:ident| $combine:expr, init $init:expr, $(empty $empty:expr,)? options $opts:tt
    ) => {
        crate::__range_reduce_kernel!($name<T: $bound>, $in => $acc, [$x, $start, $j, r] load $load,
            params [chunk: usize]
            range (r * chunk, r * chunk + chunk)
            |$a, $b| $combine, init $init, $(empty $empty,)? options $opts);
    };
}
pub(crate) use kernel_family;

kernel_family!(
    Int,
    [block_sums_int, block_mins_int, block_maxs_int],
    [
        block_min_max_int,
        block_min_max_pairs_int,
        block_arg_min_int,
        block_arg_max_int,
        block_arg_min_pairs_int,
        block_arg_max_pairs_int
    ]
);
kernel_family!(
    Float,
    [block_sums_float, block_mins_float, block_maxs_float],
    [
        block_min_max_float,
        block_min_max_pairs_float,
        block_arg_min_float,
        block_arg_max_float,
        block_arg_min_pairs_float,
        block_arg_max_pairs_float
    ]
);

/// The same kernels `#[gpu_kernel(unchecked)]`: what the bench measures the bounds checks
/// against (the library launches the checked ones).
pub mod unchecked {
    use super::{arg_max_of, arg_min_of, Arg, MinMax};
    use warpspeed_core::prelude::*;
    super::kernel_family!(
        Int,
        [block_sums_int, block_mins_int, block_maxs_int],
        [block_min_max_int, block_min_max_pairs_int, block_arg_min_int, block_arg_max_int, block_arg_min_pairs_int, block_arg_max_pairs_int];
        unchecked
    );
    super::kernel_family!(
        Float,
        [block_sums_float, block_mins_float, block_maxs_float],
        [block_min_max_float, block_min_max_pairs_float, block_arg_min_float, block_arg_max_float, block_arg_min_pairs_float, block_arg_max_pairs_float];
        unchecked
    );
}
