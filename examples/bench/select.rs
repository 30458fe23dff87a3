//! `warpspeed::algorithms::select` (issue 22): stream compaction, each row as the library
//! runs it (scratch given, so no allocation is timed, and the count downloaded, as a user
//! gets it) and with the `unchecked` kernel of the same tiling launched the same way:
//!
//! - `select::flagged` of 2^28 f32 with a random `bool` mask keeping about half; peers
//!   `torch.masked_select` and `cupy.compress`/`x[mask]`;
//! - `select::select_if` of the same 2^28 uniform f32 with the predicate `x > 0.5` (a
//!   `predicate!` of this crate; the unchecked rows are the same template expanded here with
//!   `options [unchecked]`, one a tiling); peers `x[x > 0.5]` in torch and cupy;
//! - `select::unique` of 2^26 sorted i32 with 2^20 distinct values; peer
//!   `torch.unique_consecutive`, and cupy's `x[mask of x[i] != x[i - 1]]`.
//!
//! The `select` group times the library's own choice of tiling (tuned in the untimed
//! first run; the unchecked kernel is the chosen tiling's). The `select_tiling` group times
//! each tiling of `select::TUNED_TILINGS` forced (`autotune::force`), checked and
//! unchecked, then the tuned choice again, beside the same peers (bench/peers.py `--only
//! select`), so the table shows which tiling wins on this GPU.
//!
//! Every output is compared with the CPU's selection, count and elements.

use warpspeed::algorithms::predicate;
use warpspeed::algorithms::select::{self, kernels, Predicate, Scratch, Tiling, TUNED_TILINGS};
use warpspeed::autotune::{self, Key, Settings};
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

/// The same selection `#[gpu_kernel(unchecked)]`, one module a tiling: the template
/// `predicate!` expands, here with the option.
mod above_half_unchecked {
    macro_rules! tiling {
        ($m:ident, $items:tt $tile:literal $tmask:literal, [$($bps:tt)?]) => {
            pub mod $m {
                use super::super::above_half;
                use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
                use warpspeed::algorithms::__select_kernel;
                use warpspeed::prelude::*;
                __select_kernel!(select, f32, [x, i, v] keep above_half(v), params [],
                    items $items tile $tile mask $tmask, blocks_per_sm [$($bps)?], options [unchecked]);
            }
        };
    }
    tiling!(t4096c4, 16 4096 4095, [4]);
    tiling!(t4096, 16 4096 4095, []);
    tiling!(t4096c6, 16 4096 4095, [6]);
    tiling!(t8192c3, 32 8192 8191, [3]);
    tiling!(t2048c8, 8 2048 2047, [8]);
}

/// `$call` with `$k` the module of `tiling` under `$base` (`kernels::unchecked`,
/// `above_half_unchecked`).
macro_rules! by_tiling {
    ($tiling:expr, $($base:ident)::+, $k:ident => $call:expr) => {
        match $tiling {
            Tiling::T4096c4 => {
                use $($base)::+::t4096c4 as $k;
                $call
            }
            Tiling::T4096 => {
                use $($base)::+::t4096 as $k;
                $call
            }
            Tiling::T4096c6 => {
                use $($base)::+::t4096c6 as $k;
                $call
            }
            Tiling::T8192c3 => {
                use $($base)::+::t8192c3 as $k;
                $call
            }
            Tiling::T2048c8 => {
                use $($base)::+::t2048c8 as $k;
                $call
            }
        }
    };
}

pub fn kernels() -> Vec<Kernel> {
    let mut all: Vec<Kernel> = vec![("unchecked", &above_half_unchecked::t4096c4::select::KERNEL)];
    macro_rules! of {
        ($m:ident) => {
            all.extend([
                ("checked", kernels::$m::flagged_bool::kernel::<f32>()),
                (
                    "unchecked",
                    kernels::unchecked::$m::flagged_bool::kernel::<f32>(),
                ),
                ("checked", kernels::$m::unique::kernel::<i32>()),
                ("unchecked", kernels::unchecked::$m::unique::kernel::<i32>()),
                ("unchecked", &above_half_unchecked::$m::select::KERNEL),
            ])
        };
    }
    of!(t4096c4);
    of!(t4096);
    of!(t4096c6);
    of!(t8192c3);
    of!(t2048c8);
    all.extend(AboveHalf::kernels().into_iter().map(|k| ("checked", k)));
    all
}

/// The look-back memory of the unchecked launches, as `select::Scratch` keeps it: status
/// words zeroed once (one a tile of the smallest tiling), the counter left zero by each
/// launch, one more epoch a launch.
struct Raw {
    status: DeviceBuffer<u64>,
    counter: DeviceBuffer<u32>,
    total: DeviceBuffer<u32>,
    no_heads: DeviceBuffer<u32>,
    epoch: u32,
}

impl Raw {
    fn new(dev: &Device, n: usize) -> Res<Raw> {
        let smallest = TUNED_TILINGS
            .iter()
            .map(|(_, t)| t.tile())
            .min()
            .unwrap_or(1);
        Ok(Raw {
            status: dev.zeros(n.div_ceil(smallest))?,
            counter: dev.zeros(1)?,
            total: dev.zeros(1)?,
            no_heads: dev.zeros(0)?,
            epoch: 0,
        })
    }
}

/// `f` with this thread's tunings of `algorithm` forced to `label` (`None`: the tuner's
/// own choice).
fn with_forced<R>(algorithm: &str, label: Option<&str>, f: impl FnOnce() -> R) -> R {
    autotune::force(algorithm, label);
    let r = f();
    autotune::force(algorithm, None);
    r
}

/// The tiling the tuner chose for `key` (the best of its ranking), else the default (the
/// simulator, `WARPSPEED_AUTOTUNE=off`, or below 2^20 elements).
fn chosen(key: &Key) -> Tiling {
    let best = autotune::ranking(key, &Settings::from_env()).and_then(|r| r.first().cloned());
    TUNED_TILINGS
        .iter()
        .find(|(l, _)| Some(*l) == best.as_deref())
        .map_or(TUNED_TILINGS[0].1, |&(_, t)| t)
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

/// The rows' inputs: 2^log2 uniform f32 with a random mask keeping about half, and
/// 2^(log2 - 2) sorted i32 with 2^(log2 - 8) distinct values; the CPU's selections.
struct Inputs {
    log2: u32,
    x: DeviceBuffer<f32>,
    flags: DeviceBuffer<bool>,
    want_flagged: Vec<f32>,
    want_above: Vec<f32>,
    ulog2: u32,
    dlog2: u32,
    sorted: DeviceBuffer<i32>,
    want_unique: Vec<i32>,
}

impl Inputs {
    fn new(b: &Bench) -> Res<Inputs> {
        let log2 = b.sizes.reduce_log2;
        let n = 1usize << log2;
        let dev = &b.dev;
        let mut rng = XorShift::new(n as u64 + 28);
        let host: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 1.0)).collect();
        let mask: Vec<bool> = (0..n).map(|_| rng.next_u32() & 1 == 1).collect();
        let want_flagged = host
            .iter()
            .zip(&mask)
            .filter(|(_, &k)| k)
            .map(|(&v, _)| v)
            .collect();
        let want_above = host.iter().copied().filter(|&v| v > 0.5).collect();
        let (x, flags) = (dev.upload(&host)?, dev.upload(&mask)?);
        drop((host, mask));
        let (ulog2, dlog2) = (log2 - 2, log2 - 8);
        let mut sorted: Vec<i32> = (0..1usize << ulog2)
            .map(|_| (rng.next_u32() % (1 << dlog2)) as i32)
            .collect();
        sorted.sort_unstable();
        let mut want_unique = sorted.clone();
        want_unique.dedup();
        Ok(Inputs {
            log2,
            x,
            flags,
            want_flagged,
            want_above,
            ulog2,
            dlog2,
            sorted: dev.upload(&sorted)?,
            want_unique,
        })
    }
}

/// A tiling to time: one of `TUNED_TILINGS` forced, or (`None`) the tuner's own choice.
type Which = Option<(&'static str, Tiling)>;

/// The library's entry (`checked`, forced to `which`'s tiling or tuned) against the
/// unchecked kernel of the same tiling (`unchecked`), each compared with the CPU's
/// selection `want`; the times and the tiling.
#[allow(clippy::too_many_arguments)]
fn contest<T: KernelScalar + PartialEq + std::fmt::Debug>(
    b: &Bench,
    what: &str,
    algorithm: &str,
    key: &Key,
    which: Which,
    outs: &mut [DeviceBuffer<T>; 2],
    want: &[T],
    mut checked: impl FnMut(&mut DeviceBuffer<T>) -> Res<usize>,
    mut unchecked: impl FnMut(Tiling, &mut DeviceBuffer<T>) -> Res<usize>,
) -> Res<(Vec<f64>, Tiling)> {
    with_forced(algorithm, which.map(|(l, _)| l), || {
        let mut counts = [0usize; 2];
        // Tunes, the first time: the unchecked kernel then runs the tiling chosen.
        checked(&mut outs[0])?;
        let tiling = which.map_or_else(|| chosen(key), |(_, t)| t);
        let t = {
            let ([oc, ou], [cc, cu]) = (&mut *outs, &mut counts);
            let (ch, un) = (&mut checked, &mut unchecked);
            best_ms(
                b,
                &mut [
                    Box::new(|| {
                        *cc = ch(oc)?;
                        Ok(())
                    }) as Step,
                    Box::new(|| {
                        *cu = un(tiling, ou)?;
                        Ok(())
                    }),
                ],
            )?
        };
        check(b, &format!("{what} {}", tiling.label()), counts, outs, want)?;
        Ok((t, tiling))
    })
}

/// The three works' rows under `which`: `name(work, tiling)` names each row.
fn work_rows(
    b: &Bench,
    inp: &Inputs,
    which: &[Which],
    name: impl Fn(&str, Which, Tiling) -> String,
) -> Res<Vec<Row>> {
    let dev = &b.dev;
    let log2 = inp.log2;
    let n = 1usize << log2;
    let (x, flags) = (&inp.x, &inp.flags);
    let size = format!("2^{log2} f32");
    let mut rows = Vec::new();
    let mut outs = [dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?];
    let mut scratch = Scratch::new(dev, n)?;
    let mut raw = Raw::new(dev, n)?;
    // Moved: the input read, the mask read, the kept elements written.
    let moved = |kept: usize, extra: f64| (4 * n + 4 * kept) as f64 + extra;

    let key = Key::new(dev, "select::flagged", "(f32, bool)", &[n]);
    for &w in which {
        let (s, r) = (&mut scratch, &mut raw);
        let (t, tiling) = contest(
            b,
            "select::flagged",
            "select::flagged",
            &key,
            w,
            &mut outs,
            &inp.want_flagged,
            |oc| Ok(select::flagged_with_scratch(dev, x, flags, oc, s)?),
            |t, ou| {
                r.epoch += 1;
                by_tiling!(t, kernels::unchecked, k => k::flagged_bool::launch::<f32>(
                    dev,
                    t.launch_config(n),
                    x,
                    flags,
                    ou,
                    &mut r.no_heads,
                    &mut r.total,
                    &mut r.status,
                    &mut r.counter,
                    r.epoch,
                    0,
                    false,
                ))?;
                Ok(r.total.download()?[0] as usize)
            },
        )?;
        let note = b.bandwidth_note(moved(inp.want_flagged.len(), n as f64), t[0]);
        rows.push(row(
            b,
            &name("select::flagged", w, tiling),
            &size,
            &format!("flagged_2^{log2}_f32"),
            &t,
            format!("{note}; {}", tiling.label()),
        ));
    }

    let key = Key::new(dev, "select::select_if", "AboveHalf", &[n]);
    for &w in which {
        let (s, r) = (&mut scratch, &mut raw);
        let (t, tiling) = contest(
            b,
            "select::select_if",
            "select::select_if",
            &key,
            w,
            &mut outs,
            &inp.want_above,
            |oc| Ok(select::select_if_with_scratch::<AboveHalf>(dev, x, oc, s)?),
            |t, ou| {
                r.epoch += 1;
                by_tiling!(t, above_half_unchecked, k => k::select::launch(
                    dev,
                    t.launch_config(n),
                    x,
                    ou,
                    &mut r.no_heads,
                    &mut r.total,
                    &mut r.status,
                    &mut r.counter,
                    r.epoch,
                    0,
                    false,
                ))?;
                Ok(r.total.download()?[0] as usize)
            },
        )?;
        let note = b.bandwidth_note(moved(inp.want_above.len(), 0.0), t[0]);
        rows.push(row(
            b,
            &name("select::select_if x > 0.5", w, tiling),
            &size,
            &format!("select_if_2^{log2}_f32"),
            &t,
            format!("{note}; {}", tiling.label()),
        ));
    }
    drop(outs);

    let (ulog2, dlog2) = (inp.ulog2, inp.dlog2);
    let m = 1usize << ulog2;
    let sorted = &inp.sorted;
    let mut outs = [dev.zeros::<i32>(m)?, dev.zeros::<i32>(m)?];
    let key = Key::new(dev, "select::unique", "i32", &[m]);
    for &w in which {
        let (s, r) = (&mut scratch, &mut raw);
        let (t, tiling) = contest(
            b,
            "select::unique",
            "select::unique",
            &key,
            w,
            &mut outs,
            &inp.want_unique,
            |oc| Ok(select::unique_with_scratch(dev, sorted, oc, s)?),
            |t, ou| {
                r.epoch += 1;
                by_tiling!(t, kernels::unchecked, k => k::unique::launch::<i32>(
                    dev,
                    t.launch_config(m),
                    sorted,
                    ou,
                    &mut r.no_heads,
                    &mut r.total,
                    &mut r.status,
                    &mut r.counter,
                    r.epoch,
                    0,
                    false,
                ))?;
                Ok(r.total.download()?[0] as usize)
            },
        )?;
        let note = b.bandwidth_note((4 * m + 4 * inp.want_unique.len()) as f64, t[0]);
        rows.push(row(
            b,
            &name("select::unique", w, tiling),
            &format!("2^{ulog2} i32"),
            &format!("unique_2^{ulog2}_i32"),
            &t,
            format!("{note}; {}; sorted, 2^{dlog2} distinct", tiling.label()),
        ));
    }
    Ok(rows)
}

/// The `select` group: the library's own tiling (tuned), checked and unchecked.
pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let inp = Inputs::new(b)?;
    work_rows(b, &inp, &[None], |work, _, _| {
        format!("{work} (algorithms)")
    })
}

/// The `select_tiling` group: each tiling of `select::TUNED_TILINGS` forced, then the
/// tuned choice, checked and unchecked.
pub fn tiling_rows(b: &Bench) -> Res<Vec<Row>> {
    let inp = Inputs::new(b)?;
    let which: Vec<Which> = TUNED_TILINGS
        .iter()
        .map(|&(l, t)| Some((l, t)))
        .chain([None])
        .collect();
    work_rows(b, &inp, &which, |work, w, t| match w {
        Some((label, _)) => format!("{work}, {label} (tiling)"),
        None => format!("{work}, tuned: {} (tiling)", t.label()),
    })
}

/// A row: checked and unchecked times, the peers of `key`, the bandwidth note.
fn row(b: &Bench, name: &str, size: &str, key: &str, t: &[f64], note: String) -> Row {
    Row::new(name, size, Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(key, Unit::Ms))
        .note(note)
}
