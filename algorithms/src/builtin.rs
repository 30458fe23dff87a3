//! The library's own operators on its element types: [`Reducible`] (every integer and float
//! type) picks each type's instance of the generic kernels in `crate::kernels`, and
//! `Operator` for `Sum`, `Min` and `Max` launches them.

use crate::kernels::reduce::{Arg, MinMax};
use crate::operator::{LookbackWords, Max, Min, Operator, Sum};
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, LaunchTarget, Result};

/// Which of a family's kernels a launch runs.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sum,
    Min,
    Max,
    ArgMin,
    ArgMax,
}

/// An element type this module's own reductions take: every integer (sums wrap) and float
/// type of the kernel language. Sealed: the impls pick the kernels of the type's family.
pub trait Reducible: Scalar + sealed::Sealed {
    /// Whether the type's sums, minima and maxima are exact whatever the order they
    /// combine in (integers: wrapping sums and total orders), so the autotuner may choose
    /// how a reduction or scan is chunked; not for floats, whose sums round by the order
    /// and whose min of `-0.0` and `+0.0` or of two NaNs depends on it.
    #[doc(hidden)]
    const EXACT: bool;
    #[doc(hidden)]
    fn block_reduce(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        partial: &mut impl AsDeviceViewMut<Elem = Self>,
        chunk: usize,
    ) -> Result<()>;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn scan(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        out: &mut impl AsDeviceViewMut<Elem = Self>,
        carry: &impl AsDeviceView<Elem = Self>,
        chunk: usize,
        inclusive: bool,
    ) -> Result<()>;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn segment_reduce(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        out: &mut impl AsDeviceViewMut<Elem = Self>,
        offsets: &impl AsDeviceView<Elem = usize>,
        per_warp: bool,
    ) -> Result<()>;
    #[doc(hidden)]
    fn segment_scan(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        out: &mut impl AsDeviceViewMut<Elem = Self>,
        offsets: &impl AsDeviceView<Elem = usize>,
        inclusive: bool,
    ) -> Result<()>;
    /// Items a thread of the single-pass scan by `kind`, where the type has one: 32 for the
    /// decoupled look-back of `u32`/`i32` and the `f32` min and max
    /// (`crate::template::lookback`), the fixed-order look-back's otherwise
    /// (`crate::template::tree_lookback`: 32 for the `f32` sum, 16 for the other integers
    /// and `f64`). `None` (`f16`, `bf16`): the three-launch scan.
    #[doc(hidden)]
    fn lookback_items(kind: Kind) -> Option<usize> {
        let _ = kind;
        None
    }
    /// The single-pass scan by `kind` of [`Reducible::lookback_items`].
    #[doc(hidden)]
    fn lookback(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        out: &mut impl AsDeviceViewMut<Elem = Self>,
        words: LookbackWords<'_>,
        inclusive: bool,
    ) -> Result<()> {
        let _ = (target, cfg, x, out, words, inclusive);
        no_kernel(kind, "single-pass scan")
    }
    #[doc(hidden)]
    fn min_max_first(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        partial: &mut impl AsDeviceViewMut<Elem = MinMax<Self>>,
        chunk: usize,
    ) -> Result<()>;
    #[doc(hidden)]
    fn min_max_second(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = MinMax<Self>>,
        partial: &mut impl AsDeviceViewMut<Elem = MinMax<Self>>,
        chunk: usize,
    ) -> Result<()>;
    #[doc(hidden)]
    fn arg_first(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        partial: &mut impl AsDeviceViewMut<Elem = Arg<Self>>,
        chunk: usize,
    ) -> Result<()>;
    #[doc(hidden)]
    fn arg_second(
        kind: Kind,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Arg<Self>>,
        partial: &mut impl AsDeviceViewMut<Elem = Arg<Self>>,
        chunk: usize,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
}

/// A family's kernels (`kernels::*::*_int`, `*_float`) under the names `reducible!`
/// calls.
macro_rules! family {
    ($name:ident: $($kernel:ident as $short:ident),*; $($scan:ident as $scan_short:ident),*;
     $seg_sums:ident, $seg_mins:ident, $seg_maxs:ident;
     $seg_scan_sums:ident, $seg_scan_mins:ident, $seg_scan_maxs:ident) => {
        mod $name {
            pub use crate::kernels::reduce::{$($kernel as $short),*};
            pub use crate::kernels::scan::{$($scan as $scan_short),*};
            pub use crate::kernels::segmented::{
                $seg_sums as segment_sums, $seg_mins as segment_mins, $seg_maxs as segment_maxs,
                $seg_scan_sums as segment_scan_sums, $seg_scan_mins as segment_scan_mins,
                $seg_scan_maxs as segment_scan_maxs,
            };
        }
    };
}
family!(int: block_sums_int as sums, block_mins_int as mins, block_maxs_int as maxs,
    block_min_max_int as min_max, block_min_max_pairs_int as min_max_pairs,
    block_arg_min_int as arg_min, block_arg_max_int as arg_max,
    block_arg_min_pairs_int as arg_min_pairs, block_arg_max_pairs_int as arg_max_pairs;
    scan_sums_int as scan_sums, scan_mins_int as scan_mins, scan_maxs_int as scan_maxs;
    segment_sums_int, segment_mins_int, segment_maxs_int;
    segment_scan_sums_int, segment_scan_mins_int, segment_scan_maxs_int);
family!(float: block_sums_float as sums, block_mins_float as mins, block_maxs_float as maxs,
    block_min_max_float as min_max, block_min_max_pairs_float as min_max_pairs,
    block_arg_min_float as arg_min, block_arg_max_float as arg_max,
    block_arg_min_pairs_float as arg_min_pairs, block_arg_max_pairs_float as arg_max_pairs;
    scan_sums_float as scan_sums, scan_mins_float as scan_mins, scan_maxs_float as scan_maxs;
    segment_sums_float, segment_mins_float, segment_maxs_float;
    segment_scan_sums_float, segment_scan_mins_float, segment_scan_maxs_float);

/// A kind the launch has no kernel for: a bug of this module.
fn no_kernel(kind: Kind, what: &str) -> ! {
    unreachable!("reduce: no {what} kernel for {kind:?}")
}

/// One single-pass scan launch, and (`items`) its items a thread: `packed`, the decoupled
/// look-back (flag and value in one `u64`); `tree`, the fixed-order look-back's generic
/// integer kernels; `tree32` and `tree64`, its `f32` and `f64` kernels.
macro_rules! lookback_launch {
    (items packed) => {
        32
    };
    (items tree) => {
        16
    };
    (items tree32) => {
        32
    };
    (items tree64) => {
        16
    };
    (packed $k:ident::<$t:ty>, $target:ident, $cfg:ident, $x:ident, $out:ident, $w:ident, $incl:ident) => {
        crate::kernels::scan::$k::launch(
            $target, $cfg, $x, $out, $w.status, $w.counter, $w.epoch, $incl,
        )
    };
    // The fixed-order look-back: with 256 threads a block, its twin capped at 64
    // registers (`kernels::scan::capped`: 4 blocks an SM).
    (tree $k:ident::<$t:ty>, $target:ident, $cfg:ident, $x:ident, $out:ident, $w:ident, $incl:ident) => {
        if $cfg.block.x == 256 {
            crate::kernels::scan::capped::$k::launch::<$t>(
                $target, $cfg, $x, $out, $w.status, $w.counter, $w.epoch, $incl,
            )
        } else {
            crate::kernels::scan::$k::launch::<$t>(
                $target, $cfg, $x, $out, $w.status, $w.counter, $w.epoch, $incl,
            )
        }
    };
    ($concrete:ident $k:ident::<$t:ty>, $target:ident, $cfg:ident, $x:ident, $out:ident, $w:ident, $incl:ident) => {
        if $cfg.block.x == 256 {
            crate::kernels::scan::capped::$k::launch(
                $target, $cfg, $x, $out, $w.status, $w.counter, $w.epoch, $incl,
            )
        } else {
            crate::kernels::scan::$k::launch(
                $target, $cfg, $x, $out, $w.status, $w.counter, $w.epoch, $incl,
            )
        }
    };
}

macro_rules! reducible {
    ($f:ident, exact $exact:literal; $($t:ty $({$($lk:ident => $how:ident $lkernel:ident),*})?),*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const EXACT: bool = $exact;
            $(
            fn lookback_items(kind: Kind) -> Option<usize> {
                match kind {
                    $(Kind::$lk => Some(lookback_launch!(items $how)),)*
                    _ => None,
                }
            }
            fn lookback(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                out: &mut impl AsDeviceViewMut<Elem = Self>,
                words: LookbackWords<'_>,
                inclusive: bool,
            ) -> Result<()> {
                match kind {
                    $(Kind::$lk => lookback_launch!($how $lkernel::<$t>, target, cfg, x, out, words, inclusive),)*
                    _ => no_kernel(kind, "single-pass scan"),
                }
            }
            )?
            fn block_reduce(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                partial: &mut impl AsDeviceViewMut<Elem = Self>,
                chunk: usize,
            ) -> Result<()> {
                match kind {
                    Kind::Sum => $f::sums::launch::<$t>(target, cfg, x, partial, chunk),
                    Kind::Min => $f::mins::launch::<$t>(target, cfg, x, partial, chunk),
                    Kind::Max => $f::maxs::launch::<$t>(target, cfg, x, partial, chunk),
                    _ => no_kernel(kind, "block reduce"),
                }
            }
            fn scan(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                out: &mut impl AsDeviceViewMut<Elem = Self>,
                carry: &impl AsDeviceView<Elem = Self>,
                chunk: usize,
                inclusive: bool,
            ) -> Result<()> {
                match kind {
                    Kind::Sum => $f::scan_sums::launch::<$t>(target, cfg, x, out, carry, chunk, inclusive),
                    Kind::Min => $f::scan_mins::launch::<$t>(target, cfg, x, out, carry, chunk, inclusive),
                    Kind::Max => $f::scan_maxs::launch::<$t>(target, cfg, x, out, carry, chunk, inclusive),
                    _ => no_kernel(kind, "scan"),
                }
            }
            fn segment_reduce(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                out: &mut impl AsDeviceViewMut<Elem = Self>,
                offsets: &impl AsDeviceView<Elem = usize>,
                per_warp: bool,
            ) -> Result<()> {
                match kind {
                    Kind::Sum => $f::segment_sums::launch::<$t>(target, cfg, x, out, offsets, per_warp),
                    Kind::Min => $f::segment_mins::launch::<$t>(target, cfg, x, out, offsets, per_warp),
                    Kind::Max => $f::segment_maxs::launch::<$t>(target, cfg, x, out, offsets, per_warp),
                    _ => no_kernel(kind, "segment reduce"),
                }
            }
            fn segment_scan(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                out: &mut impl AsDeviceViewMut<Elem = Self>,
                offsets: &impl AsDeviceView<Elem = usize>,
                inclusive: bool,
            ) -> Result<()> {
                match kind {
                    Kind::Sum => $f::segment_scan_sums::launch::<$t>(target, cfg, x, out, offsets, inclusive),
                    Kind::Min => $f::segment_scan_mins::launch::<$t>(target, cfg, x, out, offsets, inclusive),
                    Kind::Max => $f::segment_scan_maxs::launch::<$t>(target, cfg, x, out, offsets, inclusive),
                    _ => no_kernel(kind, "segment scan"),
                }
            }
            fn min_max_first(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                partial: &mut impl AsDeviceViewMut<Elem = MinMax<Self>>,
                chunk: usize,
            ) -> Result<()> {
                $f::min_max::launch::<$t>(target, cfg, x, partial, chunk)
            }
            fn min_max_second(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = MinMax<Self>>,
                partial: &mut impl AsDeviceViewMut<Elem = MinMax<Self>>,
                chunk: usize,
            ) -> Result<()> {
                $f::min_max_pairs::launch::<$t>(target, cfg, x, partial, chunk)
            }
            fn arg_first(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                partial: &mut impl AsDeviceViewMut<Elem = Arg<Self>>,
                chunk: usize,
            ) -> Result<()> {
                match kind {
                    Kind::ArgMin => $f::arg_min::launch::<$t>(target, cfg, x, partial, chunk),
                    Kind::ArgMax => $f::arg_max::launch::<$t>(target, cfg, x, partial, chunk),
                    _ => no_kernel(kind, "arg"),
                }
            }
            fn arg_second(
                kind: Kind,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Arg<Self>>,
                partial: &mut impl AsDeviceViewMut<Elem = Arg<Self>>,
                chunk: usize,
            ) -> Result<()> {
                match kind {
                    Kind::ArgMin => $f::arg_min_pairs::launch::<$t>(target, cfg, x, partial, chunk),
                    Kind::ArgMax => $f::arg_max_pairs::launch::<$t>(target, cfg, x, partial, chunk),
                    _ => no_kernel(kind, "arg pairs"),
                }
            }
        }
    )*};
}
// The single-pass scans: the decoupled look-back (`packed`) where a value fits beside its
// flag and the result does not depend on the order of combining steps (32-bit integers,
// the f32 min and max), the fixed-order look-back (`tree`, generic over the integers;
// `tree32`/`tree64`, the f32 and f64 kernels) for the others; f16 and bf16 take three
// launches.
reducible!(int, exact true;
    i8 {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    i16 {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    i32 {Sum => packed lookback_sums_i32, Min => packed lookback_mins_i32, Max => packed lookback_maxs_i32},
    i64 {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    isize {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    u8 {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    u16 {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    u32 {Sum => packed lookback_sums_u32, Min => packed lookback_mins_u32, Max => packed lookback_maxs_u32},
    u64 {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int},
    usize {Sum => tree ordered_sums_int, Min => tree ordered_mins_int, Max => tree ordered_maxs_int});
reducible!(float, exact false; f16, bf16,
    f32 {Sum => tree32 ordered_sums_f32, Min => packed lookback_mins_f32, Max => packed lookback_maxs_f32},
    f64 {Sum => tree64 ordered_sums_f64, Min => tree64 ordered_mins_f64, Max => tree64 ordered_maxs_f64});

/// `Operator` for a library operator: its kernels are the family's of `kind`.
macro_rules! builtin_operator {
    ($op:ident, $kind:ident, $identity:expr) => {
        impl<T: Reducible> Operator for $op<T> {
            type Elem = T;
            const HAS_IDENTITY: bool = $identity;
            const ORDER_FREE: bool = T::EXACT;
            fn block_reduce(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = T>,
                partial: &mut impl AsDeviceViewMut<Elem = T>,
                chunk: usize,
            ) -> Result<()> {
                T::block_reduce(Kind::$kind, target, cfg, x, partial, chunk)
            }
            fn chunk_scan(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = T>,
                out: &mut impl AsDeviceViewMut<Elem = T>,
                carry: &impl AsDeviceView<Elem = T>,
                chunk: usize,
                inclusive: bool,
            ) -> Result<()> {
                T::scan(Kind::$kind, target, cfg, x, out, carry, chunk, inclusive)
            }
            fn segment_reduce(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = T>,
                out: &mut impl AsDeviceViewMut<Elem = T>,
                offsets: &impl AsDeviceView<Elem = usize>,
                per_warp: bool,
            ) -> Result<()> {
                T::segment_reduce(Kind::$kind, target, cfg, x, out, offsets, per_warp)
            }
            fn segment_scan(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = T>,
                out: &mut impl AsDeviceViewMut<Elem = T>,
                offsets: &impl AsDeviceView<Elem = usize>,
                inclusive: bool,
            ) -> Result<()> {
                T::segment_scan(Kind::$kind, target, cfg, x, out, offsets, inclusive)
            }
            fn lookback_items() -> Option<usize> {
                T::lookback_items(Kind::$kind)
            }
            fn lookback_scan(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = T>,
                out: &mut impl AsDeviceViewMut<Elem = T>,
                words: LookbackWords<'_>,
                inclusive: bool,
            ) -> Result<()> {
                T::lookback(Kind::$kind, target, cfg, x, out, words, inclusive)
            }
        }
    };
}
builtin_operator!(Sum, Sum, true);
builtin_operator!(Min, Min, false);
builtin_operator!(Max, Max, false);
