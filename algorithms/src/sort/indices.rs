//! Keys sorted with their input positions: [`sort_with_indices`], torch.sort's
//! `(values, indices)` and a stable argsort in one call.
//!
//! `sort_pairs` of the keys with an index buffer `0..n` gives the same result, but moves
//! every index through every pass: 8-byte indices cost 16 bytes a key a pass. Here the
//! positions are made on the device and ride the passes as `u32`s, and 8-byte indices are
//! widened once at the end: 4 bytes a key written first, 8 a pass, 12 at the end (48
//! bytes a key in all for 32-bit keys, against 64).

use super::{check, kernels, run, Order, Scratch, SortKey};
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceViewMut, KernelScalar, LaunchTarget, Result};

mod sealed {
    pub trait Sealed {}
}

/// A type [`sort_with_indices`] writes positions as: `u32`, `i32`, `u64`, `i64`, `usize`.
/// Sealed.
pub trait SortIndex: KernelScalar + sealed::Sealed {
    /// The most keys whose positions the type holds (`i32`: 2^31).
    const MAX_KEYS: usize;
}

macro_rules! sort_index {
    ($($t:ty => $max:expr),*) => {$(
        impl sealed::Sealed for $t {}
        impl SortIndex for $t {
            const MAX_KEYS: usize = $max;
        }
    )*};
}

sort_index!(u32 => u32::MAX as usize, i32 => 1 << 31, u64 => usize::MAX, i64 => usize::MAX, usize => usize::MAX);

/// `keys` in place, least first, stable (as [`sort`](super::sort)), and `indices[i]` the
/// position in the input of the key that ends at `i`: the stable sorting permutation
/// (torch.sort's indices, NumPy's `argsort(kind="stable")`). Scratch is allocated for the
/// call; queued on `target` without waiting.
///
/// The same result as [`sort_pairs`](super::sort_pairs) of the keys with `0..n`, with
/// less memory traffic: the positions are made on the device, ride the passes as `u32`,
/// and 8-byte indices are widened once at the end.
///
/// # Errors
/// [`Error::LengthMismatch`] when `indices`' length is not `keys'`,
/// [`Error::InvalidArgument`] for more keys than the index type holds (2^31 for `i32`)
/// or than `u32::MAX`, before anything is launched; otherwise whatever a launch or an
/// allocation returns.
///
/// ```
/// use warpspeed::algorithms::sort;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let mut keys = dev.upload(&[3.5f32, -1.0, 3.5, 0.25])?;
/// let mut indices = dev.zeros::<i64>(4)?;
/// sort::sort_with_indices(&dev, &mut keys, &mut indices)?;
/// assert_eq!(keys.download()?, vec![-1.0, 0.25, 3.5, 3.5]);
/// assert_eq!(indices.download()?, vec![1, 3, 0, 2]); // equal keys in input order
/// # Ok(())
/// # }
/// ```
pub fn sort_with_indices<K: SortKey, I: SortIndex>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = I>,
) -> Result<()> {
    allocating("sort_with_indices", target, keys, indices, Order::Ascending)
}

/// [`sort_with_indices`] greatest first, stable (equal keys keep their input order).
///
/// # Errors
/// As [`sort_with_indices`].
pub fn sort_with_indices_descending<K: SortKey, I: SortIndex>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = I>,
) -> Result<()> {
    let what = "sort_with_indices_descending";
    allocating(what, target, keys, indices, Order::Descending)
}

/// [`sort_with_indices`] in `order` with a [`Scratch`] made once by
/// [`Scratch::with_values`] for values of `I` (its second buffer of values holds the
/// positions), so that repeated sorts allocate nothing.
///
/// # Errors
/// As [`sort_with_indices`], and [`Error::LengthMismatch`] for scratch made for fewer
/// keys or without values.
pub fn sort_with_indices_with_scratch<K: SortKey, I: SortIndex>(
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = I>,
    order: Order,
    scratch: &mut Scratch<K, I>,
) -> Result<()> {
    with_indices(
        "sort_with_indices_with_scratch",
        target,
        keys,
        indices,
        order,
        scratch,
    )
}

fn allocating<K: SortKey, I: SortIndex>(
    what: &str,
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = I>,
    order: Order,
) -> Result<()> {
    let mut scratch = Scratch::<K, I>::with_values(target.device(), keys.len())?;
    with_indices(what, target, keys, indices, order, &mut scratch)
}

/// The checks, then the positions made and sorted with the keys: in the caller's indices
/// (4 bytes) or in the scratch's values, widened into the caller's (8 bytes).
fn with_indices<K: SortKey, I: SortIndex>(
    what: &str,
    target: &impl LaunchTarget,
    keys: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = I>,
    order: Order,
    scratch: &mut Scratch<K, I>,
) -> Result<()> {
    let n = keys.len();
    check(what, n, Some(("the indices", indices.len())), scratch)?;
    if n > I::MAX_KEYS {
        return Err(Error::InvalidArgument {
            what: format!("sort::{what}"),
            reason: format!(
                "{n} keys: {} holds the positions of at most {} keys",
                I::C_NAME,
                I::MAX_KEYS
            ),
        });
    }
    if n == 0 {
        return Ok(());
    }
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut indices = indices.as_device_view_mut();
    let core = &mut scratch.core;
    let mut alt = scratch.values.slice_mut(..n);
    // SAFETY (every `with_words`): the index types are integers, for which any bytes are
    // a valid value, and the scratch's values are the library's own.
    if std::mem::size_of::<I>() == 4 {
        // The positions in the caller's indices; the scratch's values their second buffer.
        unsafe {
            indices.with_words::<u32, _>(|positions| {
                alt.with_words::<u32, _>(|alt| {
                    kernels::iota::launch(target, cfg, positions)?;
                    run::<K, u32>(target, keys, Some((positions, alt)), order, core)
                })
            })
        }???;
        return Ok(());
    }
    // 8 bytes: the positions in the scratch's values (2n words), their second buffer the
    // caller's indices (2n words): the result is in the first buffer after every pass
    // count (an odd one ends with a copy back), so the widening reads the scratch and
    // writes the caller's indices, which no longer hold anything it needs.
    unsafe {
        alt.with_words::<u32, _>(|words| -> Result<()> {
            let mut positions = words.slice_mut(..n);
            indices.with_words::<u32, _>(|caller| {
                let mut second = caller.slice_mut(..n);
                kernels::iota::launch(target, cfg, &mut positions)?;
                let moving = Some((&mut positions, &mut second));
                run::<K, u32>(target, keys, moving, order, core)
            })??;
            indices.with_words::<u64, _>(|out| {
                kernels::widen_positions::launch(target, cfg, &positions, out)
            })?
        })
    }?
}
