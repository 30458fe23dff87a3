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
//! `map!` writes, in the calling crate, a unit struct and two kernels (each with its
//! `#[gpu_kernel(unchecked)]` twin), and `map` picks one per call:
//!
//! - **The vector path**, where every input and the output start at an address that a
//!   wide access of four elements allows ([`vector_align`]: `min(4 * size_of::<T>(), 16)`
//!   bytes; every buffer does, and a view at an offset that is a multiple of 4 elements for
//!   1-, 2- and 4-byte types, of 2 for 8-byte ones): thread `t` reads elements `4t..4t +
//!   4` of each input with one `load4` (one 4-, 8- or 16-byte load, two to four 16-byte
//!   ones for 8- to 16-byte elements) and writes them with one `store4`, no loop
//!   ([`vector_config`]: `n / 4` threads, one more for a tail); the thread where `4t < n
//!   < 4t + 4` does the last `n % 4` elements one by one. `i + 3 < n` proves the four-element sub-slices, so the
//!   emitted C keeps no bounds check.
//! - **The grid-stride path** otherwise (a view at an odd offset, an element size whose
//!   four are not 4, 8, 16, 32, 48 or 64 bytes): thread `t` computes `out[i] = f(a, x[i],
//!   y[i], ..)` for `i = t, t + s, t + 2s, ..` (`s` the grid's threads; the grid is capped
//!   at [`MAX_BLOCKS`] blocks of [`BLOCK`] threads whatever the length). Every slice is
//!   declared `#[len(n)]` and the loop is `for i in (t..n).step_by(s)`, so every index is
//!   proven.
//!
//! Both give the same bits. Why one vector a thread: measured on an H100 with hand-written
//! CUDA C (saxpy, 2^28 `f32`), a scalar grid-stride loop reaches 0.91 to 0.92 of the
//! copy's bandwidth whatever the grid, `float4` accesses in a grid-stride loop 0.962,
//! `float4` with one vector a thread and no loop 1.015 (torch's `add` 1.008).
//!
//! `Name::map(target, scalars.., inputs.., &mut out)` checks that every input is as long
//! as `out` ([`Error::LengthMismatch`] naming the input, before anything is launched) and
//! queues the launch on `target` (a `Device` or a `Stream`) without waiting. An empty
//! `out` launches nothing. `Name::map_unchecked` is the same launch of the
//! `#[gpu_kernel(unchecked)]` twins, for the bench; `Name::path(inputs.., &out)` (hidden)
//! says which path `map` takes for those views.

use warpspeed_core::{AsDeviceView, Error, LaunchConfig, Result};

/// Threads a block of a map's launch.
pub const BLOCK: u32 = 256;
/// The most blocks of a map's launch (each thread then loops over several elements).
pub const MAX_BLOCKS: u32 = 2048;

/// The grid of a map over `n` elements: a thread an element up to [`MAX_BLOCKS`] blocks.
pub fn config(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(BLOCK as usize).clamp(1, MAX_BLOCKS as usize);
    LaunchConfig::new(blocks as u32, BLOCK)
}

/// The grid of the vector path over `n` elements: a thread each four elements, and one
/// more for the last `n % 4`, no loop; `None` past a grid's `u32` blocks.
pub fn vector_config(n: usize) -> Option<LaunchConfig> {
    let blocks = n.div_ceil(4).max(1).div_ceil(BLOCK as usize);
    u32::try_from(blocks)
        .ok()
        .map(|b| LaunchConfig::new(b, BLOCK))
}

/// Which of a map's two kernels runs (what [`map!`](crate::map!)'s hidden `path` tells,
/// for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Thread `t` does elements `4t..4t + 4` with one wide load per input and one wide
    /// store (`load4`/`store4`), the `n % 4` last ones by scalar code.
    Vector,
    /// One element a thread a step of a grid-stride loop.
    GridStride,
}

/// The alignment the vector path needs of a slice of `T`: `4 * size_of::<T>()` bytes move
/// as one 4-, 8- or 16-byte access, or as 16-byte ones for 32, 48 or 64, from an address
/// that is a multiple of `min(4 * size_of::<T>(), 16)`; `None` for other sizes, which
/// `load4` moves element by element (the vector path would gain nothing).
pub fn vector_align<T>() -> Option<usize> {
    match 4 * std::mem::size_of::<T>() {
        b @ (4 | 8 | 16) => Some(b),
        32 | 48 | 64 => Some(16),
        _ => None,
    }
}

/// Whether `v` starts where the vector path's wide accesses may read it.
#[doc(hidden)]
pub fn vector_ready<V: AsDeviceView + ?Sized>(v: &V) -> bool {
    vector_align::<V::Elem>().is_some_and(|a| v.as_device_view().is_aligned(a))
}

/// The path a map over `n` elements takes when `ready` says whether each input and the
/// output is [`vector_ready`].
#[doc(hidden)]
pub fn choose(n: usize, ready: &[bool]) -> Path {
    if ready.iter().all(|&r| r) && vector_config(n).is_some() {
        Path::Vector
    } else {
        Path::GridStride
    }
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
            $crate::__map_vector_kernel!(vec_checked, [], $($f)::+, $r, [$($s: $st),*], [$($arg: $t),+]);
            $crate::__map_vector_kernel!(vec_unchecked, [unchecked], $($f)::+, $r, [$($s: $st),*], [$($arg: $t),+]);

            impl $name {
                $crate::__map_entry!(
                    [
                        /// `out[i] = f(scalars.., inputs[i]..)` for every `i`, queued on
                        /// `target` without waiting.
                        ///
                        /// # Errors
                        /// `Error::LengthMismatch` when an input's length is not `out`'s
                        /// (before anything is launched), and whatever the launch returns.
                    ]
                    $vis fn map launches map_checked, vec_checked;
                    $name, $r, [$($s: $st),*], [$($arg: $t),+]
                );
                $crate::__map_entry!(
                    [
                        /// [`map`](Self::map) with the `#[gpu_kernel(unchecked)]` twins of
                        /// the kernels (the same checks of the lengths first).
                        #[doc(hidden)]
                    ]
                    $vis fn map_unchecked launches map_unchecked, vec_unchecked;
                    $name, $r, [$($s: $st),*], [$($arg: $t),+]
                );

                /// The kernel `map` runs for these inputs and output: the vector path
                /// where every one starts at an address its wide accesses allow.
                #[allow(dead_code)]
                #[doc(hidden)]
                $vis fn path(
                    $($arg: &impl ::warpspeed::AsDeviceView<Elem = $t>,)+
                    out: &impl ::warpspeed::AsDeviceView<Elem = $r>,
                ) -> $crate::map::Path {
                    $crate::map::choose(
                        out.len(),
                        &[$($crate::map::vector_ready($arg),)+ $crate::map::vector_ready(out)],
                    )
                }

                /// The four kernels (grid-stride checked, unchecked; vector checked,
                /// unchecked), for tests and the bench.
                #[allow(dead_code)]
                #[doc(hidden)]
                $vis fn kernels() -> [&'static ::warpspeed::KernelDef; 4] {
                    [
                        map_checked::kernel(),
                        map_unchecked::kernel(),
                        vec_checked::kernel(),
                        vec_unchecked::kernel(),
                    ]
                }
            }
        };
    };
}

/// One of [`map!`](crate::map!)'s entries, `$fname` (`map` or `map_unchecked`), which
/// launches the kernel `$grid` or `$vec` (their checked or their unchecked forms): the
/// lengths checked, then the path chosen and its kernel queued. Both entries are this one
/// piece, so that they cannot drift apart.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_entry {
    (
        [$($meta:tt)*] $vis:vis fn $fname:ident launches $grid:ident, $vec:ident;
        $name:ident, $r:ty, [$($s:ident : $st:ty),*], [$($arg:ident : $t:ty),+]
    ) => {
        $($meta)*
        #[allow(dead_code, clippy::too_many_arguments)]
        $vis fn $fname(
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
            match Self::path($($arg,)+ out) {
                $crate::map::Path::Vector => {
                    let cfg = $crate::map::vector_config(n).unwrap_or_else(|| $crate::map::config(n));
                    $vec::launch(target, cfg, n, out, $($s,)* $($arg),+)
                }
                $crate::map::Path::GridStride => {
                    $grid::launch(target, $crate::map::config(n), n, out, $($s,)* $($arg),+)
                }
            }
        }
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

/// The vector map kernel `$kname` with the kernel options `$opt`: thread `t` of the grid
/// reads elements `4t..4t + 4` of every input with one `load4` each and writes them with
/// one `store4`; the thread where `4t < n < 4t + 4` does the last `n % 4` elements one by
/// one. `i + 3 < n` proves the four-element sub-slices, the tail's loop its indices: the
/// emitted C keeps no bounds check.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_vector_kernel {
    (
        $kname:ident, [$($opt:ident)?], $($f:ident)::+, $r:ty,
        [$($s:ident: $st:ty),*], [$($arg:ident: $t:ty),+]
    ) => {
        #[gpu_kernel($($opt)?)]
        fn $kname(
            map_n: usize,
            #[len(map_n)] map_out: &mut [$r],
            $($s: $st,)*
            $(#[len(map_n)] $arg: &[$t]),+
        ) {
            let map_i = grid_1d() * 4;
            if map_i + 3 < map_n {
                // Each input's four elements, under the input's own name (a tuple now).
                $(let $arg = load4(&$arg[map_i..map_i + 4]);)+
                store4(
                    &mut map_out[map_i..map_i + 4],
                    $($f)::+($($s,)* $($arg.0),+),
                    $($f)::+($($s,)* $($arg.1),+),
                    $($f)::+($($s,)* $($arg.2),+),
                    $($f)::+($($s,)* $($arg.3),+),
                );
            } else {
                // The last `n % 4` elements (no thread past `n` finds any).
                for map_j in map_i..map_n {
                    map_out[map_j] = $($f)::+($($s,)* $($arg[map_j]),+);
                }
            }
        }
    };
}
