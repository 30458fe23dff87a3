//! Reductions of a buffer or view on a GPU or the simulator: [`sum`], [`min`], [`max`],
//! [`min_max`], [`arg_min`], [`arg_max`] of any integer or float type, and [`reduce`] with
//! any [`Operator`], a user's included ([`operator!`](crate::operator!)), over any kernel
//! scalar or `#[gpu_struct]` type.
//!
//! Two launches, as a user would write them: a reduce kernel leaves one partial a block
//! (block `b` combines chunk `b` of the input, at most 1024 chunks of whole 1024-element
//! steps; algorithms/src/template/range_reduce.rs), then one block of a kernel of the same
//! template combines the partials into the result. The partials live in scratch
//! memory this module allocates (at most 1024 elements), or the caller gives
//! (`*_with_scratch`, [`partials_for`]).
//!
//! **Order.** The chunks are a function of the length alone, and so is the order of the
//! combining steps: thread `t` of a block keeps four accumulators, `s_r` of the chunk's
//! elements `4 t + 1024 k + r` (the last up to 3, past the chunk's last whole four, go to
//! `s_0` of the thread that reaches them), combines them as `(s0 ∘ s1) ∘ (s2 ∘ s3)`, then a
//! tree within each warp, then the 8 warps' results in order; the partials the same way. So every reduction is deterministic, run to
//! run and the same on the GPU and the simulator. Integers wrap, as `wrapping_add` does,
//! so their sum is exact whatever the order; a float sum is not the left-to-right sum of
//! the CPU (each element passes through at most `log2(n) + 2` roundings).
//!
//! **Autotuning.** From 2^20 elements, reductions whose result cannot depend on the
//! chunking (sums, minima, maxima, `min_max`, `arg_min`, `arg_max` of integers) take the
//! number of chunks that `warpspeed::autotune` timed fastest on this GPU among
//! [`TUNED_BLOCKS`] (once per size bucket; `WARPSPEED_AUTOTUNE=off`: always 1024). Float
//! reductions and a user's operators keep the chunks above, so their rounding is the same
//! on every GPU and run. docs/algorithms.md, "Autotuning".
//!
//! **Bad input.** Before anything is launched: a result that is not one element, scratch
//! shorter than [`partials_for`], and an empty input where the operator has no identity
//! (min, max and the arg- and min-max reductions) are [`Error::LengthMismatch`].

use crate::builtin::Kind;
pub use crate::builtin::Reducible;
pub use crate::kernels::reduce as kernels;
pub use crate::kernels::reduce::unchecked;
use crate::operator::{Max, Min, Operator, Sum};
use kernels::{Arg, MinMax};
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, KernelScalar, LaunchTarget, Result};

/// Threads a block.
const BLOCK: usize = 256;
/// The most blocks (and so partials) of the first launch.
const MAX_BLOCKS: usize = 1024;

/// A reduction as the two launches run it: the first maps each input element to the
/// accumulated type and combines (`In` → `Acc`), the second combines partials
/// (`Acc` → `Acc`). Every [`Operator`] is one (`In = Acc`, one kernel for both); so are
/// `min_max` and the arg reductions. Not an API.
#[doc(hidden)]
pub trait Reduction {
    type In: KernelScalar;
    type Acc: KernelScalar;
    /// Whether an empty input has a result (the identity).
    const EMPTY_OK: bool;
    /// Whether the result is independent of the chunking, so it may be tuned.
    const ORDER_FREE: bool;
    fn first(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::In>,
        partial: &mut impl AsDeviceViewMut<Elem = Self::Acc>,
        chunk: usize,
    ) -> Result<()>;
    fn second(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Acc>,
        partial: &mut impl AsDeviceViewMut<Elem = Self::Acc>,
        chunk: usize,
    ) -> Result<()>;
}

impl<O: Operator> Reduction for O {
    type In = O::Elem;
    type Acc = O::Elem;
    const EMPTY_OK: bool = O::HAS_IDENTITY;
    const ORDER_FREE: bool = O::ORDER_FREE;
    fn first(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = O::Elem>,
        partial: &mut impl AsDeviceViewMut<Elem = O::Elem>,
        chunk: usize,
    ) -> Result<()> {
        O::block_reduce(target, cfg, x, partial, chunk)
    }
    fn second(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = O::Elem>,
        partial: &mut impl AsDeviceViewMut<Elem = O::Elem>,
        chunk: usize,
    ) -> Result<()> {
        O::block_reduce(target, cfg, x, partial, chunk)
    }
}

/// `min_max`: `T` → [`MinMax<T>`] → [`MinMax<T>`].
#[doc(hidden)]
pub struct MinMaxOf<T>(core::marker::PhantomData<T>);

impl<T: Reducible> Reduction for MinMaxOf<T> {
    type In = T;
    type Acc = MinMax<T>;
    const EMPTY_OK: bool = false;
    const ORDER_FREE: bool = T::EXACT;
    fn first(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = T>,
        partial: &mut impl AsDeviceViewMut<Elem = MinMax<T>>,
        chunk: usize,
    ) -> Result<()> {
        T::min_max_first(target, cfg, x, partial, chunk)
    }
    fn second(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = MinMax<T>>,
        partial: &mut impl AsDeviceViewMut<Elem = MinMax<T>>,
        chunk: usize,
    ) -> Result<()> {
        T::min_max_second(target, cfg, x, partial, chunk)
    }
}

/// `arg_min` (`MAX = false`) and `arg_max`: `T` → [`Arg<T>`] → [`Arg<T>`].
#[doc(hidden)]
pub struct ArgOf<T, const MAX: bool>(core::marker::PhantomData<T>);

impl<T: Reducible, const MAX: bool> Reduction for ArgOf<T, MAX> {
    type In = T;
    type Acc = Arg<T>;
    const EMPTY_OK: bool = false;
    const ORDER_FREE: bool = T::EXACT;
    fn first(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = T>,
        partial: &mut impl AsDeviceViewMut<Elem = Arg<T>>,
        chunk: usize,
    ) -> Result<()> {
        T::arg_first(arg_kind(MAX), target, cfg, x, partial, chunk)
    }
    fn second(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Arg<T>>,
        partial: &mut impl AsDeviceViewMut<Elem = Arg<T>>,
        chunk: usize,
    ) -> Result<()> {
        T::arg_second(arg_kind(MAX), target, cfg, x, partial, chunk)
    }
}

fn arg_kind(max: bool) -> Kind {
    if max {
        Kind::ArgMax
    } else {
        Kind::ArgMin
    }
}

/// What the autotuner chooses among for the first launch's most blocks (the default
/// 1024 first), for reductions whose result does not depend on the chunking
/// ([`Operator`]s on integers, `min_max`, `arg_min` and `arg_max` of integers): fewer,
/// longer chunks cost fewer blocks and partials, more hide latency better. Float
/// reductions always take 1024, so their rounding is the same on every GPU.
pub const TUNED_BLOCKS: [(&str, usize); 4] = [
    ("blocks1024", MAX_BLOCKS),
    ("blocks512", 512),
    ("blocks256", 256),
    ("blocks128", 128),
];

/// Elements a chunk of a reduction of `n` elements (one block each): a multiple of the 1024
/// elements a block combines a step, and at most 1024 chunks.
fn chunk_for(n: usize) -> usize {
    chunk_for_blocks(n, MAX_BLOCKS)
}

/// [`chunk_for`] with at most `max_blocks` chunks.
fn chunk_for_blocks(n: usize, max_blocks: usize) -> usize {
    n.div_ceil(max_blocks).div_ceil(4 * BLOCK).max(1) * (4 * BLOCK)
}

/// The partials (one a chunk, at least 1, at most 1024) a reduction of `n` elements leaves:
/// the scratch elements it needs.
pub fn partials_for(n: usize) -> usize {
    n.div_ceil(chunk_for(n)).max(1)
}

/// The two launches of a reduction of `n` elements, as the entries here make them (for a
/// user who launches `kernels` by hand, as the bench does).
#[derive(Clone, Copy, Debug)]
pub struct Launches {
    /// The partials, one a block of the first launch.
    pub partials: usize,
    /// Elements a block of the first launch combines (its `chunk` argument).
    pub chunk: usize,
    /// The first launch: `partials` blocks over the input.
    pub first: LaunchConfig,
    /// The second: one block over the partials, `chunk = partials`.
    pub second: LaunchConfig,
}

/// [`Launches`] for `n` elements, as the entries make them untuned.
pub fn launches(n: usize) -> Launches {
    launches_with(n, MAX_BLOCKS)
}

/// [`Launches`] for `n` elements in at most `max_blocks` chunks (one of
/// [`TUNED_BLOCKS`]): what the entries launch when the autotuner chose `max_blocks`.
pub fn launches_with(n: usize, max_blocks: usize) -> Launches {
    let chunk = chunk_for_blocks(n, max_blocks.clamp(1, MAX_BLOCKS));
    let partials = n.div_ceil(chunk).max(1);
    Launches {
        partials,
        chunk,
        first: LaunchConfig::new(partials as u32, BLOCK as u32),
        second: LaunchConfig::new(1, BLOCK as u32),
    }
}

/// The two launches of `R` over `x` into `out` (one element), with the caller's scratch,
/// after the checks every entry shares.
fn run<R: Reduction>(
    what: &str,
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = R::In>,
    out: &mut impl AsDeviceViewMut<Elem = R::Acc>,
    partial: &mut impl AsDeviceViewMut<Elem = R::Acc>,
) -> Result<()> {
    if out.len() != 1 {
        return Err(Error::LengthMismatch {
            what: format!("reduce::{what}: the result"),
            expected: 1,
            found: out.len(),
        });
    }
    if !R::EMPTY_OK && x.is_empty() {
        return Err(Error::LengthMismatch {
            what: format!(
                "reduce::{what}: the input (an operator without an identity has no result for nothing)"
            ),
            expected: 1,
            found: 0,
        });
    }
    let need = partials_for(x.len());
    if partial.len() < need {
        return Err(Error::LengthMismatch {
            what: format!("reduce::{what}: the scratch (partials_for(x.len()))"),
            expected: need,
            found: partial.len(),
        });
    }
    let n = x.len();
    let mut whole = partial.as_device_view_mut();
    let mut partial = whole.slice_mut(..need);
    // Exactly the partials: the second launch combines all of its input.
    let mut launch = |l: &Launches| {
        let mut partial = partial.slice_mut(..l.partials);
        R::first(target, l.first, x, &mut partial, l.chunk)?;
        R::second(target, l.second, &partial, out, l.partials)
    };
    if R::ORDER_FREE && crate::tune::worth_it("reduce", n) {
        // The candidates write only `out` and the partials, which the chosen run
        // overwrites; `x` is only read. Fewer blocks never need more partials.
        let candidates = TUNED_BLOCKS.map(|(label, blocks)| (label, launches_with(n, blocks)));
        let key = crate::tune::key::<R>(target, "reduce", &[n]);
        let choice = warpspeed_core::autotune::Tuner::new(key, &candidates, TUNED_BLOCKS[0].0)
            .valid(|l| l.partials <= need)
            .choose(target, &mut launch)?;
        return launch(choice.config);
    }
    launch(&launches(n))
}

/// `R` of `x`, downloaded, with scratch allocated for the call.
fn run_to_host<R: Reduction>(
    what: &str,
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = R::In>,
) -> Result<R::Acc> {
    let dev = target.device();
    let mut out = dev.zeros::<R::Acc>(1)?;
    let mut partial = dev.zeros::<R::Acc>(partials_for(x.len()))?;
    run::<R>(what, target, x, &mut out, &mut partial)?;
    Ok(out.download()?[0])
}

/// `x` combined by the operator `O`, downloaded (which waits for `target`'s work): the
/// identity for an empty `x`.
///
/// # Errors
/// [`Error::LengthMismatch`] for an empty `x` where `O` has no identity (before anything is
/// launched), and whatever a launch or an allocation returns.
///
/// ```
/// use warpspeed::algorithms::{operator::Max, reduce};
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[3i64, -9, 12, 5])?;
/// assert_eq!(reduce::reduce::<Max<i64>>(&dev, &x)?, 12);
/// # Ok(())
/// # }
/// ```
pub fn reduce<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
) -> Result<O::Elem> {
    run_to_host::<O>("reduce", target, x)
}

/// [`reduce`] into `out` (exactly one element), queued on `target` (a `&Device` or a
/// `&Stream`) without waiting; scratch is allocated for the call.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` is not one element or `x` is empty where `O` has
/// no identity (before anything is launched), and whatever a launch or an allocation
/// returns.
pub fn reduce_into<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    let mut partial = target.device().zeros::<O::Elem>(partials_for(x.len()))?;
    run::<O>("reduce_into", target, x, out, &mut partial)
}

/// [`reduce_into`] with the caller's scratch: `partial` holds at least
/// [`partials_for`]`(x.len())` elements (at most 1024), so repeated calls allocate nothing.
///
/// # Errors
/// As [`reduce_into`], and [`Error::LengthMismatch`] when `partial` is too short.
pub fn reduce_into_with_scratch<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    partial: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    run::<O>("reduce_into_with_scratch", target, x, out, partial)
}

/// The sum of `x`, downloaded: zero for an empty `x`. Integers wrap; floats are added in
/// the order the module documents.
///
/// # Errors
/// Whatever a launch or an allocation returns.
///
/// ```
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
pub fn sum<T: Reducible>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    run_to_host::<Sum<T>>("sum", target, x)
}

/// The sum of `x` into `out` (exactly one element), queued on `target` (a `&Device` or a
/// `&Stream`) without waiting.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` is not one element (before anything is launched),
/// and whatever a launch or an allocation returns.
pub fn sum_into<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    let mut partial = target.device().zeros::<T>(partials_for(x.len()))?;
    run::<Sum<T>>("sum_into", target, x, out, &mut partial)
}

/// [`sum_into`] with the caller's scratch: `partial` holds at least
/// [`partials_for`]`(x.len())` elements (at most 1024), so repeated sums allocate nothing.
///
/// # Errors
/// As [`sum_into`], and [`Error::LengthMismatch`] when `partial` is too short.
pub fn sum_into_with_scratch<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
    partial: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    run::<Sum<T>>("sum_into_with_scratch", target, x, out, partial)
}

/// The least element of `x`, downloaded (`T::min`: a float NaN is passed over unless every
/// element is NaN).
///
/// # Errors
/// [`Error::LengthMismatch`] for an empty `x` (before anything is launched), and whatever
/// a launch or an allocation returns.
pub fn min<T: Reducible>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    run_to_host::<Min<T>>("min", target, x)
}

/// The greatest element of `x`, downloaded (`T::max`), as [`min`].
///
/// # Errors
/// As [`min`].
pub fn max<T: Reducible>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    run_to_host::<Max<T>>("max", target, x)
}

/// The least and the greatest element of `x` in one pass, downloaded: `(min(x), max(x))`.
///
/// # Errors
/// As [`min`].
///
/// ```
/// use warpspeed::algorithms::reduce;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[2.5f32, f32::NAN, -1.0, 7.0])?;
/// assert_eq!(reduce::min_max(&dev, &x)?, (-1.0, 7.0));
/// # Ok(())
/// # }
/// ```
pub fn min_max<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
) -> Result<(T, T)> {
    let m = run_to_host::<MinMaxOf<T>>("min_max", target, x)?;
    Ok((m.lo, m.hi))
}

/// The index and value of the least element of `x`, downloaded: the first such element
/// where several are equal. NaNs are passed over, as [`min`] passes them over, unless
/// every element is NaN (then the first).
///
/// # Errors
/// As [`min`].
///
/// ```
/// use warpspeed::algorithms::reduce;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[4u8, 1, 9, 1, 9])?;
/// assert_eq!(reduce::arg_min(&dev, &x)?, (1, 1));
/// assert_eq!(reduce::arg_max(&dev, &x)?, (2, 9));
/// # Ok(())
/// # }
/// ```
pub fn arg_min<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
) -> Result<(usize, T)> {
    let a = run_to_host::<ArgOf<T, false>>("arg_min", target, x)?;
    Ok((a.index as usize, a.value))
}

/// The index and value of the greatest element of `x`, downloaded, as [`arg_min`].
///
/// # Errors
/// As [`min`].
pub fn arg_max<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
) -> Result<(usize, T)> {
    let a = run_to_host::<ArgOf<T, true>>("arg_max", target, x)?;
    Ok((a.index as usize, a.value))
}
