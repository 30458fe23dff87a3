//! Elementwise maps, Numba's `@vectorize`: a scalar `#[gpu_device]` function, written
//! once, made a map over buffers and views of any length by [`map!`](crate::map!). Its
//! leading parameters may be scalars that every element shares (before a `;`), the others
//! are inputs read elementwise (one or more; tested up to three):
//!
//! ```
//! # mod warpspeed { pub use warpspeed_core::*; pub mod algorithms { pub use warpspeed_algorithms::*; } }
//! use warpspeed::prelude::*;
//!
//! #[gpu_device]
//! fn saxpy(a: f32, x: f32, y: f32) -> f32 {
//!     a * x + y
//! }
//!
//! warpspeed::algorithms::map! {
//!     /// `a * x + y`, elementwise: `a` one scalar, `x` and `y` buffers.
//!     pub struct Saxpy = fn saxpy(a: f32; x: f32, y: f32) -> f32;
//! }
//!
//! # fn main() -> Result<(), Error> {
//! let dev = Device::simulator();
//! let x = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
//! let y = dev.upload(&[0.5f32; 5])?;
//! let mut out = dev.zeros::<f32>(5)?;
//! Saxpy::map(&dev, 2.0, &x, &y, &mut out)?;
//! assert_eq!(out.download()?, vec![2.5, 4.5, 6.5, 8.5, 10.5]);
//! # Ok(())
//! # }
//! ```
//!
//! `map!` writes, in the calling crate, a unit struct and one kernel: thread `t` of the
//! grid computes `out[i] = f(a, x[i], y[i], ..)` for `i = t, t + s, t + 2s, ..` (`s` the
//! grid's threads: a grid-stride loop, so a warp's loads and stores are coalesced and the
//! grid is capped at [`MAX_BLOCKS`] blocks of [`BLOCK`] threads whatever the length). Every
//! slice is declared `#[len(n)]` and the loop is `for i in (t..n).step_by(s)`, so every
//! index is proven and the emitted C keeps no bounds check.
//!
//! `Name::map(target, scalars.., inputs.., &mut out)` checks that every input is as long
//! as `out` ([`Error::LengthMismatch`] naming the input, before anything is launched) and
//! queues the launch on `target` (a `Device` or a `Stream`) without waiting. An empty `out` launches nothing. `Name::map_unchecked` is
//! the same launch of the `#[gpu_kernel(unchecked)]` twin, for the bench.
//!
//! **No vector loads.** The kernel language has 16-byte vector types (`f32x4`,
//! `DeviceBuffer::into_vectors`), but a map is generic over its element types and over
//! views at any offset, which need not be 16-byte aligned; one element a thread a step
//! keeps every length and offset on one path. On a GPU the loads of a warp are one
//! 128-byte line per operand either way.

use warpspeed_core::{Error, LaunchConfig, Result};

/// Threads a block of a map's launch.
pub const BLOCK: u32 = 256;
/// The most blocks of a map's launch (each thread then loops over several elements).
pub const MAX_BLOCKS: u32 = 2048;

/// The grid of a map over `n` elements: a thread an element up to [`MAX_BLOCKS`] blocks.
pub fn config(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(BLOCK as usize).clamp(1, MAX_BLOCKS as usize);
    LaunchConfig::new(blocks as u32, BLOCK)
}

/// Every input as long as the output: [`Error::LengthMismatch`] naming the first that is
/// not. What [`map!`](crate::map!)'s `map` checks before it launches.
#[doc(hidden)]
pub fn check_lengths(map: &str, out: usize, inputs: &[(&str, usize)]) -> Result<()> {
    for &(name, len) in inputs {
        if len != out {
            return Err(Error::LengthMismatch {
                what: format!("{map}::map: input `{name}` (every input is as long as `out`)"),
                expected: out,
                found: len,
            });
        }
    }
    Ok(())
}

/// Makes an elementwise map from a `#[gpu_device]` function of kernel scalars or
/// `#[gpu_struct]`s (Numba's `@vectorize`): a unit struct with `Name::map(target,
/// scalars.., inputs.., &mut out)`, and its kernel, written into the calling crate.
///
/// ```text
/// map! {
///     /// docs
///     pub struct Name = fn path::to::device_fn(a: A, b: B) -> R;           // inputs a, b
///     pub struct Name = fn path::to::device_fn(k: K; a: A, b: B) -> R;     // k shared
/// }
/// ```
///
/// The signature repeats the function's (rustc checks that they agree, at the function's
/// name), with a `;` after the leading parameters that are one value for every element;
/// the parameter names become `map`'s: `map(target, k: K, a: &impl AsDeviceView<Elem =
/// A>, b: .., out: &mut impl AsDeviceViewMut<Elem = R>)`. See the [module
/// docs](mod@crate::map) for an example and what the kernel does.
#[macro_export]
macro_rules! map {
    // Scalars, then inputs.
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident = fn $($f:ident)::+ (
            $($s:ident : $st:ty),+ ; $($arg:ident : $t:ty),+ $(,)?
        ) -> $r:ty $(;)?
    ) => {
        $crate::__map_impl!([$(#[$meta])*] $vis $name, $($f)::+, $r, [$($s: $st),+], [$($arg: $t),+]);
    };
    // Inputs only.
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident = fn $($f:ident)::+ ( $($arg:ident : $t:ty),+ $(,)? ) -> $r:ty $(;)?
    ) => {
        $crate::__map_impl!([$(#[$meta])*] $vis $name, $($f)::+, $r, [], [$($arg: $t),+]);
    };
}

/// [`map!`](crate::map!)'s expansion: the struct, its kernels and its `map`.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_impl {
    (
        [$($meta:tt)*] $vis:vis $name:ident, $($f:ident)::+, $r:ty,
        [$($s:ident : $st:ty),*], [$($arg:ident : $t:ty),+]
    ) => {
        $($meta)*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;

        const _: () = {
            // The function's signature first, in plain Rust: a mismatch is rustc's error
            // at the user's function name.
            const _: fn($($st,)* $($t),+) -> $r = $($f)::+;
            use ::warpspeed::prelude::*;
            use ::warpspeed::{AsDeviceView as _, AsDeviceViewMut as _};
            $crate::__map_kernel!(map_checked, [], $($f)::+, $r, [$($s: $st),*], [$($arg: $t),+]);
            $crate::__map_kernel!(map_unchecked, [unchecked], $($f)::+, $r, [$($s: $st),*], [$($arg: $t),+]);

            impl $name {
                /// `out[i] = f(scalars.., inputs[i]..)` for every `i`, queued on `target`
                /// without waiting.
                ///
                /// # Errors
                /// `Error::LengthMismatch` when an input's length is not `out`'s (before
                /// anything is launched), and whatever the launch returns.
                #[allow(dead_code, clippy::too_many_arguments)]
                $vis fn map(
                    target: &impl ::warpspeed::LaunchTarget,
                    $($s: $st,)*
                    $($arg: &impl ::warpspeed::AsDeviceView<Elem = $t>,)+
                    out: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $r>,
                ) -> ::warpspeed::Result<()> {
                    let n = out.len();
                    $crate::map::check_lengths(
                        stringify!($name),
                        n,
                        &[$((stringify!($arg), $arg.len())),+],
                    )?;
                    if n == 0 {
                        return Ok(());
                    }
                    map_checked::launch(target, $crate::map::config(n), n, out, $($s,)* $($arg),+)
                }

                /// [`map`](Self::map) with the `#[gpu_kernel(unchecked)]` twin of the
                /// kernel (the same checks of the lengths first).
                #[allow(dead_code, clippy::too_many_arguments)]
                #[doc(hidden)]
                $vis fn map_unchecked(
                    target: &impl ::warpspeed::LaunchTarget,
                    $($s: $st,)*
                    $($arg: &impl ::warpspeed::AsDeviceView<Elem = $t>,)+
                    out: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $r>,
                ) -> ::warpspeed::Result<()> {
                    let n = out.len();
                    $crate::map::check_lengths(
                        stringify!($name),
                        n,
                        &[$((stringify!($arg), $arg.len())),+],
                    )?;
                    if n == 0 {
                        return Ok(());
                    }
                    map_unchecked::launch(target, $crate::map::config(n), n, out, $($s,)* $($arg),+)
                }

                /// The two kernels (checked, unchecked), for tests and the bench.
                #[allow(dead_code)]
                #[doc(hidden)]
                $vis fn kernels() -> [&'static ::warpspeed::KernelDef; 2] {
                    [map_checked::kernel(), map_unchecked::kernel()]
                }
            }
        };
    };
}

/// The map kernel `$kname` with the kernel options `$opt`: a grid-stride loop over `n`
/// elements, every slice declared `#[len(n)]` so that every index is proven.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_kernel {
    (
        $kname:ident, [$($opt:ident)?], $($f:ident)::+, $r:ty,
        [$($s:ident: $st:ty),*], [$($arg:ident: $t:ty),+]
    ) => {
        // The kernel's own names carry `map_`, so that no input a user names (`n`, `out`)
        // meets them.
        #[gpu_kernel($($opt)?)]
        fn $kname(
            map_n: usize,
            #[len(map_n)] map_out: &mut [$r],
            $($s: $st,)*
            $(#[len(map_n)] $arg: &[$t]),+
        ) {
            let map_first = grid_1d();
            let map_step = grid_stride_1d();
            for map_i in (map_first..map_n).step_by(map_step) {
                map_out[map_i] = $($f)::+($($s,)* $($arg[map_i]),+);
            }
        }
    };
}
