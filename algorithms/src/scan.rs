//! Inclusive and exclusive scans (prefix sums, running minima, ..) of a buffer or view with
//! any [`Operator`], on a GPU or the simulator: [`inclusive`] and [`exclusive`] with a
//! user's operator ([`operator!`](crate::operator!)) over any kernel scalar or
//! `#[gpu_struct]` type, [`inclusive_sum`] and [`exclusive_sum`] for every integer and
//! float type.
//!
//! `inclusive`: `out[i] = x[0] ∘ x[1] ∘ .. ∘ x[i]`. `exclusive`: `out[0]` is the identity,
//! `out[i] = x[0] ∘ .. ∘ x[i - 1]`; an operator without an identity ([`Min`](crate::operator::Min),
//! [`Max`](crate::operator::Max)) has no exclusive scan, which is refused.
//!
//! **How.** The library's sums, minima and maxima of every integer type, `f32` and `f64`
//! take one launch, which reads the input once and writes the output once:
//! - `u32` and `i32` (every operator) and the `f32` min and max: the single-pass scan with
//!   decoupled look-back (as CUB's `DeviceScan`; algorithms/src/template/lookback.rs),
//!   whose results do not depend on the order in which it combines;
//! - the others (the `f32` and `f64` sums among them): the single-pass scan with a
//!   *fixed-order* look-back (algorithms/src/template/tree_lookback.rs), which combines
//!   each tile's prefix from its predecessors' totals by a tree fixed by the length, so a
//!   float scan is the same run to run and on both backends. Not the CPU's left-to-right
//!   sums: a tile's prefix is a combination of at most 31 values per level (three levels
//!   for 2^28 `f32`), and each element adds its tile's prefix, its warp's, its lane's and
//!   its own running sum.
//!
//! `f16`, `bf16` and a user's operators take three launches
//! (algorithms/src/template/scan.rs): the input is cut into at most 1024 chunks of whole
//! 4096-element tiles ([`chunks_for`]); the first launch combines each chunk into a total,
//! one block scans the totals into each chunk's prefix, and the last launch scans each
//! chunk tile by tile from its prefix. No block waits for another inside a launch, and the
//! order of combining steps is a function of the length alone: deterministic too. The
//! input is read twice and the output written once.
//!
//! **Autotuning.** From 2^20 elements, a single-pass scan whose result cannot depend on
//! the tiles (sums, minima, maxima of integers) takes the threads a block, and so the
//! tile, that `warpspeed::autotune` timed fastest on this GPU among [`TUNED_BLOCKS`];
//! float scans and a user's operators keep the defaults above (docs/algorithms.md,
//! "Autotuning").
//!
//! **Bad input**, before anything is launched: `out` of another length than `x`
//! ([`Error::LengthMismatch`]), an exclusive scan with an operator without an identity
//! ([`Error::InvalidArgument`]), scratch made for fewer elements.

use crate::builtin::Reducible;
pub use crate::kernels::scan as kernels;
use crate::operator::{Operator, Sum};
use crate::status::TileStatus;
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, KernelScalar, LaunchTarget, Result};

/// Threads a block.
const BLOCK: u32 = 256;
/// Elements a tile: 16 a thread.
pub const TILE: usize = 4096;
/// The most chunks (blocks of the first and last launches).
const MAX_CHUNKS: usize = 1024;
/// Elements of dynamic shared memory a `scan_*` kernel takes: 8 warps' stages of 528 and
/// 8 warps' 32 lane totals.
pub const SHARED_ELEMS: usize = 8 * 528 + 8 * 32;

/// The launches of a three-launch scan (`f16`, `bf16`, a user's operator) of `n` elements
/// of `T`: how the input is cut ([`chunks_for`]) and each launch's configuration, as the
/// entries here launch the kernels (for a user who launches `kernels` by hand).
#[derive(Clone, Copy, Debug)]
pub struct Launches {
    /// Chunks, one block each (at most 1024).
    pub chunks: usize,
    /// Elements a chunk (a multiple of [`TILE`]).
    pub chunk: usize,
    /// The operator's reduce kernel (`block_sums_*` and its kin) over the input: `chunks`
    /// blocks.
    pub totals: LaunchConfig,
    /// `scan_*` over the totals: one block, exclusive, `chunk = chunks`.
    pub prefixes: LaunchConfig,
    /// `scan_*` over the input after the prefixes: `chunks` blocks.
    pub scan: LaunchConfig,
}

/// What the autotuner chooses among for a single-pass scan's threads a block, so its tile
/// (items a thread times threads): the default 256 first, then 128. Only where the result
/// does not depend on the tiles (sums, minima and maxima of integers); the others keep 256,
/// so a float scan rounds the same on every GPU.
pub const TUNED_BLOCKS: [(&str, u32); 2] = [("block256", BLOCK), ("block128", 128)];

/// The fewest elements a single-pass scan's tile has (16 items a thread, 128 threads): what
/// the scratch's words are counted for.
const MIN_LOOKBACK_TILE: usize = 16 * 128;

/// The status words a single-pass scan of `tiles` tiles publishes in: one a tile for the
/// decoupled look-back; for the fixed-order one, one or two a value (two for 64-bit
/// values), for its levels (`tiles`, `tiles / 32`, .., rounded up, and the top's one
/// value): at most `2 * (2 * tiles + 8)`.
fn lookback_words(tiles: usize) -> usize {
    2 * (2 * tiles + 8)
}

/// [`Launches`] for `n` elements of `T` (the scans' dynamic shared memory is
/// [`SHARED_ELEMS`] elements of `T`), as the entries make them untuned.
pub fn launches<T: KernelScalar>(n: usize) -> Launches {
    launches_with::<T>(n, MAX_CHUNKS)
}

/// [`Launches`] for `n` elements of `T` in at most `max_chunks` chunks (1 to 1024).
pub fn launches_with<T: KernelScalar>(n: usize, max_chunks: usize) -> Launches {
    let (chunks, chunk) = chunks_for_max(n, max_chunks);
    let shared = (SHARED_ELEMS * std::mem::size_of::<T>()) as u32;
    Launches {
        chunks,
        chunk,
        totals: LaunchConfig::new(chunks as u32, BLOCK),
        prefixes: LaunchConfig::new(1, BLOCK).with_shared_mem(shared),
        scan: LaunchConfig::new(chunks as u32, BLOCK).with_shared_mem(shared),
    }
}

/// How a scan of `n` elements is cut: `(chunks, chunk)`, `chunk` elements a block (a
/// multiple of [`TILE`]), at most 1024 chunks, at least one.
pub fn chunks_for(n: usize) -> (usize, usize) {
    chunks_for_max(n, MAX_CHUNKS)
}

/// [`chunks_for`] with at most `max_chunks` chunks (1 to 1024).
fn chunks_for_max(n: usize, max_chunks: usize) -> (usize, usize) {
    let chunk = n
        .div_ceil(max_chunks.clamp(1, MAX_CHUNKS))
        .div_ceil(TILE)
        .max(1)
        * TILE;
    (n.div_ceil(chunk).max(1), chunk)
}

/// The scratch memory of scans of up to `capacity` elements: each chunk's total and
/// prefix. Make one and pass it to the `*_with_scratch` entries, so that repeated scans
/// allocate nothing.
pub struct Scratch<T: KernelScalar> {
    totals: DeviceBuffer<T>,
    prefixes: DeviceBuffer<T>,
    capacity: usize,
    /// The single-pass scans' words (`lookback_words` of the most tiles), tile counter and
    /// last epoch.
    lookback: TileStatus,
}

impl<T: KernelScalar> Scratch<T> {
    /// Scratch for scans of up to `capacity` elements on `dev` (two buffers of
    /// [`chunks_for`]`(capacity).0` elements, at most 1024 each).
    ///
    /// # Errors
    /// Whatever the allocation returns.
    pub fn new(dev: &Device, capacity: usize) -> Result<Self> {
        let (chunks, _) = chunks_for(capacity);
        Ok(Scratch {
            totals: dev.zeros::<T>(chunks)?,
            prefixes: dev.zeros::<T>(chunks)?,
            capacity,
            lookback: TileStatus::with_words(
                dev,
                lookback_words(capacity.div_ceil(MIN_LOOKBACK_TILE)),
            )?,
        })
    }

    /// The most elements a scan with this scratch may have.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

/// The three launches of a scan by `O`, after the checks every entry shares.
fn run<O: Operator>(
    what: &str,
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    scratch: &mut Scratch<O::Elem>,
    inclusive: bool,
) -> Result<()> {
    let n = x.len();
    if out.len() != n {
        return Err(Error::LengthMismatch {
            what: format!("scan::{what}: the output (the input's length)"),
            expected: n,
            found: out.len(),
        });
    }
    if !inclusive && !O::HAS_IDENTITY {
        return Err(Error::InvalidArgument {
            what: format!("scan::{what}"),
            reason: format!(
                "`{}` has no identity, so an exclusive scan has no first element; scan inclusively",
                std::any::type_name::<O>()
            ),
        });
    }
    if scratch.capacity < n {
        return Err(Error::LengthMismatch {
            what: format!("scan::{what}: the scratch's capacity"),
            expected: n,
            found: scratch.capacity,
        });
    }
    if n == 0 {
        return Ok(());
    }
    if let Some(items) = O::lookback_items() {
        let tiles = |block: u32| n.div_ceil(items * block as usize);
        // Grids up to 2^31 - 1 blocks; a longer input takes the three launches.
        if tiles(TUNED_BLOCKS[1].1) < (1 << 31) {
            return single_pass::<O>(target, x, out, scratch, inclusive, items);
        }
    }
    three_launches::<O>(target, x, out, scratch, inclusive, &launches::<O::Elem>(n))
}

/// The single-pass scan by `O` (`items` a thread): 256 threads a block, or, where the
/// result cannot depend on the tiles and the input is long enough, what the autotuner
/// chose among [`TUNED_BLOCKS`].
fn single_pass<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    scratch: &mut Scratch<O::Elem>,
    inclusive: bool,
    items: usize,
) -> Result<()> {
    let n = x.len();
    let s = &mut scratch.lookback;
    let room = s.status.len();
    let mut launch = |&block: &u32| -> Result<()> {
        let tiles = n.div_ceil(items * block as usize);
        let epoch = s.next_epoch()?;
        let cfg = LaunchConfig::new(tiles as u32, block);
        let result = O::lookback_scan(target, cfg, x, out, s.words(epoch), inclusive);
        s.after(result)
    };
    if O::ORDER_FREE && crate::tune::worth_it("scan", n) {
        // The candidates write only `out` and the scratch's words, which the chosen run
        // overwrites; `x` is only read (it cannot be `out`).
        let key = crate::tune::key::<O>(target, "scan", &[n]);
        let choice = warpspeed_core::autotune::Tuner::new(key, &TUNED_BLOCKS, TUNED_BLOCKS[0].0)
            .valid(|&block| lookback_words(n.div_ceil(items * block as usize)) <= room)
            .choose(target, &mut launch)?;
        return launch(choice.config);
    }
    launch(&BLOCK)
}

/// The three launches `l` of a scan by `O` (one when there is one chunk).
fn three_launches<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    scratch: &mut Scratch<O::Elem>,
    inclusive: bool,
    l: &Launches,
) -> Result<()> {
    if l.chunks == 1 {
        // One chunk has no prefix: the last launch alone (its carry is never read).
        return O::chunk_scan(target, l.scan, x, out, x, l.chunk, inclusive);
    }
    let mut totals = scratch.totals.slice_mut(..l.chunks);
    let mut prefixes = scratch.prefixes.slice_mut(..l.chunks);
    O::block_reduce(target, l.totals, x, &mut totals, l.chunk)?;
    O::chunk_scan(
        target,
        l.prefixes,
        &totals,
        &mut prefixes,
        &totals,
        l.chunks,
        false,
    )?;
    O::chunk_scan(target, l.scan, x, out, &prefixes, l.chunk, inclusive)
}

/// The inclusive scan of `x` by `O` into `out` (as long as `x`), queued on `target` (a
/// `&Device` or a `&Stream`) without waiting; scratch is allocated for the call.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out`'s length is not `x`'s (before anything is
/// launched), and whatever a launch or an allocation returns.
///
/// ```
/// use warpspeed::algorithms::{operator::Max, scan};
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[3i32, 1, 4, 1, 5, 9, 2, 6])?;
/// let mut running_max = dev.zeros::<i32>(8)?;
/// scan::inclusive::<Max<i32>>(&dev, &x, &mut running_max)?;
/// assert_eq!(running_max.download()?, vec![3, 3, 4, 4, 5, 9, 9, 9]);
/// # Ok(())
/// # }
/// ```
pub fn inclusive<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    run::<O>("inclusive", target, x, out, &mut scratch, true)
}

/// The exclusive scan of `x` by `O` into `out` (as long as `x`): `out[0]` is `O`'s
/// identity; queued without waiting, scratch allocated for the call.
///
/// # Errors
/// [`Error::InvalidArgument`] when `O` has no identity, [`Error::LengthMismatch`] when
/// `out`'s length is not `x`'s (both before anything is launched), and whatever a launch
/// or an allocation returns.
pub fn exclusive<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    let mut scratch = Scratch::new(target.device(), x.len())?;
    run::<O>("exclusive", target, x, out, &mut scratch, false)
}

/// [`inclusive`] with the caller's [`Scratch`] (its capacity at least `x.len()`), so that
/// repeated scans allocate nothing.
///
/// # Errors
/// As [`inclusive`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn inclusive_with_scratch<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    scratch: &mut Scratch<O::Elem>,
) -> Result<()> {
    run::<O>("inclusive_with_scratch", target, x, out, scratch, true)
}

/// [`exclusive`] with the caller's [`Scratch`].
///
/// # Errors
/// As [`exclusive`], and [`Error::LengthMismatch`] when the scratch's capacity is short.
pub fn exclusive_with_scratch<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    scratch: &mut Scratch<O::Elem>,
) -> Result<()> {
    run::<O>("exclusive_with_scratch", target, x, out, scratch, false)
}

/// The running sums of `x` into `out`, `x[0] + .. + x[i]` (integers wrap), queued
/// without waiting.
///
/// # Errors
/// As [`inclusive`].
///
/// ```
/// use warpspeed::algorithms::scan;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[1u32, 2, 3, 4])?;
/// let mut sums = dev.zeros::<u32>(4)?;
/// scan::inclusive_sum(&dev, &x, &mut sums)?;
/// assert_eq!(sums.download()?, vec![1, 3, 6, 10]);
/// scan::exclusive_sum(&dev, &x, &mut sums)?;
/// assert_eq!(sums.download()?, vec![0, 1, 3, 6]);
/// # Ok(())
/// # }
/// ```
pub fn inclusive_sum<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    inclusive::<Sum<T>>(target, x, out)
}

/// The sums before each element of `x` into `out`, `x[0] + .. + x[i - 1]` (`out[0] = 0`),
/// queued without waiting.
///
/// # Errors
/// As [`inclusive`].
pub fn exclusive_sum<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    exclusive::<Sum<T>>(target, x, out)
}
