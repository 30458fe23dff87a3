//! Segmented reductions: one result per segment `x[offsets[s]..offsets[s + 1]]`, with any
//! [`Operator`] (a user's included), on a GPU or the simulator: [`reduce`], and [`sum`]
//! for every integer and float type.
//!
//! The segments are a [`Segments`], made once from host offsets and checked then (monotone,
//! at least one entry), so that bad offsets are an error before anything is launched and
//! repeated reductions over the same segments upload nothing. One block of 256 threads a
//! segment combines it as `reduce` combines a chunk (four consecutive elements a step, a
//! shared-memory tree; algorithms/src/template/range_reduce.rs): the order of combining is
//! fixed by the segment's length, so float results are deterministic and the same on both
//! backends. An empty segment's result is the operator's identity; an operator without one
//! (`Min`, `Max`) refuses empty segments.

use crate::builtin::Reducible;
use crate::operator::{Operator, Sum};
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, LaunchTarget, Result};

pub use crate::kernels::segmented as kernels;

/// Threads a block (one block a segment).
const BLOCK: u32 = 256;

/// Segments of an input, `offsets[s]..offsets[s + 1]`, checked and on the device.
pub struct Segments {
    offsets: DeviceBuffer<usize>,
    end: usize,
    any_empty: bool,
}

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
    O::segment_reduce(target, segments.config(), x, out, &segments.offsets)
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
