//! Histograms of a buffer or view on a GPU or the simulator: [`even`] (bins of equal width
//! over `[lo, hi)`) and [`range`] (bins between given levels), for every integer type and
//! `f32`/`f64` samples, any bin count from 1 to 65536, into `u32` counts.
//!
//! **Counts are overwritten**, not added to: each call first zeroes `counts` (also for an
//! empty input), then counts. Samples outside the bins, and NaNs, are not counted. A count
//! wraps past 2^32 - 1, as a `u32` atomic does.
//!
//! **Which bin.** [`even`] of an integer sample `x` is bin `floor((x - lo) bins / (hi -
//! lo))` exactly, computed without rounding (in effect in unbounded integers); an integer
//! histogram's `lo` and `hi` are `i128` ([`Sample::Level`]), so that `hi` may be one past
//! the type's greatest value (`0, 256` with 256 bins: a bin for each `u8`). Of a float
//! sample, `((x - lo) * scale)` truncated and at most `bins - 1`, with
//! `scale = bins / (hi - lo)` computed once on the host in the samples' type; every
//! operation is one IEEE operation, never fused, so the GPU, the simulator and this formula
//! on the host give the same bin, bit for bit. Near a bin's edge that is the bin the
//! rounded formula gives, which may be the neighbour of the bin of the exact quotient (as
//! CUB's `HistogramEven` and `numpy.histogram` also round). [`range`] puts `x` in bin `i`
//! when `levels[i] <= x < levels[i + 1]`.
//!
//! **How.** While a block's copies of the bins fit in 48 KiB of shared memory (up to
//! [`SHARED_BINS`] bins), each block counts into its own copies (a copy a warp for 256 bins,
//! so warps never share a counter) and adds them to `counts` at the end; one-value data
//! costs what uniform data costs, since the hardware merges the lanes of a warp that add 1
//! to the same shared counter. More bins go to `counts` directly, each warp first
//! aggregating its lanes' equal bins with `match_any_sync` into one atomic.
//! algorithms/src/kernels/histogram.rs has the kernels; docs/algorithms.md the figures.
//!
//! **Autotuning.** From 2^20 samples the grid's most blocks a multiprocessor is the one
//! of [`TUNED_BLOCKS_PER_SM`] that `warpspeed::autotune` timed fastest on this GPU (counts
//! are integer atomics: the same whatever the grid); `WARPSPEED_AUTOTUNE=off`: 2.
//!
//! **Bad input**, refused before anything is launched: zero bins or more than 65536;
//! `lo >= hi` (or NaN); an integer range wider than 2^64; a float range whose width or
//! scale is not finite; levels that are not `counts.len() + 1` long or not strictly
//! ascending (NaN included). [`range`]'s levels have the samples' type, so its last level
//! cannot pass the type's greatest value, which it then does not count: use [`even`], or
//! wider samples.
//!
//! ```
//! use warpspeed::algorithms::histogram;
//! use warpspeed::prelude::*;
//!
//! # fn main() -> Result<(), Error> {
//! let dev = Device::simulator();
//! let x = dev.upload(&[0.5f32, 1.5, 1.7, 3.9, 4.0, -1.0, f32::NAN])?;
//! let mut counts = dev.zeros::<u32>(4)?;
//! histogram::even(&dev, &x, &mut counts, 0.0, 4.0)?; // bins [0,1) [1,2) [2,3) [3,4)
//! assert_eq!(counts.download()?, vec![1, 2, 0, 1]);
//! histogram::range(&dev, &x, &[-1.0, 1.0, 4.0, 5.0], &mut counts.slice_mut(..3))?;
//! assert_eq!(counts.download()?, vec![2, 3, 1, 1]);
//! # Ok(())
//! # }
//! ```

pub use crate::kernels::histogram as kernels;
pub use crate::kernels::histogram::unchecked;
use crate::kernels::histogram::BLOCK;
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, LaunchTarget, Result};

/// The most bins: 65536.
pub const MAX_BINS: usize = 65536;
/// The most bins counted in shared memory (a block's 48 KiB of `u32` counters); more bins
/// are counted with global atomics.
pub const SHARED_BINS: usize = 12288;
/// The most copies of the bins a block keeps: one a warp.
const MAX_COPIES: usize = 32;

/// A sample type of the histograms: every integer type, `f32` and `f64`. Sealed: the
/// impls pick the kernels of the type's family.
pub trait Sample: Scalar + sealed::Sealed {
    /// The type of [`even`]'s `lo` and `hi`: the sample type for floats, `i128` for
    /// integers, so that `hi` may be one past the type's greatest value (`0..256` for all
    /// of `u8`'s values, `0..1 << 64` for `u64`'s).
    type Level: Copy + core::fmt::Debug + core::fmt::Display + PartialOrd;
    /// The parameters of [`even`]'s binning for `bins` bins over `[lo, hi)`; `Ok(None)`
    /// when no value of the type lies in it; `Err`: why there are none.
    #[doc(hidden)]
    fn even_params(
        lo: Self::Level,
        hi: Self::Level,
        bins: usize,
    ) -> core::result::Result<Option<EvenParams<Self>>, String>;
    #[doc(hidden)]
    fn even_launch(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        shared: Option<usize>,
        x: &impl AsDeviceView<Elem = Self>,
        counts: &mut impl AsDeviceViewMut<Elem = u32>,
        p: &EvenParams<Self>,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
}

/// What [`even`]'s kernels take besides the samples, computed once on the host. Not an API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct EvenParams<T> {
    /// Floats: `lo` and `hi`; integers: the least and the greatest value of `T` in
    /// `[lo, hi)`.
    pub lo: T,
    pub hi: T,
    pub bins: usize,
    /// Floats: `bins / (hi - lo)` in `T`.
    pub scale: T,
    /// Integers: `lo` modulo 2^64, `hi - lo = q bins + r`, and `bins / (hi - lo)` in `f64`.
    pub lo64: u64,
    pub q: u64,
    pub r: u64,
    pub fscale: f64,
}

macro_rules! float_sample {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Sample for $t {
            type Level = $t;
            fn even_params(lo: $t, hi: $t, bins: usize) -> core::result::Result<Option<EvenParams<$t>>, String> {
                // Not `Less` also refuses a NaN.
                if lo.partial_cmp(&hi) != Some(core::cmp::Ordering::Less) {
                    return Err(format!("lo {lo} must be below hi {hi}"));
                }
                let width = hi - lo;
                let scale = bins as $t / width;
                if !width.is_finite() || !scale.is_finite() {
                    return Err(format!(
                        "the width of [{lo}, {hi}) or {bins} bins over it is not finite in {}",
                        stringify!($t)
                    ));
                }
                Ok(Some(EvenParams { lo, hi, bins, scale, lo64: 0, q: 0, r: 0, fscale: 0.0 }))
            }
            fn even_launch(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                shared: Option<usize>,
                x: &impl AsDeviceView<Elem = $t>,
                counts: &mut impl AsDeviceViewMut<Elem = u32>,
                p: &EvenParams<$t>,
            ) -> Result<()> {
                match shared {
                    Some(copies) => kernels::even_shared_float::launch::<$t>(
                        target, cfg, x, counts, p.lo, p.hi, p.scale, copies,
                    ),
                    None => kernels::even_global_float::launch::<$t>(
                        target, cfg, x, counts, p.lo, p.hi, p.scale,
                    ),
                }
            }
        }
    )*};
}
float_sample!(f32, f64);

macro_rules! int_sample {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Sample for $t {
            type Level = i128;
            fn even_params(lo: i128, hi: i128, bins: usize) -> core::result::Result<Option<EvenParams<$t>>, String> {
                if lo >= hi {
                    return Err(format!("lo {lo} must be below hi {hi}"));
                }
                let width = hi.abs_diff(lo);
                if width > 1 << 64 {
                    return Err(format!("hi - lo = {width} passes 2^64"));
                }
                // The values of the type in [lo, hi): none, or first..=last.
                let (min, max) = (<$t>::MIN as i128, <$t>::MAX as i128);
                if lo > max || hi <= min {
                    return Ok(None);
                }
                let b = bins as u128;
                Ok(Some(EvenParams {
                    lo: lo.max(min) as $t,
                    hi: (hi - 1).min(max) as $t,
                    bins,
                    scale: 0,
                    lo64: lo as u64,
                    // Only a single bin has a quotient of 2^64, and it is never used.
                    q: (width / b).min(u64::MAX as u128) as u64,
                    r: (width % b) as u64,
                    fscale: b as f64 / width as f64,
                }))
            }
            fn even_launch(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                shared: Option<usize>,
                x: &impl AsDeviceView<Elem = $t>,
                counts: &mut impl AsDeviceViewMut<Elem = u32>,
                p: &EvenParams<$t>,
            ) -> Result<()> {
                match shared {
                    Some(copies) => kernels::even_shared_int::launch::<$t>(
                        target, cfg, x, counts, p.lo, p.hi, p.lo64, p.q, p.r, p.fscale, copies,
                    ),
                    None => kernels::even_global_int::launch::<$t>(
                        target, cfg, x, counts, p.lo, p.hi, p.lo64, p.q, p.r, p.fscale,
                    ),
                }
            }
        }
    )*};
}
int_sample!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// How a histogram of `n` samples into `bins` bins is launched: its grid, and the copies of
/// the bins a block keeps in shared memory (`None`: global atomics). Public so that the
/// bench and a user launching [`kernels`] by hand use the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The histogram kernel's grid: blocks of 1024 threads, at most two a multiprocessor
    /// (each thread then loops over the samples), fewer for few samples.
    pub cfg: LaunchConfig,
    /// Copies of the bins a block keeps in shared memory (the `copies` argument of the
    /// `*_shared` kernels), `None` when the bins do not fit: the `*_global` kernels.
    pub shared: Option<usize>,
    /// The grid of [`kernels::zero_counts`].
    pub zero: LaunchConfig,
}

/// What the autotuner chooses among for the most blocks a multiprocessor (the default 2
/// first): counts are integer atomics, so every grid gives the same counts, for every
/// sample type.
pub const TUNED_BLOCKS_PER_SM: [(&str, usize); 3] = [("sm2", 2), ("sm1", 1), ("sm4", 4)];

/// The [`Plan`] of `n` samples into `bins` bins (1 to [`MAX_BINS`]) on `dev`, as the
/// entries make it untuned.
pub fn plan(dev: &Device, n: usize, bins: usize) -> Plan {
    plan_with(dev, n, bins, 2)
}

/// [`plan`] with at most `per_sm` blocks a multiprocessor (one of
/// [`TUNED_BLOCKS_PER_SM`]): what the entries launch when the autotuner chose `per_sm`.
pub fn plan_with(dev: &Device, n: usize, bins: usize, per_sm: usize) -> Plan {
    let sms = dev.limits().multiprocessor_count.max(1) as usize;
    // At least eight samples a thread (two rounds of four), and by default two blocks of
    // 1024 threads a multiprocessor at most: every thread a multiprocessor holds, each
    // looping over the samples (more blocks would only zero and merge more copies of the
    // bins).
    let blocks = n.div_ceil(8 * BLOCK as usize).clamp(1, per_sm.max(1) * sms);
    let shared = (bins <= SHARED_BINS).then(|| (SHARED_BINS / bins.max(1)).clamp(1, MAX_COPIES));
    Plan {
        cfg: LaunchConfig::new(blocks as u32, BLOCK),
        shared,
        zero: LaunchConfig::new(bins.div_ceil(256).clamp(1, 1024) as u32, 256),
    }
}

/// Refuses a bin count outside 1..=65536.
fn check_bins(what: &str, bins: usize) -> Result<()> {
    if bins == 0 || bins > MAX_BINS {
        return Err(Error::InvalidArgument {
            what: format!("histogram::{what}: counts"),
            reason: format!("{bins} bins: a histogram has 1 to {MAX_BINS} bins"),
        });
    }
    Ok(())
}

/// Counts `samples` into `counts.len()` bins of equal width over `[lo, hi)`, queued on
/// `target` (a `&Device` or a `&Stream`) without waiting. `counts` is overwritten (zeroed,
/// then counted), also when `samples` is empty; samples outside `[lo, hi)` and NaNs are not
/// counted. Which bin a sample goes to: the module's documentation.
///
/// `lo` and `hi` are [`Sample::Level`]s: of the samples' type for floats, `i128` for
/// integers, so that `hi` may be one past the type's greatest value:
/// `histogram::even(&dev, &bytes, &mut counts, 0, 256)` counts every `u8`, one bin a value
/// with 256 bins (a variable of the samples' type goes in with `i128::from(v)`, or
/// `v as i128` for `u64` and `usize`).
///
/// # Errors
/// [`Error::InvalidArgument`], before anything is launched, when `counts` has no element or
/// more than 65536, when `lo >= hi` (or either is NaN), for integers when `hi - lo` passes
/// 2^64, for floats when `hi - lo` or `counts.len() / (hi - lo)` is not finite; and
/// whatever a launch returns.
pub fn even<T: Sample>(
    target: &impl LaunchTarget,
    samples: &impl AsDeviceView<Elem = T>,
    counts: &mut impl AsDeviceViewMut<Elem = u32>,
    lo: T::Level,
    hi: T::Level,
) -> Result<()> {
    let bins = counts.len();
    check_bins("even", bins)?;
    let p = T::even_params(lo, hi, bins).map_err(|reason| Error::InvalidArgument {
        what: "histogram::even: lo, hi".into(),
        reason,
    })?;
    let mut launch = |plan: &Plan| {
        kernels::zero_counts::launch(target, plan.zero, counts)?;
        match p {
            // No value of the type lies in [lo, hi), or nothing to count.
            None => Ok(()),
            Some(_) if samples.is_empty() => Ok(()),
            Some(p) => T::even_launch(target, plan.cfg, plan.shared, samples, counts, &p),
        }
    };
    let plan = tuned_plan::<T>("histogram::even", target, samples.len(), bins, &mut launch)?;
    launch(&plan)
}

/// The plan to launch: tuned among [`TUNED_BLOCKS_PER_SM`] for `n` samples from
/// 2^20 on (or when forced), else [`plan`]. `launch` runs one plan (the candidates
/// write only `counts`, which each run zeroes and the chosen run counts again; the
/// samples are only read).
fn tuned_plan<T: Sample>(
    algorithm: &str,
    target: &impl LaunchTarget,
    n: usize,
    bins: usize,
    launch: &mut impl FnMut(&Plan) -> Result<()>,
) -> Result<Plan> {
    let dev = target.device();
    if !crate::tune::worth_it(algorithm, n) {
        return Ok(plan(dev, n, bins));
    }
    let candidates =
        TUNED_BLOCKS_PER_SM.map(|(label, per_sm)| (label, plan_with(dev, n, bins, per_sm)));
    let key = crate::tune::key::<T>(target, algorithm, &[n, bins]);
    let choice = warpspeed_core::autotune::Tuner::new(key, &candidates, TUNED_BLOCKS_PER_SM[0].0)
        .choose(target, launch)?;
    Ok(*choice.config)
}

/// The greatest power of two at most `bins` (the binary search's first step).
fn top(bins: usize) -> usize {
    1 << (usize::BITS - 1 - bins.max(1).leading_zeros())
}

/// Refuses levels that are not `bins + 1` strictly ascending values.
fn check_levels<T: Sample>(what: &str, levels: &[T], bins: usize) -> Result<()> {
    if levels.len() != bins + 1 {
        return Err(Error::LengthMismatch {
            what: format!("histogram::{what}: levels (counts.len() + 1)"),
            expected: bins + 1,
            found: levels.len(),
        });
    }
    // Not `Less` also refuses a NaN.
    if let Some(i) = levels
        .windows(2)
        .position(|w| w[0].partial_cmp(&w[1]) != Some(core::cmp::Ordering::Less))
    {
        return Err(Error::InvalidArgument {
            what: format!("histogram::{what}: levels"),
            reason: format!(
                "levels must ascend strictly, but levels[{i}] = {:?} and levels[{}] = {:?}",
                levels[i],
                i + 1,
                levels[i + 1]
            ),
        });
    }
    Ok(())
}

/// Counts `samples` into `counts.len()` bins between the `counts.len() + 1` strictly
/// ascending `levels`: bin `i` is `[levels[i], levels[i + 1])`. Queued on `target` without
/// waiting; `counts` is overwritten (zeroed, then counted), also when `samples` is empty;
/// samples below the first level, at or above the last, and NaNs are not counted. Each
/// sample finds its bin by a binary search.
///
/// The levels are a host slice: they are checked on the host (a device buffer would have
/// to be downloaded for that, which waits for the queue; the levels are small) and uploaded
/// for the call into scratch that [`range_with_scratch`] lets the caller give. The upload
/// goes on the device's own queue, which is ordered after all earlier work of the device
/// (as CUDA's legacy default stream), so the call is safe on any stream.
///
/// # Errors
/// [`Error::InvalidArgument`], before anything is launched, when `counts` has no element or
/// more than 65536, or the levels do not ascend strictly (a NaN among them included);
/// [`Error::LengthMismatch`] when `levels.len()` is not `counts.len() + 1`; and whatever an
/// allocation, the upload or a launch returns.
pub fn range<T: Sample>(
    target: &impl LaunchTarget,
    samples: &impl AsDeviceView<Elem = T>,
    levels: &[T],
    counts: &mut impl AsDeviceViewMut<Elem = u32>,
) -> Result<()> {
    let bins = counts.len();
    check_bins("range", bins)?;
    check_levels("range", levels, bins)?;
    let mut scratch = target.device().upload(levels)?;
    run_range(target, samples, &mut scratch, counts)
}

/// [`range`] with the caller's scratch for the levels, at least `counts.len() + 1` elements
/// (they are copied into its first `counts.len() + 1`), so repeated calls allocate nothing.
///
/// # Errors
/// As [`range`], and [`Error::LengthMismatch`] when `scratch` is too short.
pub fn range_with_scratch<T: Sample>(
    target: &impl LaunchTarget,
    samples: &impl AsDeviceView<Elem = T>,
    levels: &[T],
    counts: &mut impl AsDeviceViewMut<Elem = u32>,
    scratch: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    let bins = counts.len();
    check_bins("range_with_scratch", bins)?;
    check_levels("range_with_scratch", levels, bins)?;
    if scratch.len() < bins + 1 {
        return Err(Error::LengthMismatch {
            what: "histogram::range_with_scratch: the scratch (counts.len() + 1)".into(),
            expected: bins + 1,
            found: scratch.len(),
        });
    }
    let mut whole = scratch.as_device_view_mut();
    let mut own = whole.slice_mut(..bins + 1);
    own.copy_from_host(levels)?;
    run_range(target, samples, &mut own, counts)
}

/// The launches of [`range`], the levels on the device.
fn run_range<T: Sample>(
    target: &impl LaunchTarget,
    samples: &impl AsDeviceView<Elem = T>,
    levels: &mut impl AsDeviceViewMut<Elem = T>,
    counts: &mut impl AsDeviceViewMut<Elem = u32>,
) -> Result<()> {
    let bins = counts.len();
    let mut launch = |plan: &Plan| {
        kernels::zero_counts::launch(target, plan.zero, counts)?;
        if samples.is_empty() {
            return Ok(());
        }
        match plan.shared {
            Some(copies) => kernels::range_shared::launch::<T>(
                target,
                plan.cfg,
                samples,
                counts,
                &*levels,
                top(bins),
                copies,
            ),
            None => kernels::range_global::launch::<T>(
                target,
                plan.cfg,
                samples,
                counts,
                &*levels,
                top(bins),
            ),
        }
    };
    let plan = tuned_plan::<T>("histogram::range", target, samples.len(), bins, &mut launch)?;
    launch(&plan)
}
