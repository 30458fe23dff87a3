//! Sums, minima and maxima of a buffer or view of integers or floats, on a GPU or the
//! simulator.
//!
//! Two launches, as a user would write them: `block_sums` (`block_mins`, `block_maxs`)
//! leaves one partial a block
//! (each thread adds a grid-stride share of the input, then the block adds its 256 threads'
//! sums in a shared-memory tree), then one block of the same kernel adds the partials into
//! the result. The partials live in scratch memory this module allocates (at most 1024
//! elements).
//!
//! **Order.** Integers wrap, as `wrapping_add` does, so their sum is exact whatever the
//! order. Floats are added in a fixed order for a given length (the grid is a function of
//! the length alone): thread `g` of `S = B·256` keeps four sums, `s_r` of the elements
//! `4 (g + k S) + r` (the last up to 3 elements, past the last whole four, go to `s_0` of
//! the thread that reaches them), adds them as `(s0 + s1) + (s2 + s3)`, then the block's
//! tree, then the partials' tree; so a float sum is deterministic run to run and the same on the GPU and the
//! simulator, though not the left-to-right sum of the CPU.

use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, LaunchTarget, Result};

/// Threads a block.
const BLOCK: usize = 256;
/// The most blocks (and so partial sums) of the first launch.
const MAX_BLOCKS: usize = 1024;

/// `block_reduce_kernel!(name, bound, |a, b| combine, init, empty)`: one partial a block,
/// `partial[b]` = the block's share of `x` combined; `init` starts each thread's four
/// accumulators (`T::zero()` for sums; `x[0]` for min and max, which any element of `x`
/// leaves unchanged), and `empty` says when the kernel does nothing (min and max of an
/// empty `x`, which the host refuses first).
macro_rules! block_reduce_kernel {
    ($name:ident, $bound:ident, [$x:ident, $n:ident], |$a:ident, $b:ident| $combine:expr, $init:expr, $empty:expr $(, $opt:ident)?) => {
        /// One partial a block: each thread combines a grid-stride share of `x`, then the
        /// block combines its threads' results in a shared-memory tree; thread 0 writes it.
        #[gpu_kernel(crate = "::warpspeed_core", block = (256, 1, 1) $(, $opt)?)]
        pub fn $name<T: $bound>($x: &[T], partial: &mut [T]) {
            let tile = SharedArray::<T, 256>::new();
            let t = thread_idx().x as usize;
            let $n = $x.len();
            if $empty {
                return;
            }
            // Four elements a step, into four accumulators, so that four loads a thread
            // are in flight (one chain of dependent adds left the memory system a quarter
            // idle: 74% of copy bandwidth on an H100). The four are consecutive, so that
            // `j + 3 < n` shows the bounds prover all four in bounds; the thread whose
            // step reaches past the end takes the last (up to 3) elements one at a time.
            let (mut a0, mut a1, mut a2, mut a3) = ($init, $init, $init, $init);
            let mut j = 4 * grid_1d();
            let step = 4 * grid_stride_1d();
            while j + 3 < $n {
                let ($a, $b) = (a0, $x[j]);
                a0 = $combine;
                let ($a, $b) = (a1, $x[j + 1]);
                a1 = $combine;
                let ($a, $b) = (a2, $x[j + 2]);
                a2 = $combine;
                let ($a, $b) = (a3, $x[j + 3]);
                a3 = $combine;
                j += step;
            }
            while j < $n {
                let ($a, $b) = (a0, $x[j]);
                a0 = $combine;
                j += 1;
            }
            let ($a, $b) = (a0, a1);
            let low = $combine;
            let ($a, $b) = (a2, a3);
            let high = $combine;
            let ($a, $b) = (low, high);
            tile[t] = $combine;
            sync_threads();
            let mut half = 128;
            while half > 0 {
                if t < half {
                    let ($a, $b) = (tile[t], tile[t + half]);
                    tile[t] = $combine;
                }
                sync_threads();
                half /= 2;
            }
            let blk = block_idx().x as usize;
            if t == 0 && blk < partial.len() {
                partial[blk] = tile[0];
            }
        }
    };
}

/// The kernels of a family (sum, min, max) for one bound.
macro_rules! kernel_family {
    ($bound:ident, $sum:ident, $min:ident, $max:ident $(, $opt:ident)?) => {
        block_reduce_kernel!($sum, $bound, [x, n], |a, b| a + b, T::zero(), false $(, $opt)?);
        block_reduce_kernel!($min, $bound, [x, n], |a, b| a.min(b), x[0], n == 0 $(, $opt)?);
        block_reduce_kernel!($max, $bound, [x, n], |a, b| a.max(b), x[0], n == 0 $(, $opt)?);
    };
}

/// The kernels, generic over the element type (readable, copyable: `warpspeed::algorithms::
/// reduce::kernels::block_sums_int`).
// The kernel modules' generated docs link `self::launch`; written through `macro_rules!`,
// rustdoc resolves those links where the macro is defined, not in the kernel's module, and
// finds nothing (a finding of issue 22: the macro's doc links, to fix in the emitter).
#[allow(rustdoc::broken_intra_doc_links)]
pub mod kernels {
    use warpspeed_core::prelude::*;
    kernel_family!(Int, block_sums_int, block_mins_int, block_maxs_int);
    kernel_family!(Float, block_sums_float, block_mins_float, block_maxs_float);
}

/// The same kernels `#[gpu_kernel(unchecked)]`: what the bench measures the bounds checks
/// against ([`sum_into`] launches the checked ones).
#[allow(rustdoc::broken_intra_doc_links)] // as in `kernels`
pub mod unchecked {
    use warpspeed_core::prelude::*;
    kernel_family!(
        Int,
        block_sums_int,
        block_mins_int,
        block_maxs_int,
        unchecked
    );
    kernel_family!(
        Float,
        block_sums_float,
        block_mins_float,
        block_maxs_float,
        unchecked
    );
}

/// Which reduction a launch computes (the kernels of [`kernels`] by name).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Sum,
    Min,
    Max,
}

/// An element type this module reduces: every integer (sums wrap) and float type of the
/// kernel language. Sealed: the impls pick the kernels of the type's family.
pub trait Reducible: Scalar + sealed::Sealed {
    #[doc(hidden)]
    fn block_reduce(
        op: Op,
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        partial: &mut impl AsDeviceViewMut<Elem = Self>,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! reducible {
    ([$sum:ident, $min:ident, $max:ident]: $($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            fn block_reduce(
                op: Op,
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                partial: &mut impl AsDeviceViewMut<Elem = Self>,
            ) -> Result<()> {
                match op {
                    Op::Sum => kernels::$sum::launch::<$t>(target, cfg, x, partial),
                    Op::Min => kernels::$min::launch::<$t>(target, cfg, x, partial),
                    Op::Max => kernels::$max::launch::<$t>(target, cfg, x, partial),
                }
            }
        }
    )*};
}
reducible!([block_sums_int, block_mins_int, block_maxs_int]: i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
reducible!([block_sums_float, block_mins_float, block_maxs_float]: f16, bf16, f32, f64);

/// Blocks of the first launch for `n` elements: one a 1024 elements (4 a thread), at least
/// 1, at most 1024; also the partial sums (the scratch elements) a sum of `n`
/// needs.
pub fn partials_for(n: usize) -> usize {
    n.div_ceil(4 * BLOCK).clamp(1, MAX_BLOCKS)
}

/// The two launches of a sum of `n` elements: `block_sums` over the input into
/// [`partials_for`]`(n)` partials, then one block of it over the partials.
pub fn launch_configs(n: usize) -> [LaunchConfig; 2] {
    [
        LaunchConfig::new(partials_for(n) as u32, BLOCK as u32),
        LaunchConfig::new(1, BLOCK as u32),
    ]
}

/// The sum of `x` into `out`, which must hold exactly one element, queued on `target` (a
/// `&Device` or a `&Stream`). An empty `x` sums to zero. Integers wrap; floats are added
/// in the order the module documents.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` does not hold exactly one element (before anything
/// is launched), and whatever a launch or an allocation returns.
///
/// ```
/// # mod warpspeed { pub use warpspeed_core::*; pub mod algorithms { pub use warpspeed_algorithms::*; } }
/// use warpspeed::algorithms::reduce;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&(1..=1000u32).collect::<Vec<_>>())?;
/// let mut total = dev.zeros::<u32>(1)?;
/// reduce::sum_into(&dev, &x, &mut total)?;
/// assert_eq!(total.download()?, vec![500500]);
/// assert_eq!(reduce::sum(&dev, &x)?, 500500);
/// # Ok(())
/// # }
/// ```
pub fn sum_into<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    check_result(out.len())?;
    let mut partial = target.device().zeros::<T>(partials_for(x.len()))?;
    sum_into_with_scratch(target, x, out, &mut partial)
}

/// [`sum_into`] with the scratch memory the caller gives: `partial` holds at least
/// [`partials_for`]`(x.len())` elements (at most 1024), so repeated sums allocate nothing.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` does not hold exactly one element or `partial` is
/// too short (before anything is launched), and whatever a launch returns.
pub fn sum_into_with_scratch<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
    partial: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    reduce_with_scratch(Op::Sum, target, x, out, partial)
}

/// The two launches of `op` over `x` into `out`, after the checks every entry shares.
fn reduce_with_scratch<T: Reducible>(
    op: Op,
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
    partial: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    check_result(out.len())?;
    if op != Op::Sum && x.is_empty() {
        return Err(Error::LengthMismatch {
            what: "reduce::min/max: the input (the min or max of nothing is undefined)".into(),
            expected: 1,
            found: 0,
        });
    }
    let need = partials_for(x.len());
    if partial.len() < need {
        return Err(Error::LengthMismatch {
            what: "reduce: the scratch (partials_for(x.len()))".into(),
            expected: need,
            found: partial.len(),
        });
    }
    let [first, second] = launch_configs(x.len());
    // Exactly the partials: the second launch combines all of its input.
    let mut whole = partial.as_device_view_mut();
    let mut partial = whole.slice_mut(..need);
    T::block_reduce(op, target, first, x, &mut partial)?;
    T::block_reduce(op, target, second, &partial, out)
}

/// `op` of `x`, downloaded, with scratch allocated for the call.
fn reduce_to_host<T: Reducible>(
    op: Op,
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
) -> Result<T> {
    let mut out = target.device().zeros::<T>(1)?;
    let mut partial = target.device().zeros::<T>(partials_for(x.len()))?;
    reduce_with_scratch(op, target, x, &mut out, &mut partial)?;
    Ok(out.download()?[0])
}

/// The least element of `x`, downloaded (`T::min`: a float NaN is passed over unless every
/// element is NaN).
///
/// # Errors
/// [`Error::LengthMismatch`] for an empty `x` (before anything is launched), and whatever
/// a launch or an allocation returns.
pub fn min<T: Reducible>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    reduce_to_host(Op::Min, target, x)
}

/// The greatest element of `x`, downloaded (`T::max`), as [`min`].
///
/// # Errors
/// As [`min`].
pub fn max<T: Reducible>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    reduce_to_host(Op::Max, target, x)
}

/// A sum's result holds exactly one element.
fn check_result(len: usize) -> Result<()> {
    if len == 1 {
        return Ok(());
    }
    Err(Error::LengthMismatch {
        what: "reduce::sum_into: the result".into(),
        expected: 1,
        found: len,
    })
}

/// The sum of `x`, downloaded: [`sum_into`] into a one-element buffer, then a download
/// (which waits for `target`'s work).
pub fn sum<T: Reducible>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    reduce_to_host(Op::Sum, target, x)
}
