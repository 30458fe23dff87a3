//! Warp functions: votes and shuffles among the lanes of a mask. Every lane named in the
//! mask must call the same function (the simulator reports a lane that does not).
//!
//! The shuffles take an optional last argument inside kernels, `width` (a power of two up
//! to 32, as CUDA's default argument `width = warpSize`): `shfl_down_sync(mask, v, 1, 16)`
//! shuffles within each 16-lane half. Rust has no optional arguments, so the signatures
//! below show the three-argument form.

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
    crate::f16x2
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
pub fn shfl_sync<T: WarpValue>(mask: u32, value: T, src_lane: u32) -> T {
    let _ = (mask, value, src_lane);
    outside_kernel("shfl_sync")
}

/// The `value` of lane `lane_id() - delta`; lanes below `delta` keep their own
/// (`__shfl_up_sync`).
pub fn shfl_up_sync<T: WarpValue>(mask: u32, value: T, delta: u32) -> T {
    let _ = (mask, value, delta);
    outside_kernel("shfl_up_sync")
}

/// The `value` of lane `lane_id() + delta`; lanes past the end keep their own
/// (`__shfl_down_sync`), the step of a warp reduction.
pub fn shfl_down_sync<T: WarpValue>(mask: u32, value: T, delta: u32) -> T {
    let _ = (mask, value, delta);
    outside_kernel("shfl_down_sync")
}

/// The `value` of lane `lane_id() ^ lane_mask` (`__shfl_xor_sync`), the butterfly step.
pub fn shfl_xor_sync<T: WarpValue>(mask: u32, value: T, lane_mask: u32) -> T {
    let _ = (mask, value, lane_mask);
    outside_kernel("shfl_xor_sync")
}

/// The lanes of `mask` whose `value` equals this lane's, as bits (`__match_any_sync`).
pub fn match_any_sync<T: WarpValue>(mask: u32, value: T) -> u32 {
    let _ = (mask, value);
    outside_kernel("match_any_sync")
}
