//! `sort::top_k` by radix select, as torch.topk does: find the `k`-th greatest key's
//! ordered bits a digit at a time, keep what is at least that, sort only those.
//!
//! 1. Digit by digit from the top (8 bits a pass), count the keys that agree with the
//!    digits chosen so far by their next digit (`digit_counts_*`, one read of the keys),
//!    download the 256 counts and choose the digit that holds the `k`-th greatest. Stop
//!    after the last digit, or as soon as the keys at least the chosen prefix are few
//!    ([`FEW`] more than `k`): uniform f32 keys stop after two passes.
//! 2. Keep those keys, in order, with their positions (`at_least_*`, the one-pass select).
//! 3. Sort them descending with their positions as values: the sort is stable, so equal
//!    keys keep the lower position first. The first `k` are the answer.
//!
//! Each pass's counts come back to the host (a wait); the work is `passes + 1` reads of
//! the keys and a sort of the few kept. All keys equal keeps them all, and the sort is
//! then a whole sort: the worst case is the old way's time.

use crate::kernels::radix_select as kernels;
use crate::sort::{Order, Scratch, SortKey};
use crate::status::TileStatus;
use warpspeed_core::prelude::*;
use warpspeed_core::{AsDeviceView, AsDeviceViewMut, KernelScalar, LaunchTarget, Result};

/// Keys beyond `k` at which the digit passes stop: sorting this many more costs less than
/// another read of a large input.
pub const FEW: usize = 8192;
/// Threads a block of the counting launch.
const BLOCK: u32 = 256;
/// The most blocks of the counting launch (a grid-stride loop covers the rest).
const MAX_BLOCKS: usize = 1024;

/// The radix select's kernels for one key type: implemented for every [`SortKey`] type.
#[doc(hidden)]
pub trait SelectKey: KernelScalar {
    /// Bits of the key's ordered form (a multiple of 8).
    const BITS: u32;
    /// `digit_counts_*`: `prefix`, `mask` the ordered bits chosen so far.
    #[allow(clippy::too_many_arguments)]
    fn digit_counts(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        keys: &impl AsDeviceView<Elem = Self>,
        prefix: u64,
        mask: u64,
        shift: u32,
        counts: &mut impl AsDeviceViewMut<Elem = u32>,
        unchecked: bool,
    ) -> Result<()>;
    /// `at_least_*` with the select template's parameters.
    #[allow(clippy::too_many_arguments)]
    fn at_least(
        target: &impl LaunchTarget,
        cfg: LaunchConfig,
        keys: &impl AsDeviceView<Elem = Self>,
        threshold: u64,
        out: &mut impl AsDeviceViewMut<Elem = Self>,
        heads: &mut impl AsDeviceViewMut<Elem = u32>,
        total: &mut DeviceBuffer<u32>,
        status: &mut DeviceBuffer<u64>,
        counter: &mut DeviceBuffer<u32>,
        epoch: u32,
        unchecked: bool,
    ) -> Result<()>;
}

macro_rules! select_key {
    ($($k:ty => $u:ty, $counts:ident, $at_least:ident;)*) => {$(
        impl SelectKey for $k {
            const BITS: u32 = <$u>::BITS;
            fn digit_counts(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                keys: &impl AsDeviceView<Elem = Self>,
                prefix: u64,
                mask: u64,
                shift: u32,
                counts: &mut impl AsDeviceViewMut<Elem = u32>,
                unchecked: bool,
            ) -> Result<()> {
                // `prefix` and `mask` hold bits of `$u` only.
                let (prefix, mask) = (prefix as $u, mask as $u);
                checked_or_not!(unchecked, kernels::$counts::launch(target, cfg, keys, prefix, mask, shift, counts))
            }
            fn at_least(
                target: &impl LaunchTarget,
                cfg: LaunchConfig,
                keys: &impl AsDeviceView<Elem = Self>,
                threshold: u64,
                out: &mut impl AsDeviceViewMut<Elem = Self>,
                heads: &mut impl AsDeviceViewMut<Elem = u32>,
                total: &mut DeviceBuffer<u32>,
                status: &mut DeviceBuffer<u64>,
                counter: &mut DeviceBuffer<u32>,
                epoch: u32,
                unchecked: bool,
            ) -> Result<()> {
                let threshold = threshold as $u;
                checked_or_not!(unchecked, kernels::$at_least::launch(
                    target, cfg, keys, threshold, out, heads, total, status, counter, epoch, 0, false,
                ))
            }
        }
    )*};
}

select_key! {
    u8 => u8, digit_counts_u8, at_least_u8;
    u16 => u16, digit_counts_u16, at_least_u16;
    u32 => u32, digit_counts_u32, at_least_u32;
    u64 => u64, digit_counts_u64, at_least_u64;
    usize => u64, digit_counts_usize, at_least_usize;
    i8 => u8, digit_counts_i8, at_least_i8;
    i16 => u16, digit_counts_i16, at_least_i16;
    i32 => u32, digit_counts_i32, at_least_i32;
    i64 => u64, digit_counts_i64, at_least_i64;
    f32 => u32, digit_counts_f32, at_least_f32;
    f64 => u64, digit_counts_f64, at_least_f64;
}

/// The digit passes: the ordered bits every key kept must reach, and how many keys reach
/// them (at least `k`, at most `k + FEW` unless the last digit is reached first).
fn threshold<K: SortKey>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = K>,
    k: usize,
    unchecked: bool,
) -> Result<(u64, usize)> {
    let dev = target.device();
    let n = x.len();
    let passes = (K::BITS / 8) as usize;
    let mut counts = dev.zeros::<u32>(256 * passes)?;
    let blocks = n.div_ceil(BLOCK as usize * 16).clamp(1, MAX_BLOCKS);
    let cfg = LaunchConfig::new(blocks as u32, BLOCK);
    let (mut prefix, mut mask) = (0u64, 0u64);
    // Keys above the prefix's range (all kept), and how many more the prefix must give.
    let (mut above, mut wanted) = (0usize, k);
    for pass in 0..passes {
        let shift = K::BITS - 8 * (pass as u32 + 1);
        let mut c = counts.slice_mut(256 * pass..256 * (pass + 1));
        K::digit_counts(target, cfg, x, prefix, mask, shift, &mut c, unchecked)?;
        let c = c.download()?;
        // The digit holding the `wanted`-th greatest of the keys with this prefix: those
        // with a greater digit are all kept.
        let mut digit = 255usize;
        let mut greater = 0usize;
        while digit > 0 && greater + (c[digit] as usize) < wanted {
            greater += c[digit] as usize;
            digit -= 1;
        }
        above += greater;
        wanted -= greater;
        prefix |= (digit as u64) << shift;
        mask |= 255u64 << shift;
        let reach = above + c[digit] as usize;
        if shift == 0 || reach <= k + FEW {
            return Ok((prefix, reach));
        }
    }
    unreachable!("the last pass has shift 0")
}

/// `sort::top_k` after its checks (`0 < k <= x.len() <= u32::MAX`, outputs `k` long).
pub(crate) fn top_k<K: SortKey>(
    target: &impl LaunchTarget,
    x: &impl AsDeviceView<Elem = K>,
    k: usize,
    values: &mut impl AsDeviceViewMut<Elem = K>,
    indices: &mut impl AsDeviceViewMut<Elem = u32>,
    unchecked: bool,
) -> Result<()> {
    let dev = target.device();
    let n = x.len();
    let (threshold, reach) = threshold(target, x, k, unchecked)?;
    // The keys at least the threshold, in order, and their positions (`heads`, which the
    // select ends with `n`).
    let mut kept = dev.zeros::<K>(reach)?;
    let mut at = dev.zeros::<u32>(reach + 1)?;
    let mut total = dev.zeros::<u32>(1)?;
    let tiles = n.div_ceil(crate::select::TILE);
    let mut lookback = TileStatus::new(dev, tiles)?;
    let epoch = lookback.next_epoch()?;
    let cfg = LaunchConfig::new(tiles as u32, BLOCK);
    let result = K::at_least(
        target,
        cfg,
        x,
        threshold,
        &mut kept,
        &mut at,
        &mut total,
        &mut lookback.status,
        &mut lookback.counter,
        epoch,
        unchecked,
    );
    lookback.after(result)?;
    let mut scratch = Scratch::<K, u32>::with_values(dev, reach)?;
    scratch.use_unchecked_kernels(unchecked);
    let mut at_kept = at.slice_mut(..reach);
    crate::sort::sort_pairs_with_scratch(
        target,
        &mut kept,
        &mut at_kept,
        Order::Descending,
        &mut scratch,
    )?;
    crate::sort::copy(target, &kept.slice(..k), values)?;
    crate::sort::copy(target, &at.slice(..k), indices)
}
