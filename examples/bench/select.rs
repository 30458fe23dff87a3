//! `warpspeed::algorithms::select` (issue 22): stream compaction, each row as the library
//! runs it (scratch given, so no allocation is timed, and the count downloaded, as a user
//! gets it) and with the `unchecked` kernel launched the same way:
//!
//! - `select::flagged` of 2^28 f32 with a random `bool` mask keeping about half; peers
//!   `torch.masked_select` and `cupy.compress`/`x[mask]`;
//! - `select::select_if` of the same 2^28 uniform f32 with the predicate `x > 0.5` (a
//!   `predicate!` of this crate; the unchecked row is the same template expanded here with
//!   `options [unchecked]`); peers `x[x > 0.5]` in torch and cupy;
//! - `select::unique` of 2^26 sorted i32 with 2^20 distinct values; peer
//!   `torch.unique_consecutive`, and cupy's `x[mask of x[i] != x[i - 1]]`.
//!
//! Every output is compared with the CPU's selection, count and elements.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use warpspeed::algorithms::select::{self, kernels, Predicate, Scratch, TILE};
use warpspeed::algorithms::{__select_kernel, predicate};
use warpspeed::prelude::*;
use warpspeed::{DeviceBuffer, KernelScalar};

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

/// The bench's predicate: more than a half.
#[gpu_device]
fn above_half(x: f32) -> bool {
    x > 0.5
}

predicate! {
    /// `x > 0.5`.
    struct AboveHalf { elem: f32, keep: above_half }
}

// The same selection `#[gpu_kernel(unchecked)]`: the template `predicate!` expands, here
// with the option.
__select_kernel!(above_half_unchecked, f32, [x, i, v] keep above_half(v), params [],
    options [unchecked]);

pub fn kernels() -> Vec<Kernel> {
    let mut all: Vec<Kernel> = vec![
        ("checked", kernels::flagged_bool::kernel::<f32>()),
        (
            "unchecked",
            kernels::unchecked::flagged_bool::kernel::<f32>(),
        ),
        ("checked", kernels::unique::kernel::<i32>()),
        ("unchecked", kernels::unchecked::unique::kernel::<i32>()),
        ("unchecked", &above_half_unchecked::KERNEL),
    ];
    all.extend(AboveHalf::kernels().into_iter().map(|k| ("checked", k)));
    all
}

/// The look-back memory of the unchecked launches, as `select::Scratch` keeps it: status
/// words zeroed once, the counter left zero by each launch, one more epoch a launch.
struct Raw {
    status: DeviceBuffer<u64>,
    counter: DeviceBuffer<u32>,
    total: DeviceBuffer<u32>,
    no_heads: DeviceBuffer<u32>,
    epoch: u32,
    cfg: LaunchConfig,
}

impl Raw {
    fn new(dev: &Device, n: usize) -> Res<Raw> {
        let tiles = n.div_ceil(TILE);
        Ok(Raw {
            status: dev.zeros(tiles)?,
            counter: dev.zeros(1)?,
            total: dev.zeros(1)?,
            no_heads: dev.zeros(0)?,
            epoch: 0,
            cfg: LaunchConfig::new(tiles as u32, 256),
        })
    }
}

/// Compares the count and `out[..count]` of each contestant with the CPU's.
fn check<T: KernelScalar + PartialEq + std::fmt::Debug>(
    b: &Bench,
    what: &str,
    counts: [usize; 2],
    outs: &[DeviceBuffer<T>; 2],
    want: &[T],
) -> Res<()> {
    for ((name, &count), out) in ["checked", "unchecked"].iter().zip(&counts).zip(outs) {
        if count != want.len() {
            b.mismatch(format_args!(
                "{what} ({name}): {count} kept, the CPU {}",
                want.len()
            ));
            continue;
        }
        let got = out.slice(..count).download()?;
        b.check(&format!("{what} ({name})"), &got, want, |v| v.to_bits());
    }
    Ok(())
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 28);
    let host: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 1.0)).collect();
    let mask: Vec<bool> = (0..n).map(|_| rng.next_u32() & 1 == 1).collect();
    let x = dev.upload(&host)?;
    let flags = dev.upload(&mask)?;
    let size = format!("2^{log2} f32");
    let mut rows = Vec::new();
    let mut outs = [dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?];
    let mut scratch = Scratch::new(dev, n)?;
    let mut raw = Raw::new(dev, n)?;
    // Moved: the input read, the mask read, the kept elements written.
    let moved = |kept: usize, extra: f64| (4 * n + 4 * kept) as f64 + extra;

    // flagged
    let mut counts = [0usize; 2];
    let t = {
        let ([oc, ou], [cc, cu]) = (&mut outs, &mut counts);
        let (s, r) = (&mut scratch, &mut raw);
        best_ms(
            b,
            &mut [
                Box::new(|| {
                    *cc = select::flagged_with_scratch(dev, &x, &flags, oc, s)?;
                    Ok(())
                }) as Step,
                Box::new(|| {
                    r.epoch += 1;
                    kernels::unchecked::flagged_bool::launch::<f32>(
                        dev,
                        r.cfg,
                        &x,
                        &flags,
                        ou,
                        &mut r.no_heads,
                        &mut r.total,
                        &mut r.status,
                        &mut r.counter,
                        r.epoch,
                        0,
                        false,
                    )?;
                    *cu = r.total.download()?[0] as usize;
                    Ok(())
                }),
            ],
        )?
    };
    let want: Vec<f32> = host
        .iter()
        .zip(&mask)
        .filter(|(_, &k)| k)
        .map(|(&v, _)| v)
        .collect();
    check(b, "select::flagged", counts, &outs, &want)?;
    rows.push(row(
        b,
        "select::flagged (algorithms)",
        &size,
        &format!("flagged_2^{log2}_f32"),
        &t,
        b.bandwidth_note(moved(want.len(), n as f64), t[0]),
    ));

    // select_if: x > 0.5
    let t = {
        let ([oc, ou], [cc, cu]) = (&mut outs, &mut counts);
        let (s, r) = (&mut scratch, &mut raw);
        best_ms(
            b,
            &mut [
                Box::new(|| {
                    *cc = select::select_if_with_scratch::<AboveHalf>(dev, &x, oc, s)?;
                    Ok(())
                }) as Step,
                Box::new(|| {
                    r.epoch += 1;
                    above_half_unchecked::launch(
                        dev,
                        r.cfg,
                        &x,
                        ou,
                        &mut r.no_heads,
                        &mut r.total,
                        &mut r.status,
                        &mut r.counter,
                        r.epoch,
                        0,
                        false,
                    )?;
                    *cu = r.total.download()?[0] as usize;
                    Ok(())
                }),
            ],
        )?
    };
    let want: Vec<f32> = host.iter().copied().filter(|&v| v > 0.5).collect();
    check(b, "select::select_if", counts, &outs, &want)?;
    rows.push(row(
        b,
        "select::select_if x > 0.5 (algorithms)",
        &size,
        &format!("select_if_2^{log2}_f32"),
        &t,
        b.bandwidth_note(moved(want.len(), 0.0), t[0]),
    ));
    drop((x, flags, outs, host, mask));

    // unique: 2^(log2 - 2) sorted i32, 2^(log2 - 8) distinct.
    let (ulog2, dlog2) = (log2 - 2, log2 - 8);
    let m = 1usize << ulog2;
    let mut sorted: Vec<i32> = (0..m)
        .map(|_| (rng.next_u32() % (1 << dlog2)) as i32)
        .collect();
    sorted.sort_unstable();
    let mut want = sorted.clone();
    want.dedup();
    let x = dev.upload(&sorted)?;
    let mut outs = [dev.zeros::<i32>(m)?, dev.zeros::<i32>(m)?];
    let mut raw = Raw::new(dev, m)?;
    let t = {
        let ([oc, ou], [cc, cu]) = (&mut outs, &mut counts);
        let (s, r) = (&mut scratch, &mut raw);
        best_ms(
            b,
            &mut [
                Box::new(|| {
                    *cc = select::unique_with_scratch(dev, &x, oc, s)?;
                    Ok(())
                }) as Step,
                Box::new(|| {
                    r.epoch += 1;
                    kernels::unchecked::unique::launch::<i32>(
                        dev,
                        r.cfg,
                        &x,
                        ou,
                        &mut r.no_heads,
                        &mut r.total,
                        &mut r.status,
                        &mut r.counter,
                        r.epoch,
                        0,
                        false,
                    )?;
                    *cu = r.total.download()?[0] as usize;
                    Ok(())
                }),
            ],
        )?
    };
    check(b, "select::unique", counts, &outs, &want)?;
    rows.push(
        row(
            b,
            "select::unique (algorithms)",
            &format!("2^{ulog2} i32"),
            &format!("unique_2^{ulog2}_i32"),
            &t,
            b.bandwidth_note((4 * m + 4 * want.len()) as f64, t[0]),
        )
        .note(format!("sorted, 2^{dlog2} distinct")),
    );
    Ok(rows)
}

/// A row: checked and unchecked times, the peers of `key`, the bandwidth note.
fn row(b: &Bench, name: &str, size: &str, key: &str, t: &[f64], note: String) -> Row {
    Row::new(name, size, Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(key, Unit::Ms))
        .note(note)
}
