//! warpspeed: write CUDA kernels in Rust.
//!
//! `#[gpu_kernel]` translates a restricted Rust function into CUDA C while cargo builds;
//! at run time NVRTC compiles it for the GPU present, and `<kernel>::launch` runs it.
//! See README.md for the language and a first kernel.

mod atomic_float;
pub mod kernel;

pub use atomic_float::{AtomicBf16, AtomicBf16x2, AtomicF16, AtomicF16x2, AtomicF32, AtomicF64};
#[doc(hidden)]
pub use warpspeed_macros::__gpu_resolved;
pub use warpspeed_macros::{gpu_device, gpu_kernel, gpu_struct};
pub use warpspeed_runtime::*;

/// `use warpspeed::prelude::*;` brings the macros, the host API ([`Device`],
/// [`DeviceBuffer`] and its views [`DeviceView`]/[`DeviceViewMut`], [`LaunchConfig`],
/// [`Error`], [`Stream`], [`Event`], [`PinnedBuffer`] and its views [`PinnedView`]/
/// [`PinnedViewMut`]), the kernel language's vocabulary
/// ([`kernel`]: `thread_idx`, `sync_threads`, `SharedArray`, ...), the bounds of generic
/// kernels ([`Float`], [`Int`], [`Scalar`]) and of buffers ([`KernelScalar`]: what a
/// `DeviceBuffer<T>` holds, so that host code generic over buffers, of `#[gpu_struct]`s
/// too, names its bound without another import), the 16-bit and fp8 float types and the
/// vector types kernels name in their signatures (`&[bf16]`, `&[f32x4]`) with their
/// [`Vector`] trait into scope. It leaves out [`Result`], which would shadow the standard
/// one.
///
/// ```
/// # extern crate warpspeed_core as warpspeed;
/// use warpspeed::prelude::*;
///
/// #[gpu_struct]
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub struct Particle {
///     pub x: f32,
///     pub mass: f64,
/// }
///
/// /// Host code generic over what a buffer holds: scalars and `#[gpu_struct]`s alike.
/// fn round_trip<T: KernelScalar>(dev: &Device, values: &[T]) -> Result<Vec<T>, Error> {
///     let buffer: DeviceBuffer<T> = dev.upload(values)?;
///     buffer.download()
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let ps = [Particle { x: 1.5, mass: 2.0 }, Particle { x: -3.0, mass: 0.25 }];
/// assert_eq!(round_trip(&dev, &ps)?, ps);
/// assert_eq!(round_trip(&dev, &[7u32, 8])?, [7, 8]);
/// # Ok(()) }
/// ```
pub mod prelude {
    pub use crate::kernel::*;
    pub use crate::swizzle::Swizzle;
    pub use crate::{bf16, bf16x2, e4m3, e5m2, f16, f16x2};
    pub use crate::{f32x2, f32x4, f64x2, i32x2, i32x4, u32x2, u32x4, Vector};
    pub use crate::{gpu_device, gpu_kernel, gpu_struct};
    pub use crate::{AddressMode, TensorMap, Texture2D};
    pub use crate::{Device, DeviceBuffer, DeviceView, DeviceViewMut, Error, LaunchConfig};
    pub use crate::{Event, PinnedBuffer, PinnedView, PinnedViewMut, Stream};
    pub use crate::{Float, Int, KernelScalar, Scalar};
}

#[doc(hidden)]
pub mod __private {
    pub use warpspeed_runtime::__private::*;
}
