//! Warp functions: votes and shuffles among the lanes of a mask. Every lane named in the
//! mask must call the same function (the simulator reports a lane that does not).
//!
//! The shuffles take an optional fourth argument inside kernels, `width`, as CUDA's do
//! (its default argument `width = warpSize`): `shfl_down_sync(mask, v, 1, 16)` shuffles
//! within each 16-lane half. Rust has no optional arguments, so the signatures below show
//! the three-argument form; each shuffle's "Width" section says what the fourth argument
//! does, with an example that runs on the simulator. `width` is a `u32`, a power of two
//! from 1 to 32; it splits the warp into segments of `width` consecutive lanes, and lane
//! numbers (`src_lane`, `delta`, `lane_mask`) count within the caller's segment.

use super::outside_kernel;

/// A value warp functions exchange: a kernel scalar that is not a vector type (exchange a
/// vector's lanes one by one).
pub trait WarpValue: Copy + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! warp_values {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl WarpValue for $t {}
    )*};
}
warp_values!(
    bool,
    i8,
    i16,
    i32,
    i64,
    isize,
    u8,
    u16,
    u32,
    u64,
    usize,
    f32,
    f64,
    crate::f16,
    crate::f16x2,
    crate::e4m3,
    crate::e5m2,
    crate::bf16,
    crate::bf16x2
);

/// The lanes converged at this point (`__activemask`), as bits.
pub fn active_mask() -> u32 {
    outside_kernel("active_mask")
}

/// The lanes of `mask` whose `predicate` holds, as bits (`__ballot_sync`).
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    let _ = (mask, predicate);
    outside_kernel("ballot_sync")
}

/// Whether `predicate` holds on every lane of `mask` (`__all_sync`).
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    let _ = (mask, predicate);
    outside_kernel("all_sync")
}

/// Whether `predicate` holds on some lane of `mask` (`__any_sync`).
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    let _ = (mask, predicate);
    outside_kernel("any_sync")
}

/// The `value` of lane `src_lane` (`__shfl_sync`).
///
/// # Width
/// `shfl_sync(mask, value, src_lane, width)` reads lane `src_lane % width` of the
/// caller's segment of `width` lanes: lane `lane_id() / width * width + src_lane % width`.
/// A broadcast within each segment:
///
/// ```
/// # extern crate warpspeed_core as warpspeed;
/// use warpspeed::prelude::*;
///
/// /// Every lane gets the value of the first lane of its 8-lane segment.
/// #[gpu_kernel]
/// fn firsts_of_eight(x: &[u32], out: &mut [u32]) {
///     let i = grid_1d();
///     out[i] = shfl_sync(u32::MAX, x[i], 0, 8);
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x: Vec<u32> = (100..132).collect();
/// let mut out = dev.zeros::<u32>(32)?;
/// firsts_of_eight::launch(&dev, LaunchConfig::new(1, 32), &dev.upload(&x)?, &mut out)?;
/// let want: Vec<u32> = (0..32).map(|lane| 100 + lane / 8 * 8).collect();
/// assert_eq!(out.download()?, want);
/// # Ok(()) }
/// ```
pub fn shfl_sync<T: WarpValue>(mask: u32, value: T, src_lane: u32) -> T {
    let _ = (mask, value, src_lane);
    outside_kernel("shfl_sync")
}

/// The `value` of lane `lane_id() - delta`; lanes below `delta` keep their own
/// (`__shfl_up_sync`).
///
/// # Width
/// `shfl_up_sync(mask, value, delta, width)` shifts within each segment of `width` lanes:
/// a lane whose index in its segment (`lane_id() % width`) is below `delta` keeps its own
/// value. An inclusive prefix sum of each 16-lane half:
///
/// ```
/// # extern crate warpspeed_core as warpspeed;
/// use warpspeed::prelude::*;
///
/// #[gpu_kernel]
/// fn half_warp_scan(x: &[u32], out: &mut [u32]) {
///     let i = grid_1d();
///     let mut v = x[i];
///     let mut delta = 1u32;
///     while delta < 16 {
///         let up = shfl_up_sync(u32::MAX, v, delta, 16);
///         if lane_id() % 16 >= delta {
///             v += up;
///         }
///         delta *= 2;
///     }
///     out[i] = v;
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x: Vec<u32> = (1..=32).collect();
/// let mut out = dev.zeros::<u32>(32)?;
/// half_warp_scan::launch(&dev, LaunchConfig::new(1, 32), &dev.upload(&x)?, &mut out)?;
/// let want: Vec<u32> = (0..32u32)
///     .map(|lane| (lane / 16 * 16 + 1..=lane + 1).sum())
///     .collect();
/// assert_eq!(out.download()?, want);
/// # Ok(()) }
/// ```
pub fn shfl_up_sync<T: WarpValue>(mask: u32, value: T, delta: u32) -> T {
    let _ = (mask, value, delta);
    outside_kernel("shfl_up_sync")
}

/// The `value` of lane `lane_id() + delta`; lanes past the end keep their own
/// (`__shfl_down_sync`), the step of a warp reduction.
///
/// # Width
/// `shfl_down_sync(mask, value, delta, width)` shifts within each segment of `width`
/// lanes: a lane whose index in its segment plus `delta` reaches `width` keeps its own
/// value. Four independent 8-lane reductions, each total in its segment's first lane:
///
/// ```
/// # extern crate warpspeed_core as warpspeed;
/// use warpspeed::prelude::*;
///
/// #[gpu_kernel]
/// fn sums_of_eight(x: &[f32], out: &mut [f32]) {
///     let i = grid_1d();
///     let mut v = x[i];
///     let mut delta = 4u32;
///     while delta > 0 {
///         v += shfl_down_sync(u32::MAX, v, delta, 8);
///         delta /= 2;
///     }
///     if lane_id() % 8 == 0 {
///         out[i / 8] = v;
///     }
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x: Vec<f32> = (0..32).map(|k| k as f32).collect();
/// let mut out = dev.zeros::<f32>(4)?;
/// sums_of_eight::launch(&dev, LaunchConfig::new(1, 32), &dev.upload(&x)?, &mut out)?;
/// assert_eq!(out.download()?, vec![28.0, 92.0, 156.0, 220.0]);
/// # Ok(()) }
/// ```
pub fn shfl_down_sync<T: WarpValue>(mask: u32, value: T, delta: u32) -> T {
    let _ = (mask, value, delta);
    outside_kernel("shfl_down_sync")
}

/// The `value` of lane `lane_id() ^ lane_mask` (`__shfl_xor_sync`), the butterfly step.
///
/// # Width
/// `shfl_xor_sync(mask, value, lane_mask, width)` exchanges within each segment of
/// `width` lanes (a `lane_mask` below `width` never leaves it; a lane whose partner lies
/// in a later segment keeps its own value, as CUDA's does). A butterfly sum of each
/// 16-lane half, which every lane of the half ends up holding (the row sum of a softmax
/// with two 16-wide rows per warp):
///
/// ```
/// # extern crate warpspeed_core as warpspeed;
/// use warpspeed::prelude::*;
///
/// #[gpu_kernel]
/// fn half_sums(x: &[u32], out: &mut [u32]) {
///     let i = grid_1d();
///     let mut v = x[i];
///     let mut lane_mask = 8u32;
///     while lane_mask > 0 {
///         v += shfl_xor_sync(u32::MAX, v, lane_mask, 16);
///         lane_mask /= 2;
///     }
///     out[i] = v;
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x: Vec<u32> = (0..32).collect();
/// let mut out = dev.zeros::<u32>(32)?;
/// half_sums::launch(&dev, LaunchConfig::new(1, 32), &dev.upload(&x)?, &mut out)?;
/// let (low, high): (u32, u32) = ((0..16).sum(), (16..32).sum());
/// assert_eq!(out.download()?, [vec![low; 16], vec![high; 16]].concat());
/// # Ok(()) }
/// ```
pub fn shfl_xor_sync<T: WarpValue>(mask: u32, value: T, lane_mask: u32) -> T {
    let _ = (mask, value, lane_mask);
    outside_kernel("shfl_xor_sync")
}

/// The lanes of `mask` whose `value` equals this lane's, as bits (`__match_any_sync`).
pub fn match_any_sync<T: WarpValue>(mask: u32, value: T) -> u32 {
    let _ = (mask, value);
    outside_kernel("match_any_sync")
}
