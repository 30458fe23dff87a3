//! Sorting keys, and keys with values, on a GPU or the simulator: [`sort`] and
//! [`sort_descending`] sort a buffer or view of keys in place, [`sort_pairs`] and
//! [`sort_pairs_descending`] sort keys and move each key's value with it. Keys are every
//! integer type and `f32`/`f64` ([`SortKey`]); values any kernel scalar, half, fp8 or
//! vector type, or `#[gpu_struct]` (see [`sort_pairs`] for how each is moved, and its
//! example for a struct). [`gather`] puts values in the order of indices sorted with
//! their keys. [`sort_with_indices`] sorts keys and gives each one's input position
//! (torch.sort's indices, a stable argsort).
//!
//! **Order.** Integers by value; floats in [`f32::total_cmp`]'s order: `-NaN` (a NaN with
//! its sign bit set) first, then `-inf`, the negative numbers, `-0.0` before `+0.0`, the
//! positive numbers, `+inf`, and `+NaN` last (descending: the reverse). Every sort is
//! stable: equal keys keep their input order, in both directions (a descending sort is not
//! an ascending sort reversed), so `sort_pairs` of keys with their indices gives the
//! stable sorting permutation. [`top_k`] gives the `k` greatest and their positions.
//!
//! **How.** A least-significant-digit radix sort of 8-bit digits, in the manner of CUB's
//! Onesweep (algorithms/src/kernels/sort.rs): one read of the keys counts the digits of
//! every pass; then each pass is one launch that reads the keys once and writes them once,
//! a decoupled look-back over the tiles before it placing each tile's digits. A sort of
//! `b`-bit keys takes `b / 8` passes (4 for `u32`), ping-ponging between the caller's
//! buffer and a scratch buffer of the same size (with an odd count, a last copy back);
//! the result does not depend on timing, so the simulator and the GPU agree exactly, nor
//! on the tile a pass's block takes, which the autotuner chooses per GPU from 2^20 keys
//! ([`TILES_32`], [`TILES_64`]; docs/algorithms.md, "Tiles").
//! Values of 1, 2, 4 or 8 bytes ride the passes with their keys; values of other sizes
//! (a struct of 12 or 16 bytes) are moved once at the end: the keys are sorted with their
//! `u32` positions, then each value is gathered from its position by 8-, 4-, 2- or 1-byte
//! words (a library kernel cannot name a user's struct, but it can move its memory).
//!
//! **Bad input**, before anything is launched: values of another length than the keys
//! ([`Error::LengthMismatch`]), more than `u32::MAX` keys ([`Error::InvalidArgument`]),
//! scratch made for fewer keys or without values. After a launch fails, the keys' and
//! values' contents are unspecified.
//!
//! ```
//! use warpspeed::algorithms::sort;
//! use warpspeed::prelude::*;
//!
//! # fn main() -> Result<(), Error> {
//! let dev = Device::simulator();
//! let mut keys = dev.upload(&[3.5f32, -0.0, f32::NAN, 0.0, -2.0, 3.5])?;
//! let mut index = dev.upload(&[0u32, 1, 2, 3, 4, 5])?;
//! sort::sort_pairs(&dev, &mut keys, &mut index)?;
//! let sorted = keys.download()?;
//! assert_eq!(&sorted[..5], &[-2.0, -0.0, 0.0, 3.5, 3.5]);
//! assert!(sorted[5].is_nan());
//! assert_eq!(index.download()?, vec![4, 1, 3, 0, 5, 2]); // equal keys in input order
//! # Ok(())
//! # }
//! ```

pub use crate::kernels::sort as kernels;
pub use indices::{
    sort_with_indices, sort_with_indices_descending, sort_with_indices_with_scratch, SortIndex,
};

mod indices;
use crate::status::TileStatus;
use std::any::TypeId;
use warpspeed_core::prelude::*;
use warpspeed_core::{
    AsDeviceView, AsDeviceViewMut, DeviceViewMut, KernelScalar, LaunchTarget, Result,
};

/// Threads a block of every sort kernel (one a digit value).
const BLOCK: u32 = 256;
/// Digit values: 8 bits a pass.
pub const RADIX: usize = 256;
/// The most blocks of the histogram launch (each counts a contiguous chunk of keys).
const MAX_HISTOGRAM_BLOCKS: usize = 1024;

/// Ascending or descending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// Least first.
    #[default]
    Ascending,
    /// Greatest first (still stable: equal keys in input order).
    Descending,
}

/// The pass kernel's tiles for keys of 1, 2 or 4 bytes, the autotuner's candidates
/// (`sort` and `sort_pairs` from 2^20 keys; docs/algorithms.md, "Autotuning"): a label and
/// the keys a thread holds (a tile is 256 threads' keys), the default first. The result
/// never depends on the tile (the sort is stable and exact), so the tuner chooses freely.
pub const TILES_32: [(&str, usize); 4] = [
    ("tile4096", 16),
    ("tile6144", 24),
    ("tile8192", 32),
    ("tile2048", 8),
];
/// [`TILES_32`] for keys of 8 bytes (a tile's keys are staged in 48 KiB of static shared
/// memory with the rest: 4096 keys of 8 bytes at most).
pub const TILES_64: [(&str, usize); 2] = [("tile2048", 8), ("tile4096", 16)];

/// A key type the sort takes: `u8`..`u64`, `usize`, `i8`..`i64`, `f32`, `f64`. Sealed: each
/// type's impl picks its kernels (`kernels::histogram_u32`, `kernels::onesweep_u32`, ..).
pub trait SortKey: KernelScalar + sealed::Sealed + crate::radix_select::SelectKey {
    /// Radix passes: the key's bits over 8.
    const PASSES: u32;
    /// The pass kernel's tiles the autotuner chooses among: [`TILES_32`] or [`TILES_64`].
    const TILES: &'static [(&'static str, usize)];
    /// Keys a tile by default (the first of [`SortKey::TILES`]): 4096, 2048 for 64-bit
    /// keys.
    const TILE: usize;
    #[doc(hidden)]
    fn histogram(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        keys: &impl AsDeviceView<Elem = Self>,
        counts: &mut DeviceBuffer<u32>,
        chunk: usize,
        order: Order,
        unchecked: bool,
    ) -> Result<()>;
    /// One pass of tiles of `256 * items` keys (`items` one of [`SortKey::TILES`]').
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn onesweep<V: Int>(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        keys_in: &impl AsDeviceView<Elem = Self>,
        keys_out: &mut impl AsDeviceViewMut<Elem = Self>,
        values_in: &impl AsDeviceView<Elem = V>,
        values_out: &mut impl AsDeviceViewMut<Elem = V>,
        bases: &impl AsDeviceView<Elem = u32>,
        status: &mut DeviceBuffer<u64>,
        counter: &mut DeviceBuffer<u32>,
        epoch: u32,
        order: Order,
        shift: u32,
        pairs: bool,
        items: usize,
        unchecked: bool,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! sort_key {
    ($($k:ty => $u:ty, $hist:ident, $sweep:ident [$($items:literal)*], $wide:ident [$($wide_items:literal)*], $passes:literal, $tiles:ident;)*) => {$(
        impl sealed::Sealed for $k {}
        impl SortKey for $k {
            const PASSES: u32 = $passes;
            const TILES: &'static [(&'static str, usize)] = &$tiles;
            const TILE: usize = 256 * $tiles[0].1;
            fn histogram(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                keys: &impl AsDeviceView<Elem = Self>,
                counts: &mut DeviceBuffer<u32>,
                chunk: usize,
                order: Order,
                unchecked: bool,
            ) -> Result<()> {
                let invert: $u = if order == Order::Descending { <$u>::MAX } else { 0 };
                checked_or_not!(unchecked, kernels::$hist::launch(target, cfg, keys, counts, chunk, invert, $passes))
            }
            fn onesweep<V: Int>(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                keys_in: &impl AsDeviceView<Elem = Self>,
                keys_out: &mut impl AsDeviceViewMut<Elem = Self>,
                values_in: &impl AsDeviceView<Elem = V>,
                values_out: &mut impl AsDeviceViewMut<Elem = V>,
                bases: &impl AsDeviceView<Elem = u32>,
                status: &mut DeviceBuffer<u64>,
                counter: &mut DeviceBuffer<u32>,
                epoch: u32,
                order: Order,
                shift: u32,
                pairs: bool,
                items: usize,
                unchecked: bool,
            ) -> Result<()> {
                let invert: $u = if order == Order::Descending { <$u>::MAX } else { 0 };
                // Keys alone and keys with values are two instances (`PAIRS`): the
                // values' registers and loads are not in the keys' kernel.
                macro_rules! pass {
                    ($kernel:ident, $n:literal) => {
                        if pairs {
                            checked_or_not!(unchecked, kernels::$kernel::launch::<V, $n, { 256 * $n }, true>(
                                target, cfg, keys_in, keys_out, values_in, values_out, bases,
                                status, counter, epoch, invert, shift,
                            ))
                        } else {
                            checked_or_not!(unchecked, kernels::$kernel::launch::<V, $n, { 256 * $n }, false>(
                                target, cfg, keys_in, keys_out, values_in, values_out, bases,
                                status, counter, epoch, invert, shift,
                            ))
                        }
                    };
                }
                match items {
                    $($items => pass!($sweep, $items),)*
                    $($wide_items => pass!($wide, $wide_items),)*
                    _ => Err(Error::InvalidArgument {
                        what: format!("sort: the pass of {}", std::any::type_name::<$k>()),
                        reason: format!("{items} keys a thread is not a tile of SortKey::TILES"),
                    }),
                }
            }
        }
    )*};
}

// The tiles of up to 16 keys a thread (8 of 64-bit keys) launch the pass kernel that asks
// for 4 blocks an SM; the larger ones its twin asking for 2, with room for their registers.
sort_key! {
    u8 => u8, histogram_u8, onesweep_u8 [8 16], onesweep_wide_u8 [24 32], 1, TILES_32;
    u16 => u16, histogram_u16, onesweep_u16 [8 16], onesweep_wide_u16 [24 32], 2, TILES_32;
    u32 => u32, histogram_u32, onesweep_u32 [8 16], onesweep_wide_u32 [24 32], 4, TILES_32;
    u64 => u64, histogram_u64, onesweep_u64 [8], onesweep_wide_u64 [16], 8, TILES_64;
    usize => u64, histogram_usize, onesweep_usize [8], onesweep_wide_usize [16], 8, TILES_64;
    i8 => u8, histogram_i8, onesweep_i8 [8 16], onesweep_wide_i8 [24 32], 1, TILES_32;
    i16 => u16, histogram_i16, onesweep_i16 [8 16], onesweep_wide_i16 [24 32], 2, TILES_32;
    i32 => u32, histogram_i32, onesweep_i32 [8 16], onesweep_wide_i32 [24 32], 4, TILES_32;
    i64 => u64, histogram_i64, onesweep_i64 [8], onesweep_wide_i64 [16], 8, TILES_64;
    f32 => u32, histogram_f32, onesweep_f32 [8 16], onesweep_wide_f32 [24 32], 4, TILES_32;
    f64 => u64, histogram_f64, onesweep_f64 [8], onesweep_wide_f64 [16], 8, TILES_64;
}

/// The scratch memory of sorts of up to `capacity` keys of `K` (with values of `V`, made
/// by [`Scratch::with_values`]): the second buffer of keys (and values) the passes
/// ping-pong with, the digit counts and the look-back's status words (8 bytes each, 256 a
/// tile of the smallest of [`SortKey::TILES`], 2048 keys: 1 byte a key, whichever tile the
/// tuner chooses). Make one and pass it to the
/// `*_with_scratch` entries, so that repeated sorts allocate nothing.
///
/// `V` is any kernel scalar or `#[gpu_struct]`. Values of 1, 2, 4 or 8 bytes ride the
/// passes with their keys; the others (a struct of 12 or 16 bytes, `f32x4`, ..) are moved
/// once, after the keys are sorted with their `u32` positions (see [`sort_pairs`]): then
/// the scratch also holds two buffers of `capacity` positions, and its second buffer of
/// values is the copy the gather reads.
pub struct Scratch<K: SortKey, V: KernelScalar = u32> {
    core: Core<K>,
    /// The values' second buffer (values the passes move), or the copy the gather reads
    /// (values moved by positions); empty without values.
    values: DeviceBuffer<V>,
    /// The positions sorted with the keys, and their second buffer: values moved by
    /// positions only, empty otherwise.
    positions: DeviceBuffer<u32>,
    alt_positions: DeviceBuffer<u32>,
}

/// The scratch of the keys' sort, whatever the values.
struct Core<K: SortKey> {
    keys: DeviceBuffer<K>,
    /// Stay empty: the values of a sort without values (read and written, so two).
    no_values: DeviceBuffer<u32>,
    no_values_out: DeviceBuffer<u32>,
    /// The histogram's counts (zero between sorts: `digit_bases` zeroes them).
    counts: DeviceBuffer<u32>,
    /// A launch failed: the counts may not be zero.
    counts_unknown: bool,
    bases: DeviceBuffer<u32>,
    lookback: TileStatus,
    capacity: usize,
    /// Launch the `unchecked` kernels (the bench's comparison).
    unchecked: bool,
}

impl<K: SortKey> Scratch<K> {
    /// Scratch for sorts of up to `capacity` keys without values, on `dev`.
    ///
    /// # Errors
    /// Whatever the allocation returns.
    pub fn new(dev: &Device, capacity: usize) -> Result<Self> {
        Scratch::allocate(dev, capacity, false)
    }
}

impl<K: SortKey, V: KernelScalar> Scratch<K, V> {
    /// Scratch for sorts of up to `capacity` keys with values of `V` (or without), on
    /// `dev`.
    ///
    /// # Errors
    /// Whatever the allocation returns.
    pub fn with_values(dev: &Device, capacity: usize) -> Result<Self> {
        Scratch::allocate(dev, capacity, true)
    }

    fn allocate(dev: &Device, capacity: usize, values: bool) -> Result<Self> {
        // The most tiles any candidate makes: the smallest tile's.
        let smallest = K::TILES.iter().map(|&(_, items)| 256 * items).min();
        let tiles = capacity.div_ceil(smallest.unwrap_or(K::TILE)).max(1);
        let positions = if values && !passes_move::<V>() {
            capacity
        } else {
            0
        };
        Ok(Scratch {
            core: Core {
                keys: dev.zeros::<K>(capacity)?,
                no_values: dev.zeros::<u32>(0)?,
                no_values_out: dev.zeros::<u32>(0)?,
                counts: dev.zeros::<u32>(K::PASSES as usize * RADIX)?,
                counts_unknown: false,
                bases: dev.zeros::<u32>(K::PASSES as usize * RADIX)?,
                lookback: TileStatus::new(dev, tiles * RADIX)?,
                capacity,
                unchecked: false,
            },
            values: dev.zeros::<V>(if values { capacity } else { 0 })?,
            positions: dev.zeros::<u32>(positions)?,
            alt_positions: dev.zeros::<u32>(positions)?,
        })
    }

    /// The most keys a sort with this scratch may have.
    pub fn capacity(&self) -> usize {
        self.core.capacity
    }

    /// Sorts with this scratch launch the `#[gpu_kernel(unchecked)]` twins of the kernels:
    /// what the bench measures the bounds checks' cost against.
    #[doc(hidden)]
    pub fn use_unchecked_kernels(&mut self, unchecked: bool) {
        self.core.unchecked = unchecked;
    }
}

/// The kernel scalars `gather` moves as themselves.
macro_rules! for_each_scalar {
    ($m:ident) => {
        $m!(bool u8 u16 u32 u64 usize i8 i16 i32 i64 isize f16 bf16 f32 f64)
    };
}

/// Whether the passes move values of `V` (any type of 1, 2, 4 or 8 bytes, kernel scalars
/// included, as the unsigned word of its size); other values are moved by their positions.
fn passes_move<V: KernelScalar>() -> bool {
    // Every kernel scalar has one of these sizes.
    matches!(std::mem::size_of::<V>(), 1 | 2 | 4 | 8)
}

/// `keys` in place, least first (for floats, [`f32::total_cmp`]'s order), stable; queued
/// on `target` (a `&Device` or a `&Stream`) without waiting; scratch is allocated for the
/// call.
///
/// # Errors
/// [`Error::InvalidArgument`] for more than `u32::MAX` keys (before anything is
/// launched), and whatever a launch or an allocation returns.
///
/// ```
/// use warpspeed::algorithms::sort;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let mut keys = dev.upload(&[5i64, -3, 9, 0, -3])?;
/// sort::sort(&dev, &mut keys)?;
/// assert_eq!(keys.download()?, vec![-3, -3, 0, 5, 9]);
/// sort::sort_descending(&dev, &mut keys)?;
/// assert_eq!(keys.download()?, vec![9, 5, 0, -3, -3]);
/// # Ok(())
/// # }
/// ```
pub fn sort<K: SortKey>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
) -> Result<()> {
    let mut scratch = Scratch::<K>::new(target.device(), keys.len())?;
    keys_only("sort", target, keys, Order::Ascending, &mut scratch)
}

/// `keys` in place, greatest first, stable (equal keys keep their input order).
///
/// # Errors
/// As [`sort`].
pub fn sort_descending<K: SortKey>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
) -> Result<()> {
    let mut scratch = Scratch::<K>::new(target.device(), keys.len())?;
    keys_only(
        "sort_descending",
        target,
        keys,
        Order::Descending,
        &mut scratch,
    )
}

/// `keys` in place, least first, stable, and `values` (as long as `keys`) with them:
/// `values[i]` ends where `keys[i]` ends.
///
/// The values are any kernel scalar, vector or half type, or a `#[gpu_struct]`. Values of
/// 1, 2, 4 or 8 bytes ride every pass with their keys (a struct of 8 bytes as a `u64`);
/// larger or odd-sized ones (a struct of 12 or 16 bytes, say) are moved once: the keys
/// are sorted with their positions `0..n`, then each value is copied from its position
/// (a gather, by 8-, 4-, 2- or 1-byte words, whichever divides the value's size). The
/// order and the stability are the same either way.
///
/// # Errors
/// [`Error::LengthMismatch`] when `values`' length is not `keys`', otherwise as [`sort`].
///
/// ```
/// use warpspeed::algorithms::sort;
/// use warpspeed::prelude::*;
///
/// #[gpu_struct]
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Hit {
///     id: u32,
///     energy: f32,
///     layer: u8,
/// }
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let hit = |id, energy, layer| Hit { id, energy, layer };
/// let mut layers = dev.upload(&[2u8, 0, 2, 1])?;
/// let mut hits = dev.upload(&[hit(7, 1.5, 2), hit(8, 0.5, 0), hit(9, 2.5, 2), hit(3, 4.0, 1)])?;
/// sort::sort_pairs(&dev, &mut layers, &mut hits)?;
/// assert_eq!(layers.download()?, vec![0, 1, 2, 2]);
/// assert_eq!(
///     hits.download()?,
///     vec![hit(8, 0.5, 0), hit(3, 4.0, 1), hit(7, 1.5, 2), hit(9, 2.5, 2)] // stable
/// );
/// # Ok(())
/// # }
/// ```
pub fn sort_pairs<K: SortKey, V: KernelScalar>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    values: &mut impl AsDeviceViewMut<Elem = V>,
) -> Result<()> {
    pairs_allocating("sort_pairs", target, keys, values, Order::Ascending)
}

/// [`sort_pairs`] greatest first, stable.
///
/// # Errors
/// As [`sort_pairs`].
pub fn sort_pairs_descending<K: SortKey, V: KernelScalar>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    values: &mut impl AsDeviceViewMut<Elem = V>,
) -> Result<()> {
    let what = "sort_pairs_descending";
    pairs_allocating(what, target, keys, values, Order::Descending)
}

/// [`sort`] or [`sort_descending`] with the caller's [`Scratch`] (its capacity at least
/// `keys.len()`), so that repeated sorts allocate nothing.
///
/// # Errors
/// As [`sort`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn sort_with_scratch<K: SortKey, V: KernelScalar>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    order: Order,
    scratch: &mut Scratch<K, V>,
) -> Result<()> {
    keys_only("sort_with_scratch", target, keys, order, scratch)
}

/// [`sort_pairs`] or [`sort_pairs_descending`] with the caller's [`Scratch`] (made by
/// [`Scratch::with_values`], its capacity at least `keys.len()`).
///
/// # Errors
/// As [`sort_pairs`], and [`Error::LengthMismatch`] when the scratch's capacity is short
/// or it has no values.
pub fn sort_pairs_with_scratch<K: SortKey, V: KernelScalar>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    values: &mut impl AsDeviceViewMut<Elem = V>,
    order: Order,
    scratch: &mut Scratch<K, V>,
) -> Result<()> {
    let what = "sort_pairs_with_scratch";
    pairs(what, target, keys, values, order, scratch)
}

/// [`pairs`] with scratch allocated for the call.
fn pairs_allocating<K: SortKey, V: KernelScalar>(
    what: &str,
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    values: &mut impl AsDeviceViewMut<Elem = V>,
    order: Order,
) -> Result<()> {
    let mut scratch = Scratch::<K, V>::with_values(target.device(), keys.len())?;
    pairs(what, target, keys, values, order, &mut scratch)
}

/// How a sort of `n` keys of `K` is launched with tiles of `256 * items` keys (`items` one
/// of [`SortKey::TILES`]'): `(histogram, chunk, passes)`: the histogram launch (blocks of
/// 256 threads, each counting `chunk` keys, a multiple of 1024) and each pass's (one block
/// a tile; with values, `256 * items * size_of::<V>()` bytes of dynamic shared memory).
pub fn launches<K: SortKey, V: Scalar>(
    n: usize,
    pairs: bool,
    items: usize,
) -> (LaunchConfig, usize, LaunchConfig) {
    let tile = 256 * items;
    let tiles = n.div_ceil(tile).max(1);
    let blocks = tiles.min(MAX_HISTOGRAM_BLOCKS);
    let chunk = n.div_ceil(blocks).next_multiple_of(1024).max(1024);
    let blocks = n.div_ceil(chunk).max(1);
    let shared = if pairs {
        tile * std::mem::size_of::<V>()
    } else {
        0
    };
    (
        LaunchConfig::new(blocks as u32, BLOCK),
        chunk,
        LaunchConfig::new(tiles as u32, BLOCK).with_shared_mem(shared as u32),
    )
}

/// The checks every entry makes before anything is launched: `values` the name and
/// length of the buffer beside the keys ("the values", "the indices"; `None` without).
fn check<K: SortKey, V: KernelScalar>(
    what: &str,
    n: usize,
    values: Option<(&str, usize)>,
    scratch: &Scratch<K, V>,
) -> Result<()> {
    if let Some((name, len)) = values {
        if len != n {
            return Err(Error::LengthMismatch {
                what: format!("sort::{what}: {name} (the keys' length)"),
                expected: n,
                found: len,
            });
        }
    }
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument {
            what: format!("sort::{what}"),
            reason: format!("{n} keys: at most u32::MAX (4294967295) keys are sorted at once"),
        });
    }
    if scratch.core.capacity < n {
        return Err(Error::LengthMismatch {
            what: format!("sort::{what}: the scratch's capacity"),
            expected: n,
            found: scratch.core.capacity,
        });
    }
    if values.is_some() && scratch.values.len() < n {
        return Err(Error::LengthMismatch {
            what: format!("sort::{what}: the scratch's values (make it with Scratch::with_values)"),
            expected: n,
            found: scratch.values.len(),
        });
    }
    Ok(())
}

/// A sort of keys alone.
fn keys_only<K: SortKey, V: KernelScalar>(
    what: &str,
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    order: Order,
    scratch: &mut Scratch<K, V>,
) -> Result<()> {
    check(what, keys.len(), None, scratch)?;
    run::<K, u32>(target, keys, None, order, &mut scratch.core)
}

/// A sort of keys with values of any type: the checks, then the values' way (see
/// [`sort_pairs`]): a type of 1, 2, 4 or 8 bytes rides the passes as the unsigned word of
/// its size (so the pass kernels are instantiated for four value types, not one a type),
/// any other is moved by its positions.
fn pairs<K: SortKey, V: KernelScalar>(
    what: &str,
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    values: &mut impl AsDeviceViewMut<Elem = V>,
    order: Order,
    scratch: &mut Scratch<K, V>,
) -> Result<()> {
    let n = keys.len();
    check(what, n, Some(("the values", values.len())), scratch)?;
    if n <= 1 {
        return Ok(());
    }
    let values = values.as_device_view_mut();
    let core = &mut scratch.core;
    let alt = scratch.values.slice_mut(..n);
    match std::mem::size_of::<V>() {
        1 => as_words::<K, V, u8>(target, keys, values, alt, order, core),
        2 => as_words::<K, V, u16>(target, keys, values, alt, order, core),
        4 => as_words::<K, V, u32>(target, keys, values, alt, order, core),
        8 => as_words::<K, V, u64>(target, keys, values, alt, order, core),
        _ => {
            let unchecked = core.unchecked;
            let mut positions = scratch.positions.slice_mut(..n);
            let mut alt_positions = scratch.alt_positions.slice_mut(..n);
            let cfg = LaunchConfig::for_num_elems(n as u32);
            kernels::iota::launch(target, cfg, &mut positions)?;
            let moving = Some((&mut positions, &mut alt_positions));
            run::<K, u32>(target, keys, moving, order, core)?;
            // The values' copy, then each value from its position back into the caller's.
            let (mut values, mut copy_of) = (values, alt);
            copy(target, &values, &mut copy_of)?;
            gather_values(target, &mut copy_of, &positions, &mut values, unchecked)
        }
    }
}

/// `view` typed as `S`, which is `V` (the caller compared their `TypeId`s).
fn same<V: KernelScalar, S: KernelScalar>(view: DeviceViewMut<'_, V>) -> DeviceViewMut<'_, S> {
    match view.downcast::<S>() {
        Ok(view) => view,
        Err(_) => unreachable!(
            "{} is {}",
            std::any::type_name::<V>(),
            std::any::type_name::<S>()
        ),
    }
}

/// The passes with values of `V` (1, 2, 4 or 8 bytes: a kernel scalar, a `#[gpu_struct]`
/// of 8 bytes, `f16x2`, ..) moved as the word `W` of their size.
fn as_words<K: SortKey, V: KernelScalar, W: Int>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    mut values: DeviceViewMut<'_, V>,
    mut alt: DeviceViewMut<'_, V>,
    order: Order,
    core: &mut Core<K>,
) -> Result<()> {
    // SAFETY: `W` is `V`'s size, and the passes only copy whole words from the values (or
    // their second buffer, zeroed or earlier values) to the other: each word left is a
    // whole value of `V`.
    unsafe {
        values.with_words::<W, _>(|values| {
            alt.with_words::<W, _>(|alt| run(target, keys, Some((values, alt)), order, core))
        })
    }??
}

/// `out[i] = src[positions[i]]` for values of any type, by their words: 8 bytes when the
/// value's size is a multiple of 8, else 4, 2 or 1. `src` is the caller's own copy (its
/// memory is lent as words, which takes it mutably).
fn gather_values<V: KernelScalar>(
    target: &impl LaunchTarget,
    src: &mut DeviceViewMut<'_, V>,
    positions: &impl AsDeviceView<Elem = u32>,
    out: &mut DeviceViewMut<'_, V>,
    unchecked: bool,
) -> Result<()> {
    match std::mem::size_of::<V>() {
        s if s % 8 == 0 => gather_words::<V, u64>(target, src, positions, out, unchecked),
        s if s % 4 == 0 => gather_words::<V, u32>(target, src, positions, out, unchecked),
        s if s % 2 == 0 => gather_words::<V, u16>(target, src, positions, out, unchecked),
        _ => gather_words::<V, u8>(target, src, positions, out, unchecked),
    }
}

/// [`gather_values`] by words of `W`.
fn gather_words<V: KernelScalar, W: Int>(
    target: &impl LaunchTarget,
    src: &mut DeviceViewMut<'_, V>,
    positions: &impl AsDeviceView<Elem = u32>,
    out: &mut DeviceViewMut<'_, V>,
    unchecked: bool,
) -> Result<()> {
    let words = std::mem::size_of::<V>() / std::mem::size_of::<W>();
    let total = out.len() * words;
    if total == 0 {
        return Ok(());
    }
    // One thread a word, grid-stride past 2^20 blocks.
    let cfg = LaunchConfig::new(total.div_ceil(256).min(1 << 20) as u32, 256);
    // SAFETY: `W` divides `V`'s size, and the gather copies whole values, word by word
    // (every word of `out`'s value `i` from `src`'s value `positions[i]`): each value
    // left in `out` is a value of `src`, and `src` is only read.
    unsafe {
        src.with_words::<W, _>(|src| {
            out.with_words::<W, _>(|out| {
                if unchecked {
                    kernels::unchecked::gather_words::launch(
                        target, cfg, src, positions, out, words,
                    )
                } else {
                    kernels::gather_words::launch(target, cfg, src, positions, out, words)
                }
            })
        })
    }??
}

/// Static shared memory of a pass besides its staged keys: the warps' digit counts, the
/// digits' places, the warps' sums, the tile id and the ranking's table of lanes
/// (`kernels::onesweep_*`: 2048 words; `onesweep_wide_*`, which has none, one word).
const PASS_SHARED: usize = (2048 + 256 + 8 + 1 + 2048) * 4;

/// The sort of `keys` (with `values` and their second buffer, both `keys.len()` long:
/// checked by the entries) by [`passes`] with tiles the autotuner chooses among
/// [`SortKey::TILES`] from 2^20 keys (or when forced), the default's below.
///
/// Tuning runs whole sorts of the caller's keys (and values) in place, one after another:
/// a stable sort of sorted keys leaves them (and their values) as they are, so the result
/// is that of one sort. The candidates are timed on the sorted keys, whose digits are
/// spread over each pass's tiles much as random keys' are.
fn run<K: SortKey, V: Int>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    mut values: Option<(&mut DeviceViewMut<'_, V>, &mut DeviceViewMut<'_, V>)>,
    order: Order,
    s: &mut Core<K>,
) -> Result<()> {
    let n = keys.len();
    if n <= 1 {
        return Ok(());
    }
    let pairs = values.is_some();
    let mut launch = |&items: &usize| {
        let values = values.as_mut().map(|(v, alt)| (&mut **v, &mut **alt));
        passes(target, keys, values, order, s, items)
    };
    if !crate::tune::worth_it("sort", n) {
        return launch(&K::TILES[0].1);
    }
    // Keys with values are another kernel: the value's word is in the key.
    let key = if pairs {
        crate::tune::key::<(K, V)>(target, "sort", &[n])
    } else {
        crate::tune::key::<K>(target, "sort", &[n])
    };
    let limit = target.device().limits().max_shared_mem_per_block_optin as usize;
    let fits = |&items: &usize| {
        let tile = 256 * items;
        let values = if pairs {
            tile * std::mem::size_of::<V>()
        } else {
            0
        };
        tile * std::mem::size_of::<K>() + PASS_SHARED + values <= limit
    };
    let choice = warpspeed_core::autotune::Tuner::new(key, K::TILES, K::TILES[0].0)
        .valid(fits)
        .choose(target, &mut launch)?;
    launch(choice.config)
}

/// The histogram, the passes with tiles of `256 * items` keys and the copy back.
fn passes<K: SortKey, V: Int>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    values: Option<(&mut DeviceViewMut<'_, V>, &mut DeviceViewMut<'_, V>)>,
    order: Order,
    s: &mut Core<K>,
    items: usize,
) -> Result<()> {
    let n = keys.len();
    let pairs = values.is_some();
    let (histogram, chunk, pass) = launches::<K, V>(n, pairs, items);
    if s.counts_unknown {
        s.counts.fill(0)?;
        s.counts_unknown = false;
    }
    let unchecked = s.unchecked;
    let counted = K::histogram(
        target,
        histogram,
        keys,
        &mut s.counts,
        chunk,
        order,
        unchecked,
    )
    .and_then(|()| {
        let cfg = LaunchConfig::new(K::PASSES, BLOCK);
        kernels::digit_bases::launch(target, cfg, &mut s.counts, &mut s.bases)
    });
    if counted.is_err() {
        s.counts_unknown = true;
        return counted;
    }
    // Even passes read the caller's memory and write the scratch, odd ones back: each
    // pass swaps what it read with what it wrote.
    let (mut from, mut to) = (keys.as_device_view_mut(), s.keys.slice_mut(..n));
    let mut values = values.map(|(values, alt)| (values.slice_mut(..), alt.slice_mut(..)));
    for p in 0..K::PASSES {
        let bases = s.bases.slice(p as usize * RADIX..(p as usize + 1) * RADIX);
        let shift = 8 * p;
        let lb = &mut s.lookback;
        let epoch = lb.next_epoch()?;
        let (status, counter) = (&mut lb.status, &mut lb.counter);
        let result = match &mut values {
            Some((values, alt)) => K::onesweep(
                target, pass, &from, &mut to, values, alt, &bases, status, counter, epoch, order,
                shift, true, items, unchecked,
            ),
            None => K::onesweep(
                target,
                pass,
                &from,
                &mut to,
                &s.no_values,
                &mut s.no_values_out,
                &bases,
                status,
                counter,
                epoch,
                order,
                shift,
                false,
                items,
                unchecked,
            ),
        };
        lb.after(result)?;
        std::mem::swap(&mut from, &mut to);
        values = values.map(|(values, alt)| (alt, values));
    }
    if K::PASSES % 2 == 1 {
        // The last pass wrote the scratch (now `from`): copy back, in the target's order.
        copy(target, &from, &mut to)?;
        if let Some((written, mut caller)) = values {
            copy(target, &written, &mut caller)?;
        }
    }
    Ok(())
}

/// `src` into `dst` (the same length), queued on `target`'s stream.
pub(crate) fn copy<T: KernelScalar>(
    target: &impl LaunchTarget,
    src: &impl AsDeviceView<Elem = T>,
    dst: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    match target.stream() {
        Some(stream) => stream.copy(src, dst),
        None => dst.as_device_view_mut().copy_from(src),
    }
}

/// `out[i] = src[indices[i]]` for every `i`, values of any type (kernel scalars,
/// vectors, `#[gpu_struct]`s): what puts values in the order of keys sorted with their
/// indices (`sort_pairs(keys, indices)`, [`top_k`]'s positions). Queued on `target`
/// without waiting. A kernel scalar is gathered as itself; another type by its 8-, 4-,
/// 2- or 1-byte words, from a copy of `src` made for the call (the words of memory are
/// only lent mutably).
///
/// # Errors
/// [`Error::LengthMismatch`] when `indices` is not as long as `out` (before anything is
/// launched). An index past `src`'s end is the kernel's bounds fault, as in any checked
/// kernel: [`Error::OutOfBounds`] from the launch on the simulator, at the next
/// synchronisation on a GPU.
///
/// ```
/// use warpspeed::algorithms::sort;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let names = dev.upload(&[10u16, 11, 12, 13])?;
/// let order = dev.upload(&[3u32, 0, 0, 2])?;
/// let mut out = dev.zeros::<u16>(4)?;
/// sort::gather(&dev, &names, &order, &mut out)?;
/// assert_eq!(out.download()?, vec![13, 10, 10, 12]);
/// # Ok(())
/// # }
/// ```
pub fn gather<V: KernelScalar>(
    target: &impl LaunchTarget,
    src: &impl AsDeviceView<Elem = V>,
    indices: &impl AsDeviceView<Elem = u32>,
    out: &mut impl AsDeviceViewMut<Elem = V>,
) -> Result<()> {
    let n = out.len();
    if indices.len() != n {
        return Err(Error::LengthMismatch {
            what: "sort::gather: the indices (the output's length)".into(),
            expected: n,
            found: indices.len(),
        });
    }
    if n == 0 {
        return Ok(());
    }
    let cfg = LaunchConfig::new(n.div_ceil(256).min(1 << 20) as u32, 256);
    let (src, out) = (src.as_device_view(), out.as_device_view_mut());
    let id = TypeId::of::<V>();
    macro_rules! as_itself {
        ($($s:ty)*) => {$(
            if id == TypeId::of::<$s>() {
                let src = src.downcast::<$s>().expect("the same type");
                let mut out = same::<V, $s>(out);
                return kernels::gather::launch(target, cfg, &src, indices, &mut out);
            }
        )*};
    }
    for_each_scalar!(as_itself);
    let mut copy_of = target.device().zeros::<V>(src.len())?;
    copy(target, &src, &mut copy_of)?;
    let mut out = out;
    gather_values(target, &mut copy_of.as_view_mut(), indices, &mut out, false)
}

/// The `k` greatest elements of `x` into `values` (greatest first, in
/// [`f32::total_cmp`]'s order for floats, so a `+NaN` counts as the greatest, as in
/// `torch.topk`) and their positions in `x` into `indices` (equal elements by lower
/// position first); `x` is left as it is. Both outputs are `k` long. It waits
/// for the result of each digit pass (below); memory for the kept keys is allocated for
/// the call.
///
/// **How**: a radix select, as torch.topk's. Digit by digit from the top (8 bits a pass,
/// one read of `x` each), the keys that agree with the digits chosen so far are counted
/// by their next digit, and the digit holding the `k`-th greatest is chosen; the passes
/// stop at the last digit or once at most `k + 8192` keys reach the chosen prefix (two
/// passes for uniform `f32` keys). One more read keeps those keys in order with their
/// positions, and a stable descending [`sort_pairs`] of only those gives the first `k`.
/// Each pass downloads 256 counts, so the call waits for the device once a pass. Many
/// keys equal to the `k`-th greatest are all kept and sorted: all keys equal costs a
/// whole sort.
///
/// # Errors
/// [`Error::InvalidArgument`] when `k > x.len()`, [`Error::LengthMismatch`] when `values`
/// or `indices` is not `k` long (before anything is launched); as [`sort`] otherwise.
///
/// ```
/// use warpspeed::algorithms::sort;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[0.5f32, 3.0, -1.0, 3.0, 2.0])?;
/// let (mut top, mut at) = (dev.zeros::<f32>(3)?, dev.zeros::<u32>(3)?);
/// sort::top_k(&dev, &x, 3, &mut top, &mut at)?;
/// assert_eq!(top.download()?, vec![3.0, 3.0, 2.0]);
/// assert_eq!(at.download()?, vec![1, 3, 4]);
/// # Ok(())
/// # }
/// ```
pub fn top_k<K: SortKey>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = K>,
    k: usize,
    values: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = u32>,
) -> Result<()> {
    top_k_with(target, x, k, values, indices, false)
}

/// [`top_k`] launching the `#[gpu_kernel(unchecked)]` twins of its kernels (the bench's
/// comparison).
#[doc(hidden)]
pub fn top_k_unchecked<K: SortKey>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = K>,
    k: usize,
    values: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = u32>,
) -> Result<()> {
    top_k_with(target, x, k, values, indices, true)
}

/// [`top_k`]'s checks, then the radix select (`crate::radix_select`).
fn top_k_with<K: SortKey>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = K>,
    k: usize,
    values: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = u32>,
    unchecked: bool,
) -> Result<()> {
    let n = x.len();
    if k > n {
        return Err(Error::InvalidArgument {
            what: "sort::top_k".into(),
            reason: format!("k = {k} is more than the input's {n} elements"),
        });
    }
    for (what, len) in [("the values", values.len()), ("the indices", indices.len())] {
        if len != k {
            return Err(Error::LengthMismatch {
                what: format!("sort::top_k: {what} (k)"),
                expected: k,
                found: len,
            });
        }
    }
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument {
            what: "sort::top_k".into(),
            reason: format!("{n} elements: at most u32::MAX (4294967295)"),
        });
    }
    if k == 0 {
        return Ok(());
    }
    crate::radix_select::top_k(target, x, k, values, indices, unchecked)
}
