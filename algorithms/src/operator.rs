//! Operators: what [`reduce::reduce`](crate::reduce::reduce) combines elements with.
//!
//! An operator is a type that names an associative `#[gpu_device]` function of two
//! elements and, where it has one, its identity. The library's own are [`Sum`], [`Min`]
//! and [`Max`] for every integer and float type; [`operator!`](crate::operator!) makes one
//! from a user's function, for any kernel scalar or `#[gpu_struct]` type:
//!
//! ```
//! # mod warpspeed { pub use warpspeed_core::*; pub mod algorithms { pub use warpspeed_algorithms::*; } }
//! use warpspeed::algorithms::{operator, reduce};
//! use warpspeed::prelude::*;
//!
//! /// The one of two values nearer zero.
//! #[gpu_device]
//! fn nearer_zero(a: f32, b: f32) -> f32 {
//!     if b.abs() < a.abs() { b } else { a }
//! }
//!
//! operator! {
//!     /// The value nearest zero (`f32::INFINITY` for nothing).
//!     pub struct NearestZero { elem: f32, combine: nearer_zero, identity: f32::INFINITY }
//! }
//!
//! # fn main() -> Result<(), Error> {
//! let dev = Device::simulator();
//! let x = dev.upload(&[3.5f32, -0.25, 7.0, 0.5])?;
//! assert_eq!(reduce::reduce::<NearestZero>(&dev, &x)?, -0.25);
//! # Ok(())
//! # }
//! ```
//!
//! **What the operator must be.** Associative (`f(f(a, b), c) == f(a, f(b, c))`), as every
//! parallel reduction assumes: the kernels combine in a tree whose shape depends on the
//! length. It need not be commutative for the result to be defined, but the order the
//! kernels combine in is not left to right (the `reduce` module documents it), so a
//! non-commutative operator gives a result nobody asked for; write commutative ones. The
//! identity `e` must satisfy `f(e, x) == f(x, e) == x`: each thread starts from it, and
//! the reduction of an empty input is `e`. A float operator such as `+` is associative
//! only up to rounding, so its result depends on the order, which is fixed for a given
//! length: the same on every run and on both backends.

use warpspeed_core::{
    AsDeviceView, AsDeviceViewMut, KernelScalar, LaunchConfig, LaunchTarget, Result,
};

/// The words a single-pass scan launch publishes its tiles' values in (the scan's
/// scratch, `crate::status::TileStatus`): `status` (each word a flag or the epoch beside
/// a value's bits, or half of them), the tile `counter` and the launch's `epoch`.
#[doc(hidden)]
pub struct LookbackWords<'a> {
    pub status: &'a mut warpspeed_core::DeviceBuffer<u64>,
    pub counter: &'a mut warpspeed_core::DeviceBuffer<u32>,
    pub epoch: u32,
}

/// An associative operator on [`Self::Elem`] with, where it has one, an identity: what
/// [`reduce::reduce`](crate::reduce::reduce) combines elements with. Implemented by
/// [`operator!`](crate::operator!) for a user's `#[gpu_device]` function, and by [`Sum`],
/// [`Min`] and [`Max`].
pub trait Operator: 'static {
    /// The type the operator combines.
    type Elem: KernelScalar;
    /// Whether the operator has an identity: then the reduction of an empty input is the
    /// identity; without one ([`Min`], [`Max`]) an empty input is an error.
    const HAS_IDENTITY: bool;
    /// Whether the result is the same whatever the order and grouping of the combining
    /// steps (integer sums, minima and maxima): then the autotuner may choose how the
    /// input is chunked (`crate::autotune`). `false` for a user's operator, which may
    /// round (a float `+`), so its results are the same on every GPU and run.
    #[doc(hidden)]
    const ORDER_FREE: bool = false;

    /// Block `b` of `cfg`'s grid combines chunk `b` of `x` (`chunk` elements from
    /// `b * chunk`) into `partial[b]`: the reduce's launches and a scan's first.
    #[doc(hidden)]
    fn block_reduce(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        partial: &mut impl AsDeviceViewMut<Elem = Self::Elem>,
        chunk: usize,
    ) -> Result<()>;

    /// A scan of each chunk after its carry: the scan's second and third launches.
    #[doc(hidden)]
    fn chunk_scan(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        out: &mut impl AsDeviceViewMut<Elem = Self::Elem>,
        carry: &impl AsDeviceView<Elem = Self::Elem>,
        chunk: usize,
        inclusive: bool,
    ) -> Result<()>;

    /// Block `b` of `cfg`'s grid (with `per_warp`, warp `w` of block `b`: segment
    /// `s = 8 b + w`) combines `x[offsets[s]..offsets[s + 1]]` into `out[s]` (the identity
    /// for an empty segment): the segmented reduce (`crate::segmented`).
    #[doc(hidden)]
    fn segment_reduce(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        out: &mut impl AsDeviceViewMut<Elem = Self::Elem>,
        offsets: &impl AsDeviceView<Elem = usize>,
        per_warp: bool,
    ) -> Result<()>;

    /// Block `b` of `cfg`'s grid scans `x[offsets[b]..offsets[b + 1]]` into the same
    /// places of `out`, inclusively or exclusively (from the identity), and writes nothing
    /// else: the segmented scan (`crate::segmented`; `cfg` gives `scan::SHARED_ELEMS`
    /// elements of dynamic shared memory).
    #[doc(hidden)]
    fn segment_scan(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        out: &mut impl AsDeviceViewMut<Elem = Self::Elem>,
        offsets: &impl AsDeviceView<Elem = usize>,
        inclusive: bool,
    ) -> Result<()>;

    /// Items a thread of the operator's single-pass scan (`crate::template::lookback` or
    /// `crate::template::tree_lookback`), where it has one for its type: the library's
    /// sum, min and max of the integer types, `f32` and `f64`. `None`: the three-launch
    /// scan.
    #[doc(hidden)]
    fn lookback_items() -> Option<usize> {
        None
    }

    /// The single-pass scan of [`Operator::lookback_items`] (`cfg`: its grid of exactly
    /// `x.len().div_ceil(items * block)` tiles), on `words`.
    #[doc(hidden)]
    fn lookback_scan(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        out: &mut impl AsDeviceViewMut<Elem = Self::Elem>,
        words: LookbackWords<'_>,
        inclusive: bool,
    ) -> Result<()> {
        let _ = (target, cfg, x, out, words, inclusive);
        Err(warpspeed_core::Error::InvalidArgument {
            what: "scan".to_string(),
            reason: format!(
                "`{}` has no single-pass scan",
                std::any::type_name::<Self>()
            ),
        })
    }

    /// The kernels [`operator!`](crate::operator!) wrote for this operator, for tests that
    /// compile them (empty for the library's operators, whose kernels are
    /// `reduce::kernels`' generic ones).
    #[doc(hidden)]
    fn kernels() -> Vec<&'static warpspeed_core::KernelDef> {
        Vec::new()
    }
}

/// `+` (wrapping for integers) with identity zero, for every integer and float type.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum<T>(core::marker::PhantomData<T>);

/// The lesser of two (`T::min`: a float NaN is passed over unless both are NaN), for every
/// integer and float type. No identity: the min of nothing is an error.
#[derive(Clone, Copy, Debug, Default)]
pub struct Min<T>(core::marker::PhantomData<T>);

/// The greater of two (`T::max`), as [`Min`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Max<T>(core::marker::PhantomData<T>);

/// Makes an [`Operator`] from a `#[gpu_device]` function `fn(T, T) -> T` and its
/// identity, for any kernel scalar or `#[gpu_struct]` type `T`: a unit struct, and the
/// kernels each algorithm needs for it, written into the calling crate (which depends on
/// `warpspeed`, as every crate with kernels does).
///
/// ```text
/// operator! {
///     /// docs
///     pub struct Name { elem: T, combine: path::to::device_fn, identity: expr }
/// }
/// ```
///
/// - `elem`: the element type.
/// - `combine`: the function, by name or path (`ops::larger`); it must be associative
///   (the [module docs](mod@crate::operator) say why and what follows for floats).
/// - `identity`: an expression in the kernel language (a literal, a constant, a
///   `#[gpu_struct]` literal) with `f(identity, x) == x` for every `x`.
///
/// The kernels are compiled by NVRTC the first time an algorithm runs on a GPU, as any
/// kernel is; a mistake in the function or the identity is a compile error at the macro,
/// spanned at the user's tokens. See the [module docs](mod@crate::operator) for an example,
/// and tests/algorithms_operator.rs for a `#[gpu_struct]` operator.
#[macro_export]
macro_rules! operator {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            elem: $t:ty,
            combine: $($f:ident)::+,
            identity: $id:expr $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;

        const _: () = {
            // The function's signature first, in plain Rust: a mismatch is rustc's error
            // at the user's function name ("expected fn pointer `fn(T, T) -> T`").
            const _: fn($t, $t) -> $t = $($f)::+;
            use ::warpspeed::prelude::*;
            $crate::__range_reduce_kernel!(
                block_reduce, $t => $t, [x, start, j, r] load x[j], params [chunk: usize]
                range (r * chunk, r * chunk + chunk)
                |a, b| $($f)::+(a, b), init $id, empty $id, options []
            );
            $crate::__scan_kernels!(
                chunk_scan, $t, [x, blk] params [carry: &[$t], chunk: usize]
                range (blk * chunk, blk * chunk + chunk)
                carry (blk > 0 && blk < carry.len(), carry[blk])
                |a, b| $($f)::+(a, b), init $id, options []
            );
            $crate::__scan_kernels!(
                segment_scan, $t, [x, blk] params [offsets: &[usize]]
                skip (blk + 1 >= offsets.len()) range (offsets[blk], offsets[blk + 1])
                |a, b| $($f)::+(a, b), init $id, options []
            );
            $crate::__range_reduce_kernel!(
                segment_reduce, $t => $t, [x, start, j, r] load x[j], params [offsets: &[usize], per_warp: bool]
                skip (r + 1 >= offsets.len()) range (offsets[r], offsets[r + 1]) warps (per_warp)
                |a, b| $($f)::+(a, b), init $id, empty $id, options []
            );
            impl $crate::operator::Operator for $name {
                type Elem = $t;
                const HAS_IDENTITY: bool = true;
                fn block_reduce(
                    target: &impl ::warpspeed::LaunchTarget,
                    cfg: ::warpspeed::LaunchConfig,
                    x: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    partial: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $t>,
                    chunk: usize,
                ) -> ::warpspeed::Result<()> {
                    block_reduce::launch(target, cfg, x, partial, chunk)
                }
                fn chunk_scan(
                    target: &impl ::warpspeed::LaunchTarget,
                    cfg: ::warpspeed::LaunchConfig,
                    x: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    out: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $t>,
                    carry: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    chunk: usize,
                    inclusive: bool,
                ) -> ::warpspeed::Result<()> {
                    chunk_scan::launch(target, cfg, x, out, carry, chunk, inclusive)
                }
                fn segment_reduce(
                    target: &impl ::warpspeed::LaunchTarget,
                    cfg: ::warpspeed::LaunchConfig,
                    x: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    out: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $t>,
                    offsets: &impl ::warpspeed::AsDeviceView<Elem = usize>,
                    per_warp: bool,
                ) -> ::warpspeed::Result<()> {
                    segment_reduce::launch(target, cfg, x, out, offsets, per_warp)
                }
                fn segment_scan(
                    target: &impl ::warpspeed::LaunchTarget,
                    cfg: ::warpspeed::LaunchConfig,
                    x: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    out: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $t>,
                    offsets: &impl ::warpspeed::AsDeviceView<Elem = usize>,
                    inclusive: bool,
                ) -> ::warpspeed::Result<()> {
                    segment_scan::launch(target, cfg, x, out, offsets, inclusive)
                }
                fn kernels() -> ::std::vec::Vec<&'static ::warpspeed::KernelDef> {
                    ::std::vec![
                        block_reduce::kernel(),
                        chunk_scan::kernel(),
                        segment_reduce::kernel(),
                        segment_scan::kernel(),
                    ]
                }
            }
        };
    };
}
