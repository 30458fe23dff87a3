//! Segmented reductions and scans over segments `x[offsets[s]..offsets[s + 1]]`, with any
//! [`Operator`] (a user's included), on a GPU or the simulator: [`reduce`] (one result a
//! segment) and [`sum`]; [`inclusive`] and [`exclusive`] (each segment scanned alone, in
//! place of the segment in an output as long as the input) and [`inclusive_sum`] and
//! [`exclusive_sum`]; the sums for every integer and float type.
//!
//! The segments are a [`Segments`], made once from host offsets and checked then (monotone,
//! at least one entry), so that bad offsets are an error before anything is launched and
//! repeated reductions over the same segments upload nothing. One block of 256 threads a
//! segment combines it as `reduce` combines a chunk (four consecutive elements a step, a
//! shared-memory tree; algorithms/src/template/range_reduce.rs); where no segment is
//! longer than [`WARP_SEGMENT_MAX`] elements, one warp a segment (eight a block) does
//! instead, with no block barrier: a row of 1024 floats kept 2 of a block's 8 warps busy
//! and paid for a block-wide combine. The order of combining is fixed by the segment's
//! length and the longest segment, so float results are deterministic and the same on
//! both backends. An empty segment's result is the operator's identity; an operator without one
//! (`Min`, `Max`) refuses empty segments.
//!
//! The scans take one block of 256 threads a segment too, each scanning its segment tile
//! by tile (4096 elements) with a carry, as the three-launch scan's last launch scans a
//! chunk (algorithms/src/template/scan.rs; the same template). One launch, no scratch,
//! the input read once. The order of combining depends on the segment's length alone (not
//! on where it lies or on the other segments), so float scans are deterministic and the
//! same on both backends. Elements of the output outside every segment (before the first
//! offset, after the last, or in a gap) are not written.

use crate::builtin::Reducible;
use crate::operator::{Operator, Sum};
use crate::scan::SHARED_ELEMS;
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, KernelScalar, LaunchTarget, Result};

pub use crate::kernels::segmented as kernels;

/// Threads a block (one block a segment).
const BLOCK: u32 = 256;

/// Segments of an input, `offsets[s]..offsets[s + 1]`, checked and on the device.
pub struct Segments {
    offsets: DeviceBuffer<usize>,
    end: usize,
    any_empty: bool,
    longest: usize,
}

/// The longest segment for which the segmented reduce takes one warp a segment (else one
/// block a segment).
pub const WARP_SEGMENT_MAX: usize = 4096;

impl Segments {
    /// The segments of `offsets` (`offsets.len() - 1` of them), uploaded to `dev`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `offsets` is empty or not monotone (naming the first
    /// place it decreases), and whatever the upload returns.
    ///
    /// ```
    /// use warpspeed::algorithms::segmented::{self, Segments};
    /// use warpspeed::prelude::*;
    ///
    /// # fn main() -> Result<(), Error> {
    /// let dev = Device::simulator();
    /// let x = dev.upload(&[1u32, 2, 3, 4, 5, 6])?;
    /// let segs = Segments::new(&dev, &[0, 2, 2, 6])?; // [1, 2], [], [3, 4, 5, 6]
    /// let mut sums = dev.zeros::<u32>(3)?;
    /// segmented::sum(&dev, &x, &segs, &mut sums)?;
    /// assert_eq!(sums.download()?, vec![3, 0, 18]);
    /// assert!(Segments::new(&dev, &[0, 4, 3]).is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(dev: &Device, offsets: &[usize]) -> Result<Self> {
        let invalid = |reason: String| Error::InvalidArgument {
            what: "segmented::Segments::new: the offsets".into(),
            reason,
        };
        let Some(&end) = offsets.last() else {
            return Err(invalid("no offsets: one segment needs two".into()));
        };
        if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err(invalid(format!(
                "not monotone: offsets[{}] = {} comes after offsets[{i}] = {}",
                i + 1,
                offsets[i + 1],
                offsets[i]
            )));
        }
        if offsets.len() - 1 > i32::MAX as usize {
            return Err(invalid(format!(
                "{} segments, more than a grid's {} blocks",
                offsets.len() - 1,
                i32::MAX
            )));
        }
        Ok(Segments {
            offsets: dev.upload(offsets)?,
            end,
            any_empty: offsets.windows(2).any(|w| w[0] == w[1]),
            longest: offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0),
        })
    }

    /// `count` segments of `len` consecutive elements from 0 (the rows of a row-major
    /// `count × len` matrix).
    ///
    /// # Errors
    /// As [`Segments::new`].
    pub fn uniform(dev: &Device, count: usize, len: usize) -> Result<Self> {
        Self::new(dev, &(0..=count).map(|s| s * len).collect::<Vec<_>>())
    }

    /// How many segments.
    pub fn count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The last offset: the input must hold at least this many elements.
    pub fn end(&self) -> usize {
        self.end
    }

    /// The offsets on the device, for a launch by hand (`kernels`).
    pub fn offsets(&self) -> &DeviceBuffer<usize> {
        &self.offsets
    }

    /// The launch of a segmented kernel over these segments: one block of 256 threads a
    /// segment.
    pub fn config(&self) -> LaunchConfig {
        LaunchConfig::new(self.count() as u32, BLOCK)
    }

    /// Whether the segmented reduce takes a warp a segment (its kernels' `per_warp`): no
    /// segment longer than [`WARP_SEGMENT_MAX`].
    pub fn reduce_per_warp(&self) -> bool {
        self.longest <= WARP_SEGMENT_MAX
    }

    /// The launch of a segmented reduce kernel (`segment_{sums,mins,maxs}_*`) with
    /// `per_warp` = [`Segments::reduce_per_warp`]: 8 segments a block of 256 threads, or
    /// [`Segments::config`].
    pub fn reduce_config(&self) -> LaunchConfig {
        if self.reduce_per_warp() {
            LaunchConfig::new(self.count().div_ceil(8) as u32, BLOCK)
        } else {
            self.config()
        }
    }

    /// The launch of a segmented scan kernel (`segment_scan_*`) of elements of `T` over
    /// these segments: [`Segments::config`] with the scan's dynamic shared memory,
    /// [`scan::SHARED_ELEMS`](crate::scan::SHARED_ELEMS) elements of `T` (a launch with
    /// less does nothing).
    pub fn scan_config<T: KernelScalar>(&self) -> LaunchConfig {
        self.config()
            .with_shared_mem((SHARED_ELEMS * std::mem::size_of::<T>()) as u32)
    }
}

/// `out[s]` = segment `s` of `x` combined by `O` (the identity for an empty segment),
/// queued on `target` without waiting.
///
/// # Errors
/// Before anything is launched: [`Error::LengthMismatch`] when `out` does not hold one
/// element a segment or `x` is shorter than the segments' end; [`Error::InvalidArgument`]
/// when a segment is empty and `O` has no identity. Then whatever the launch returns.
pub fn reduce<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    if out.len() != segments.count() {
        return Err(Error::LengthMismatch {
            what: "segmented::reduce: the result (one element a segment)".into(),
            expected: segments.count(),
            found: out.len(),
        });
    }
    if x.len() < segments.end {
        return Err(Error::LengthMismatch {
            what: "segmented::reduce: the input (at least the segments' end)".into(),
            expected: segments.end,
            found: x.len(),
        });
    }
    if segments.any_empty && !O::HAS_IDENTITY {
        return Err(Error::InvalidArgument {
            what: "segmented::reduce".into(),
            reason: format!(
                "an empty segment, and `{}` has no identity to give it",
                std::any::type_name::<O>()
            ),
        });
    }
    if segments.count() == 0 {
        return Ok(());
    }
    O::segment_reduce(
        target,
        segments.reduce_config(),
        x,
        out,
        &segments.offsets,
        segments.reduce_per_warp(),
    )
}

/// `out[s]` = the sum of segment `s` of `x` (zero for an empty one; integers wrap), as
/// [`reduce`].
///
/// # Errors
/// As [`reduce`].
pub fn sum<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    reduce::<Sum<T>>(target, x, segments, out)
}

/// The segmented scan by `O`, after the checks every entry shares.
fn run_scan<O: Operator>(
    what: &str,
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
    inclusive: bool,
) -> Result<()> {
    if out.len() != x.len() {
        return Err(Error::LengthMismatch {
            what: format!("segmented::{what}: the output (the input's length)"),
            expected: x.len(),
            found: out.len(),
        });
    }
    if x.len() < segments.end {
        return Err(Error::LengthMismatch {
            what: format!("segmented::{what}: the input (at least the segments' end)"),
            expected: segments.end,
            found: x.len(),
        });
    }
    if !inclusive && !O::HAS_IDENTITY {
        return Err(Error::InvalidArgument {
            what: format!("segmented::{what}"),
            reason: format!(
                "`{}` has no identity, so an exclusive scan has no first element; scan inclusively",
                std::any::type_name::<O>()
            ),
        });
    }
    if segments.count() == 0 || segments.end == 0 {
        // Nothing to scan: no segment, or only empty ones.
        return Ok(());
    }
    O::segment_scan(
        target,
        segments.scan_config::<O::Elem>(),
        x,
        out,
        &segments.offsets,
        inclusive,
    )
}

/// Each segment of `x` scanned inclusively by `O` into the same places of `out` (as long
/// as `x`): `out[i] = x[o] ∘ x[o + 1] ∘ .. ∘ x[i]` for `i` in a segment starting at `o`.
/// Elements of `out` outside every segment are left as they are. Queued on `target` (a
/// `&Device` or a `&Stream`) without waiting; no scratch.
///
/// # Errors
/// Before anything is launched: [`Error::LengthMismatch`] when `out`'s length is not
/// `x`'s or `x` is shorter than the segments' end. Then whatever the launch returns.
///
/// ```
/// use warpspeed::algorithms::operator::Max;
/// use warpspeed::algorithms::segmented::{self, Segments};
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[3i32, 1, 4, 1, 5, 9, 2, 6])?;
/// let segs = Segments::new(&dev, &[0, 3, 3, 7])?; // [3, 1, 4], [], [1, 5, 9, 2]; 6 in none
/// let mut out = dev.upload(&[-1i32; 8])?;
/// segmented::inclusive::<Max<i32>>(&dev, &x, &segs, &mut out)?;
/// assert_eq!(out.download()?, vec![3, 3, 4, 1, 5, 9, 9, -1]);
/// # Ok(())
/// # }
/// ```
pub fn inclusive<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    run_scan::<O>("inclusive", target, x, segments, out, true)
}

/// Each segment of `x` scanned exclusively by `O` into the same places of `out` (as long
/// as `x`): a segment's first output is `O`'s identity, `out[i] = x[o] ∘ .. ∘ x[i - 1]`
/// after it. Elements of `out` outside every segment are left as they are; queued
/// without waiting.
///
/// # Errors
/// Before anything is launched: [`Error::LengthMismatch`] as [`inclusive`], and
/// [`Error::InvalidArgument`] when `O` has no identity ([`Min`](crate::operator::Min),
/// [`Max`](crate::operator::Max)). Then whatever the launch returns.
pub fn exclusive<O: Operator>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = O::Elem>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = O::Elem>,
) -> Result<()> {
    run_scan::<O>("exclusive", target, x, segments, out, false)
}

/// The running sums of each segment of `x` into `out` (integers wrap), as [`inclusive`].
///
/// # Errors
/// As [`inclusive`].
///
/// ```
/// use warpspeed::algorithms::segmented::{self, Segments};
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&[1u32, 2, 3, 4, 5, 6])?;
/// let rows = Segments::uniform(&dev, 2, 3)?; // the rows of a 2 x 3 matrix
/// let mut sums = dev.zeros::<u32>(6)?;
/// segmented::inclusive_sum(&dev, &x, &rows, &mut sums)?;
/// assert_eq!(sums.download()?, vec![1, 3, 6, 4, 9, 15]);
/// segmented::exclusive_sum(&dev, &x, &rows, &mut sums)?;
/// assert_eq!(sums.download()?, vec![0, 1, 3, 0, 4, 9]);
/// # Ok(())
/// # }
/// ```
pub fn inclusive_sum<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    inclusive::<Sum<T>>(target, x, segments, out)
}

/// The sums before each element of each segment of `x` into `out` (zero first in each
/// segment; integers wrap), as [`exclusive`].
///
/// # Errors
/// As [`inclusive`].
pub fn exclusive_sum<T: Reducible>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    segments: &Segments,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    exclusive::<Sum<T>>(target, x, segments, out)
}
