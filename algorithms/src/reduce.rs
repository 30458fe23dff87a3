//! Sums of a buffer or view of integers or floats, on a GPU or the simulator.
//!
//! Two launches, as a user would write them: `block_sums` leaves one partial sum a block
//! (each thread adds a grid-stride share of the input, then the block adds its 256 threads'
//! sums in a shared-memory tree), then one block of the same kernel adds the partials into
//! the result. The partials live in scratch memory this module allocates (at most 1024
//! elements).
//!
//! **Order.** Integers wrap, as `wrapping_add` does, so their sum is exact whatever the
//! order. Floats are added in a fixed order for a given length (the grid is a function of
//! the length alone): thread `g` of `S = B·256` keeps four sums, `s_r` of the elements
//! `4 (g + k S) + r` (the last up to 3 elements, past the last whole four, go to `s_0` of
//! the thread that reaches them), adds them as `(s0 + s1) + (s2 + s3)`, then the block's
//! tree, then the partials' tree; so a float sum is deterministic run to run and the same on the GPU and the
//! simulator, though not the left-to-right sum of the CPU.

use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, LaunchTarget, Result};

/// Threads a block.
const BLOCK: usize = 256;
/// The most blocks (and so partial sums) of the first launch.
const MAX_BLOCKS: usize = 1024;

/// `block_sums` for the `$bound` types: `partial[b]` = the sum of block `b`'s share of `x`.
macro_rules! block_sums_kernel {
    ($name:ident, $bound:ident $(, $opt:ident)?) => {
        /// One partial sum a block: each thread adds a grid-stride share of `x`, then the
        /// block adds its threads' sums in a shared-memory tree; thread 0 writes it.
        #[gpu_kernel(crate = "::warpspeed_core", block = (256, 1, 1) $(, $opt)?)]
        pub fn $name<T: $bound>(x: &[T], partial: &mut [T]) {
            let tile = SharedArray::<T, 256>::new();
            let t = thread_idx().x as usize;
            // Four elements a step, into four accumulators, so that four loads a thread
            // are in flight (one chain of dependent adds left the memory system a quarter
            // idle: 74% of copy bandwidth on an H100). The four are consecutive, so that
            // `j + 3 < n` shows the bounds prover all four in bounds; the thread whose
            // step reaches past the end adds the last (up to 3) elements one at a time.
            let (mut a0, mut a1, mut a2, mut a3) = (T::zero(), T::zero(), T::zero(), T::zero());
            let n = x.len();
            let mut j = 4 * grid_1d();
            let step = 4 * grid_stride_1d();
            while j + 3 < n {
                a0 = a0 + x[j];
                a1 = a1 + x[j + 1];
                a2 = a2 + x[j + 2];
                a3 = a3 + x[j + 3];
                j += step;
            }
            while j < n {
                a0 = a0 + x[j];
                j += 1;
            }
            tile[t] = (a0 + a1) + (a2 + a3);
            sync_threads();
            let mut half = 128;
            while half > 0 {
                if t < half {
                    tile[t] = tile[t] + tile[t + half];
                }
                sync_threads();
                half /= 2;
            }
            let b = block_idx().x as usize;
            if t == 0 && b < partial.len() {
                partial[b] = tile[0];
            }
        }
    };
}

/// The kernels, generic over the element type (readable, copyable: `warpspeed::algorithms::
/// reduce::kernels::block_sums_int`).
// The kernel modules' generated docs link `self::launch`; written through `macro_rules!`,
// rustdoc resolves those links where the macro is defined, not in the kernel's module, and
// finds nothing (a finding of issue 22: the macro's doc links, to fix in the emitter).
#[allow(rustdoc::broken_intra_doc_links)]
pub mod kernels {
    use warpspeed_core::prelude::*;
    block_sums_kernel!(block_sums_int, Int);
    block_sums_kernel!(block_sums_float, Float);
}

/// The same kernels `#[gpu_kernel(unchecked)]`: what the bench measures the bounds checks
/// against ([`sum_into`] launches the checked ones).
#[allow(rustdoc::broken_intra_doc_links)] // as in `kernels`
pub mod unchecked {
    use warpspeed_core::prelude::*;
    block_sums_kernel!(block_sums_int, Int, unchecked);
    block_sums_kernel!(block_sums_float, Float, unchecked);
}

/// An element type [`sum`] adds: every integer (wrapping) and float type of the kernel
/// language. Sealed: the impls pick the kernel of the type's family.
pub trait Summable: Scalar + sealed::Sealed {
    #[doc(hidden)]
    fn block_sums(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        x: &impl AsDeviceView<Elem = Self>,
        partial: &mut impl AsDeviceViewMut<Elem = Self>,
    ) -> Result<()>;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! summable {
    ($kernel:ident: $($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Summable for $t {
            fn block_sums(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                x: &impl AsDeviceView<Elem = Self>,
                partial: &mut impl AsDeviceViewMut<Elem = Self>,
            ) -> Result<()> {
                kernels::$kernel::launch::<$t>(target, cfg, x, partial)
            }
        }
    )*};
}
summable!(block_sums_int: i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
summable!(block_sums_float: f16, bf16, f32, f64);

/// Blocks of the first launch for `n` elements: one a 1024 elements (4 a thread), at least
/// 1, at most 1024; also the partial sums (the scratch elements) a sum of `n`
/// needs.
pub fn partials_for(n: usize) -> usize {
    n.div_ceil(4 * BLOCK).clamp(1, MAX_BLOCKS)
}

/// The two launches of a sum of `n` elements: `block_sums` over the input into
/// [`partials_for`]`(n)` partials, then one block of it over the partials.
pub fn launch_configs(n: usize) -> [LaunchConfig; 2] {
    [
        LaunchConfig::new(partials_for(n) as u32, BLOCK as u32),
        LaunchConfig::new(1, BLOCK as u32),
    ]
}

/// The sum of `x` into `out`, which must hold exactly one element, queued on `target` (a
/// `&Device` or a `&Stream`). An empty `x` sums to zero. Integers wrap; floats are added
/// in the order the module documents.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` does not hold exactly one element (before anything
/// is launched), and whatever a launch or an allocation returns.
///
/// ```
/// # mod warpspeed { pub use warpspeed_core::*; pub mod algorithms { pub use warpspeed_algorithms::*; } }
/// use warpspeed::algorithms::reduce;
/// use warpspeed::prelude::*;
///
/// # fn main() -> Result<(), Error> {
/// let dev = Device::simulator();
/// let x = dev.upload(&(1..=1000u32).collect::<Vec<_>>())?;
/// let mut total = dev.zeros::<u32>(1)?;
/// reduce::sum_into(&dev, &x, &mut total)?;
/// assert_eq!(total.download()?, vec![500500]);
/// assert_eq!(reduce::sum(&dev, &x)?, 500500);
/// # Ok(())
/// # }
/// ```
pub fn sum_into<T: Summable>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    check_result(out.len())?;
    let mut partial = target.device().zeros::<T>(partials_for(x.len()))?;
    sum_into_with_scratch(target, x, out, &mut partial)
}

/// [`sum_into`] with the scratch memory the caller gives: `partial` holds at least
/// [`partials_for`]`(x.len())` elements (at most 1024), so repeated sums allocate nothing.
///
/// # Errors
/// [`Error::LengthMismatch`] when `out` does not hold exactly one element or `partial` is
/// too short (before anything is launched), and whatever a launch returns.
pub fn sum_into_with_scratch<T: Summable>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = T>,
    out: &mut impl AsDeviceViewMut<Elem = T>,
    partial: &mut impl AsDeviceViewMut<Elem = T>,
) -> Result<()> {
    check_result(out.len())?;
    let need = partials_for(x.len());
    if partial.len() < need {
        return Err(Error::LengthMismatch {
            what: "reduce::sum_into_with_scratch: the scratch (partials_for(x.len()))".into(),
            expected: need,
            found: partial.len(),
        });
    }
    let [first, second] = launch_configs(x.len());
    // Exactly the partials: the second launch sums all of its input.
    let mut whole = partial.as_device_view_mut();
    let mut partial = whole.slice_mut(..need);
    T::block_sums(target, first, x, &mut partial)?;
    T::block_sums(target, second, &partial, out)
}

/// A sum's result holds exactly one element.
fn check_result(len: usize) -> Result<()> {
    if len == 1 {
        return Ok(());
    }
    Err(Error::LengthMismatch {
        what: "reduce::sum_into: the result".into(),
        expected: 1,
        found: len,
    })
}

/// The sum of `x`, downloaded: [`sum_into`] into a one-element buffer, then a download
/// (which waits for `target`'s work).
pub fn sum<T: Summable>(target: &impl LaunchTarget, x: &impl AsDeviceView<Elem = T>) -> Result<T> {
    let mut out = target.device().zeros::<T>(1)?;
    sum_into(target, x, &mut out)?;
    Ok(out.download()?[0])
}
