//! Stream compaction of a buffer or view on a GPU or the simulator: [`flagged`] keeps the
//! elements whose flag is set, [`select_if`] those a user's predicate keeps
//! ([`predicate!`](crate::predicate!)), [`partition`] puts those first and the others after
//! them, [`unique`] drops consecutive duplicates and [`run_length_encode`] gives each run
//! of equal elements and its length. Each keeps the input's order and returns how many it
//! kept (downloaded, which waits for the work queued on the device before it).
//!
//! | here | CUB | torch | cupy |
//! |---|---|---|---|
//! | [`flagged`] | `DeviceSelect::Flagged` | `torch.masked_select(x, mask)` | `cupy.compress(mask, x)`, `x[mask]` |
//! | [`select_if`] | `DeviceSelect::If` | `x[x > 0.5]` | `x[x > 0.5]` |
//! | [`partition`] | `DevicePartition::If` (rejected reversed) | | |
//! | [`unique`] | `DeviceSelect::Unique` | `torch.unique_consecutive(x)` | |
//! | [`run_length_encode`] | `DeviceRunLengthEncode::Encode` | `torch.unique_consecutive(x, return_counts=True)` | |
//!
//! **How.** One pass (algorithms/src/template/select.rs): each block takes a tile of 4096
//! elements ([`TILE`]; the autotuner may choose another [`Tiling`]), its warps find the kept ones with `ballot_sync` and their places
//! with `count_ones`, and the tile's place in the output comes from a decoupled look-back
//! over the tiles' counts (the scan's, algorithms/src/template/lookback.rs): the input is
//! read once and the kept elements written once. [`partition`] counts first (one more
//! read of the input) so that the rejected elements can go after the kept ones in their
//! order; [`run_length_encode`] writes the runs' starts into scratch and a second launch
//! takes their differences.
//!
//! **Autotuning.** From 2^20 elements, the tiling (elements a thread, blocks an SM) is the
//! one of [`TUNED_TILINGS`] that `warpspeed::autotune` timed fastest on this GPU, once per
//! algorithm, element type (flag type, predicate) and size bucket; `WARPSPEED_AUTOTUNE=off`
//! keeps [`Tiling::T4096c4`]. The result is the same whatever the tiling: only the time
//! changes. docs/algorithms.md, "Autotuning".
//!
//! **Element types.** [`flagged`], [`unique`] and [`run_length_encode`] take every kernel
//! scalar (`bool`, the integers, the floats: warpspeed's `Scalar`); [`select_if`] and
//! [`partition`] any type a predicate is made for, `#[gpu_struct]`s included. Floats
//! compare with `==`: `-0.0` and `0.0` are one run, and a NaN equals nothing, not even
//! itself, so each NaN is a run of its own (as `torch.unique_consecutive` and CUB do).
//!
//! **Bad input**, before anything is launched ([`Error::LengthMismatch`]): an output
//! shorter than the input (the count is not known before the launch, so the output must
//! have room for every element), flags of another length than the input, scratch made for
//! fewer elements; and an input of more than `u32::MAX` elements
//! ([`Error::InvalidArgument`]: the counts are 32-bit).

pub use crate::kernels::select as kernels;
use crate::status::TileStatus;
use warpspeed_core::autotune::Tuner;
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, KernelScalar, LaunchTarget, Result};

/// Threads a block.
const BLOCK: u32 = 256;
/// Elements a tile of the default tiling ([`Tiling::T4096c4`]: 16 a thread).
pub const TILE: usize = Tiling::T4096c4.tile();
/// The smallest tile of [`TUNED_TILINGS`]: the scratch has a status word for each such
/// tile, so it fits every tiling.
const MIN_TILE: usize = Tiling::T2048c8.tile();

/// How the select kernels cut their input: the elements a thread takes (a tile is 256
/// threads' worth, one block) and the blocks an SM the kernel asks NVRTC for
/// (`__launch_bounds__(256, B)`, which caps the registers a thread may take). Each is its
/// own instance of the kernels (`kernels::t4096c4`, ..). The result never depends on the
/// tiling, so the autotuner chooses freely among [`TUNED_TILINGS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tiling {
    /// 16 a thread (tiles of 4096), 4 blocks an SM (at most 64 registers): the default.
    T4096c4,
    /// 16 a thread, registers uncapped.
    T4096,
    /// 16 a thread, 6 blocks an SM (at most 40 registers).
    T4096c6,
    /// 32 a thread (tiles of 8192), 3 blocks an SM (at most 80 registers).
    T8192c3,
    /// 8 a thread (tiles of 2048), 8 blocks an SM (at most 32 registers).
    T2048c8,
}

impl Tiling {
    /// Elements a thread.
    pub const fn items_per_thread(self) -> usize {
        match self {
            Tiling::T4096c4 | Tiling::T4096 | Tiling::T4096c6 => 16,
            Tiling::T8192c3 => 32,
            Tiling::T2048c8 => 8,
        }
    }

    /// Elements a tile (a block of 256 threads).
    pub const fn tile(self) -> usize {
        BLOCK as usize * self.items_per_thread()
    }

    /// The blocks an SM the kernels ask NVRTC for; `None`: registers uncapped.
    pub const fn blocks_per_sm(self) -> Option<u32> {
        match self {
            Tiling::T4096c4 => Some(4),
            Tiling::T4096 => None,
            Tiling::T4096c6 => Some(6),
            Tiling::T8192c3 => Some(3),
            Tiling::T2048c8 => Some(8),
        }
    }

    /// Its label among [`TUNED_TILINGS`] (also its kernels' module: `kernels::t4096c6`).
    pub const fn label(self) -> &'static str {
        match self {
            Tiling::T4096c4 => "t4096c4",
            Tiling::T4096 => "t4096",
            Tiling::T4096c6 => "t4096c6",
            Tiling::T8192c3 => "t8192c3",
            Tiling::T2048c8 => "t2048c8",
        }
    }

    /// The launch of a select kernel of this tiling over `n` elements (one block a tile),
    /// for a user who launches `kernels` by hand, as the bench does.
    pub fn launch_config(self, n: usize) -> LaunchConfig {
        LaunchConfig::new(n.div_ceil(self.tile()) as u32, BLOCK)
    }
}

/// What the autotuner chooses among for every select kernel (the default first): more
/// items a thread put more loads in flight and spread each tile's fixed costs (the tile
/// counter, the look-back) over more elements; more blocks an SM hide more latency but
/// cap the registers (the kernel is latency bound on an H100: docs/algorithms.md).
pub const TUNED_TILINGS: [(&str, Tiling); 5] = [
    (Tiling::T4096c4.label(), Tiling::T4096c4),
    (Tiling::T4096.label(), Tiling::T4096),
    (Tiling::T4096c6.label(), Tiling::T4096c6),
    (Tiling::T8192c3.label(), Tiling::T8192c3),
    (Tiling::T2048c8.label(), Tiling::T2048c8),
];

/// `$call` with `$k` the kernels' module of `tiling` (`kernels::t4096c4`, ..).
macro_rules! by_tiling {
    ($tiling:expr, $k:ident => $call:expr) => {
        match $tiling {
            Tiling::T4096c4 => {
                use kernels::t4096c4 as $k;
                $call
            }
            Tiling::T4096 => {
                use kernels::t4096 as $k;
                $call
            }
            Tiling::T4096c6 => {
                use kernels::t4096c6 as $k;
                $call
            }
            Tiling::T8192c3 => {
                use kernels::t8192c3 as $k;
                $call
            }
            Tiling::T2048c8 => {
                use kernels::t2048c8 as $k;
                $call
            }
        }
    };
}

/// The scratch memory of selections of up to `capacity` elements: the look-back's status
/// words (one a tile of the smallest tiling, so that it fits every one) and counter, the count, and for [`run_length_encode`] the runs'
/// starts (allocated by its first call). Make one and pass it to the `*_with_scratch`
/// entries, so that repeated calls allocate nothing.
pub struct Scratch {
    capacity: usize,
    lookback: TileStatus,
    total: DeviceBuffer<u32>,
    /// Empty: the select kernels' `heads` where no starts are wanted.
    no_heads: DeviceBuffer<u32>,
    /// `capacity + 1` words once run-length encoding ran.
    heads: Option<DeviceBuffer<u32>>,
}

impl Scratch {
    /// Scratch for selections of up to `capacity` elements on `dev` (a word a tile of
    /// 2048, the smallest of [`TUNED_TILINGS`], at least one).
    ///
    /// # Errors
    /// Whatever the allocation returns.
    pub fn new(dev: &Device, capacity: usize) -> Result<Self> {
        Ok(Scratch {
            capacity,
            lookback: TileStatus::new(dev, capacity.div_ceil(MIN_TILE))?,
            total: dev.zeros::<u32>(1)?,
            no_heads: dev.zeros::<u32>(0)?,
            heads: None,
        })
    }

    /// The most elements a selection with this scratch may have.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// How a select launch runs: what [`Predicate::select`] and the library's kernels take
/// beside the input and the output.
#[doc(hidden)]
pub struct Launch<'a> {
    pub tiling: Tiling,
    pub cfg: LaunchConfig,
    pub total: &'a mut DeviceBuffer<u32>,
    pub status: &'a mut DeviceBuffer<u64>,
    pub counter: &'a mut DeviceBuffer<u32>,
    pub epoch: u32,
    pub split: usize,
    pub partition: bool,
}

/// What [`select_if`] and [`partition`] keep: a `#[gpu_device] fn(T) -> bool` made one by
/// [`predicate!`](crate::predicate!), with the kernels written for it in the crate that
/// made it.
pub trait Predicate: 'static {
    /// The type the predicate takes.
    type Elem: KernelScalar;

    /// The select kernel with this predicate.
    #[doc(hidden)]
    fn select(
        target: &impl LaunchTarget,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        out: &mut impl AsDeviceViewMut<Elem = Self::Elem>,
        heads: &mut DeviceBuffer<u32>,
        launch: Launch<'_>,
    ) -> Result<()>;

    /// The count kernel with this predicate: adds the number kept to `total[0]`.
    #[doc(hidden)]
    fn count(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self::Elem>,
        total: &mut DeviceBuffer<u32>,
    ) -> Result<()>;

    /// The kernels [`predicate!`](crate::predicate!) wrote, for tests that compile them.
    #[doc(hidden)]
    fn kernels() -> Vec<&'static warpspeed_core::KernelDef>;
}

/// Makes a [`Predicate`] from a `#[gpu_device]` function `fn(T) -> bool`, for any kernel
/// scalar or `#[gpu_struct]` type `T`: a unit struct, and the select and count kernels for
/// it written into the calling crate (which depends on `warpspeed`, as every crate with
/// kernels does), as [`operator!`](crate::operator!) does for an operator.
///
/// ```text
/// predicate! {
///     /// docs
///     pub struct Name { elem: T, keep: path::to::device_fn }
/// }
/// ```
///
/// ```
/// # mod warpspeed { pub use warpspeed_core::*; pub mod algorithms { pub use warpspeed_algorithms::*; } }
/// use warpspeed::algorithms::{predicate, select};
/// use warpspeed::prelude::*;
///
/// #[gpu_device]
/// fn positive(x: f32) -> bool {
///     x > 0.0
/// }
///
/// predicate! {
///     /// The positive values (not NaN).
///     pub struct Positive { elem: f32, keep: positive }
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[3.5f32, -0.25, 7.0, 0.0, 0.5])?;
/// let mut out = dev.zeros::<f32>(5)?;
/// let kept = select::select_if::<Positive>(&dev, &x, &mut out)?;
/// assert_eq!(&out.download()?[..kept], &[3.5, 7.0, 0.5]);
/// # Ok(())
/// # }
/// ```
#[macro_export]
macro_rules! predicate {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            elem: $t:ty,
            keep: $($f:ident)::+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;

        const _: () = {
            // The function's signature first, in plain Rust: a mismatch is rustc's error
            // at the user's function name ("expected fn pointer `fn(T) -> bool`").
            const _: fn($t) -> bool = $($f)::+;
            // The kernels in a module of their own: they name the atomics and `Ordering`
            // through their parent, which imports them beside the user's items.
            mod __ws_select {
                #[allow(unused_imports)]
                use super::*;
                use ::std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
                use ::warpspeed::prelude::*;
                // One select kernel a tiling (`select::TUNED_TILINGS`).
                $crate::__select_kernel!(select_t4096c4, $t, [x, i, v] keep $($f)::+(v),
                    params [], items 16 tile 4096 mask 4095, blocks_per_sm [4], options []);
                $crate::__select_kernel!(select_t4096, $t, [x, i, v] keep $($f)::+(v),
                    params [], items 16 tile 4096 mask 4095, blocks_per_sm [], options []);
                $crate::__select_kernel!(select_t4096c6, $t, [x, i, v] keep $($f)::+(v),
                    params [], items 16 tile 4096 mask 4095, blocks_per_sm [6], options []);
                $crate::__select_kernel!(select_t8192c3, $t, [x, i, v] keep $($f)::+(v),
                    params [], items 32 tile 8192 mask 8191, blocks_per_sm [3], options []);
                $crate::__select_kernel!(select_t2048c8, $t, [x, i, v] keep $($f)::+(v),
                    params [], items 8 tile 2048 mask 2047, blocks_per_sm [8], options []);
                $crate::__select_count_kernel!(count, $t, [x, i] keep $($f)::+(x[i]),
                    params [], options []);
            }
            use __ws_select::{
                count, select_t2048c8, select_t4096, select_t4096c4, select_t4096c6,
                select_t8192c3,
            };
            impl $crate::select::Predicate for $name {
                type Elem = $t;
                fn select(
                    target: &impl ::warpspeed::LaunchTarget,
                    x: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    out: &mut impl ::warpspeed::AsDeviceViewMut<Elem = $t>,
                    heads: &mut ::warpspeed::DeviceBuffer<u32>,
                    l: $crate::select::Launch<'_>,
                ) -> ::warpspeed::Result<()> {
                    use $crate::select::Tiling;
                    macro_rules! __ws_launch {
                        ($k:ident) => {
                            $k::launch(target, l.cfg, x, out, heads, l.total, l.status,
                                l.counter, l.epoch, l.split, l.partition)
                        };
                    }
                    match l.tiling {
                        Tiling::T4096c4 => __ws_launch!(select_t4096c4),
                        Tiling::T4096 => __ws_launch!(select_t4096),
                        Tiling::T4096c6 => __ws_launch!(select_t4096c6),
                        Tiling::T8192c3 => __ws_launch!(select_t8192c3),
                        Tiling::T2048c8 => __ws_launch!(select_t2048c8),
                    }
                }
                fn count(
                    target: &impl ::warpspeed::LaunchTarget,
                    cfg: ::warpspeed::LaunchConfig,
                    x: &impl ::warpspeed::AsDeviceView<Elem = $t>,
                    total: &mut ::warpspeed::DeviceBuffer<u32>,
                ) -> ::warpspeed::Result<()> {
                    count::launch(target, cfg, x, total)
                }
                fn kernels() -> ::std::vec::Vec<&'static ::warpspeed::KernelDef> {
                    ::std::vec![
                        select_t4096c4::kernel(),
                        select_t4096::kernel(),
                        select_t4096c6::kernel(),
                        select_t8192c3::kernel(),
                        select_t2048c8::kernel(),
                        count::kernel(),
                    ]
                }
            }
        };
    };
}

/// A flag type [`flagged`] takes: `bool` (as torch's masks) or `u8` (non-zero keeps).
/// Sealed: each picks its kernel.
pub trait Flag: KernelScalar + sealed::Sealed {
    #[doc(hidden)]
    fn select<T: Scalar>(
        target: &impl LaunchTarget,
        x: &impl AsDeviceView<Elem = T>,
        flags: &impl AsDeviceView<Elem = Self>,
        out: &mut impl AsDeviceViewMut<Elem = T>,
        heads: &mut DeviceBuffer<u32>,
        l: Launch<'_>,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for bool {}
    impl Sealed for u8 {}
}

impl Flag for bool {
    fn select<T: Scalar>(
        target: &impl LaunchTarget,
        x: &impl AsDeviceView<Elem = T>,
        flags: &impl AsDeviceView<Elem = bool>,
        out: &mut impl AsDeviceViewMut<Elem = T>,
        heads: &mut DeviceBuffer<u32>,
        l: Launch<'_>,
    ) -> Result<()> {
        by_tiling!(l.tiling, k => k::flagged_bool::launch::<T>(
            target,
            l.cfg,
            x,
            flags,
            &mut *out,
            heads,
            l.total,
            l.status,
            l.counter,
            l.epoch,
            l.split,
            l.partition,
        ))
    }
}

impl Flag for u8 {
    fn select<T: Scalar>(
        target: &impl LaunchTarget,
        x: &impl AsDeviceView<Elem = T>,
        flags: &impl AsDeviceView<Elem = u8>,
        out: &mut impl AsDeviceViewMut<Elem = T>,
        heads: &mut DeviceBuffer<u32>,
        l: Launch<'_>,
    ) -> Result<()> {
        by_tiling!(l.tiling, k => k::flagged_u8::launch::<T>(
            target,
            l.cfg,
            x,
            flags,
            &mut *out,
            heads,
            l.total,
            l.status,
            l.counter,
            l.epoch,
            l.split,
            l.partition,
        ))
    }
}

/// The checks every entry shares: an input the counts can hold, outputs with room for
/// it, scratch made for it. `Ok(false)`: an empty input, nothing to launch.
fn check(what: &str, n: usize, outputs: &[(&str, usize)], scratch: &Scratch) -> Result<bool> {
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument {
            what: format!("select::{what}"),
            reason: format!(
                "the input has {n} elements; the counts are 32-bit, so at most {} are taken",
                u32::MAX
            ),
        });
    }
    for &(name, len) in outputs {
        if len < n {
            return Err(Error::LengthMismatch {
                what: format!(
                    "select::{what}: {name} (at least the input's length: every element may be kept)"
                ),
                expected: n,
                found: len,
            });
        }
    }
    if scratch.capacity < n {
        return Err(Error::LengthMismatch {
            what: format!("select::{what}: the scratch's capacity"),
            expected: n,
            found: scratch.capacity,
        });
    }
    Ok(n > 0)
}

/// One selection over `n` elements with the scratch's memory (`heads`: the runs' starts
/// wanted, in the scratch's, allocated by the caller): `launch` runs the kernel of the
/// tiling its [`Launch`] names, tuned as `select::{what}` over `K` (from 2^20 elements,
/// or when forced); then the count, downloaded.
#[allow(clippy::too_many_arguments)]
fn run<K: ?Sized>(
    target: &impl LaunchTarget,
    what: &str,
    scratch: &mut Scratch,
    n: usize,
    split: usize,
    partition: bool,
    heads: bool,
    mut launch: impl FnMut(&mut DeviceBuffer<u32>, Launch<'_>) -> Result<()>,
) -> Result<usize> {
    let s = scratch;
    let words = s.lookback.status.len();
    let mut once = |tiling: &Tiling| {
        let epoch = s.lookback.next_epoch()?;
        let l = Launch {
            tiling: *tiling,
            cfg: tiling.launch_config(n),
            total: &mut s.total,
            status: &mut s.lookback.status,
            counter: &mut s.lookback.counter,
            epoch,
            split,
            partition,
        };
        let heads = match &mut s.heads {
            Some(h) if heads => h,
            _ => &mut s.no_heads,
        };
        let result = launch(heads, l);
        s.lookback.after(result)
    };
    let algorithm = format!("select::{what}");
    let tiling = if crate::tune::worth_it(&algorithm, n) {
        // The candidates write only the outputs and the scratch, which the chosen run
        // overwrites (each launch is a new epoch of the look-back); the input is only read.
        let key = crate::tune::key::<K>(target, &algorithm, &[n]);
        *Tuner::new(key, &TUNED_TILINGS, TUNED_TILINGS[0].0)
            .valid(|t| n.div_ceil(t.tile()) <= words)
            .choose(target, &mut once)?
            .config
    } else {
        Tiling::T4096c4
    };
    once(&tiling)?;
    Ok(s.total.download()?[0] as usize)
}

/// [`flagged`] with the caller's [`Scratch`] (its capacity at least `x.len()`).
///
/// # Errors
/// As [`flagged`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn flagged_with_scratch<T: Scalar, F: Flag>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    flags: &impl AsDeviceView<Elem = F>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
    scratch: &mut Scratch,
) -> Result<usize> {
    let what = "flagged";
    if flags.len() != x.len() {
        return Err(Error::LengthMismatch {
            what: format!("select::{what}: the flags (one an element)"),
            expected: x.len(),
            found: flags.len(),
        });
    }
    if !check(what, x.len(), &[("the output", out.len())], scratch)? {
        return Ok(0);
    }
    run::<(T, F)>(
        target,
        what,
        scratch,
        x.len(),
        0,
        false,
        false,
        |heads, l| F::select(target, x, flags, &mut *out, heads, l),
    )
}

/// Keeps `x[i]` where `flags[i]` is set (`true`, or a non-zero `u8`), in order, in
/// `out[..count]`; returns the count, downloaded (which waits for the work queued on the
/// device). `out[count..]` is left as it was. Scratch is allocated for the call.
///
/// # Errors
/// [`Error::LengthMismatch`] when `flags` is not as long as `x` or `out` is shorter than
/// `x`, [`Error::InvalidArgument`] for more than `u32::MAX` elements (before anything is
/// launched); whatever a launch or an allocation returns.
///
/// ```
/// use warpspeed::algorithms::select;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[10i32, 11, 12, 13, 14])?;
/// let flags = dev.upload(&[true, false, false, true, true])?;
/// let mut out = dev.zeros::<i32>(5)?;
/// let kept = select::flagged(&dev, &x, &flags, &mut out)?;
/// assert_eq!(&out.download()?[..kept], &[10, 13, 14]);
/// # Ok(())
/// # }
/// ```
pub fn flagged<T: Scalar, F: Flag>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    flags: &impl AsDeviceView<Elem = F>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<usize> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    flagged_with_scratch(target, x, flags, out, &mut scratch)
}

/// [`select_if`] with the caller's [`Scratch`].
///
/// # Errors
/// As [`select_if`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn select_if_with_scratch<P: Predicate>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = P::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = P::Elem>,
    scratch: &mut Scratch,
) -> Result<usize> {
    let what = "select_if";
    if !check(what, x.len(), &[("the output", out.len())], scratch)? {
        return Ok(0);
    }
    run::<P>(
        target,
        what,
        scratch,
        x.len(),
        0,
        false,
        false,
        |heads, l| P::select(target, x, &mut *out, heads, l),
    )
}

/// Keeps the elements of `x` that `P` keeps, in order, in `out[..count]`; returns the
/// count, downloaded. `out[count..]` is left as it was. Scratch is allocated for the call.
/// `P` is made by [`predicate!`](crate::predicate!) (which has an example).
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` is shorter than `x`, [`Error::InvalidArgument`]
/// for more than `u32::MAX` elements (before anything is launched); whatever a launch or
/// an allocation returns.
pub fn select_if<P: Predicate>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = P::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = P::Elem>,
) -> Result<usize> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    select_if_with_scratch::<P>(target, x, out, &mut scratch)
}

/// [`partition`] with the caller's [`Scratch`].
///
/// # Errors
/// As [`partition`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn partition_with_scratch<P: Predicate>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = P::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = P::Elem>,
    scratch: &mut Scratch,
) -> Result<usize> {
    let n = x.len();
    if !check("partition", n, &[("the output", out.len())], scratch)? {
        return Ok(0);
    }
    // The count first, so that the rejected elements start after the kept ones.
    scratch.total.copy_from_host(&[0])?;
    let cfg = LaunchConfig::new(n.div_ceil(TILE).min(1024) as u32, BLOCK);
    P::count(target, cfg, x, &mut scratch.total)?;
    let split = scratch.total.download()?[0] as usize;
    run::<P>(
        target,
        "partition",
        scratch,
        n,
        split,
        true,
        false,
        |heads, l| P::select(target, x, &mut *out, heads, l),
    )
}

/// The elements of `x` that `P` keeps, in order, then those it rejects, in order, into
/// `out[..x.len()]`; returns how many were kept (the rejected start there), downloaded.
/// Stable in both parts: CUB's `DevicePartition::If` writes the rejected ones in reverse
/// order, this does not (it counts first: two launches, the input read twice). Scratch is
/// allocated for the call.
///
/// # Errors
/// As [`select_if`].
pub fn partition<P: Predicate>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = P::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = P::Elem>,
) -> Result<usize> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    partition_with_scratch::<P>(target, x, out, &mut scratch)
}

/// [`unique`] with the caller's [`Scratch`].
///
/// # Errors
/// As [`unique`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn unique_with_scratch<T: Scalar>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
    scratch: &mut Scratch,
) -> Result<usize> {
    let what = "unique";
    if !check(what, x.len(), &[("the output", out.len())], scratch)? {
        return Ok(0);
    }
    run::<T>(
        target,
        what,
        scratch,
        x.len(),
        0,
        false,
        false,
        |heads, l| {
            by_tiling!(l.tiling, k => k::unique::launch::<T>(
                target,
                l.cfg,
                x,
                &mut *out,
                heads,
                l.total,
                l.status,
                l.counter,
                l.epoch,
                l.split,
                l.partition,
            ))
        },
    )
}

/// The first element of each run of equal consecutive elements of `x`, in order, in
/// `out[..count]` (as `torch.unique_consecutive`); returns the count, downloaded. Elements
/// compare with `==`: a NaN equals nothing, so every NaN is kept. Scratch is allocated
/// for the call.
///
/// # Errors
/// As [`select_if`].
///
/// ```
/// use warpspeed::algorithms::select;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[1u8, 1, 2, 2, 2, 1, 3, 3])?;
/// let mut out = dev.zeros::<u8>(8)?;
/// let n = select::unique(&dev, &x, &mut out)?;
/// assert_eq!(&out.download()?[..n], &[1, 2, 1, 3]);
/// # Ok(())
/// # }
/// ```
pub fn unique<T: Scalar>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<usize> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    unique_with_scratch(target, x, out, &mut scratch)
}

/// [`run_length_encode`] with the caller's [`Scratch`] (its first run-length encoding
/// allocates the runs' starts, `capacity + 1` words, kept for the next).
///
/// # Errors
/// As [`run_length_encode`], and [`Error::LengthMismatch`] when the scratch's capacity is
/// short.
pub fn run_length_encode_with_scratch<T: Scalar>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    values: &mut impl AsDeviceViewMut<Elem = T>,
    counts: &mut impl AsDeviceViewMut<Elem = u32>,
    scratch: &mut Scratch,
) -> Result<usize> {
    let n = x.len();
    let outputs = [("the values", values.len()), ("the counts", counts.len())];
    if !check("run_length_encode", n, &outputs, scratch)? {
        return Ok(0);
    }
    if scratch.heads.is_none() {
        scratch.heads = Some(target.device().zeros::<u32>(scratch.capacity + 1)?);
    }
    let what = "run_length_encode";
    let runs = run::<T>(target, what, scratch, n, 0, false, true, |heads, l| {
        by_tiling!(l.tiling, k => k::unique::launch::<T>(
            target,
            l.cfg,
            x,
            &mut *values,
            heads,
            l.total,
            l.status,
            l.counter,
            l.epoch,
            l.split,
            l.partition,
        ))
    })?;
    let heads = scratch.heads.as_ref().expect("allocated above");
    let mut counts = counts.as_device_view_mut();
    let mut counts = counts.slice_mut(..runs);
    let cfg = LaunchConfig::new(runs.div_ceil(BLOCK as usize) as u32, BLOCK);
    kernels::run_lengths::launch(target, cfg, &heads.slice(..runs + 1), &mut counts)?;
    Ok(runs)
}

/// Each run of equal consecutive elements of `x` as its value, in order, in
/// `values[..runs]`, and its length in `counts[..runs]` (as
/// `torch.unique_consecutive(x, return_counts=True)`); returns the number of runs,
/// downloaded. A NaN equals nothing: each is a run of one. Two launches (the second takes
/// the differences of the runs' starts); scratch is allocated for the call.
///
/// # Errors
/// [`Error::LengthMismatch`] when `values` or `counts` is shorter than `x`,
/// [`Error::InvalidArgument`] for more than `u32::MAX` elements (before anything is
/// launched); whatever a launch or an allocation returns.
///
/// ```
/// use warpspeed::algorithms::select;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[7i64, 7, 7, -1, 4, 4])?;
/// let mut values = dev.zeros::<i64>(6)?;
/// let mut counts = dev.zeros::<u32>(6)?;
/// let runs = select::run_length_encode(&dev, &x, &mut values, &mut counts)?;
/// assert_eq!(&values.download()?[..runs], &[7, -1, 4]);
/// assert_eq!(&counts.download()?[..runs], &[3, 1, 2]);
/// # Ok(())
/// # }
/// ```
pub fn run_length_encode<T: Scalar>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    values: &mut impl AsDeviceViewMut<Elem = T>,
    counts: &mut impl AsDeviceViewMut<Elem = u32>,
) -> Result<usize> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    run_length_encode_with_scratch(target, x, values, counts, &mut scratch)
}
