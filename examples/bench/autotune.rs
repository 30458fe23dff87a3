//! `warpspeed::autotune` in the library (issue 22): each candidate of a tuned parameter,
//! forced (`autotune::force`), beside the library's own choice (tuned the first time, in
//! the untimed warm-up run), so the table shows what tuning bought on this GPU:
//!
//! - `reduce::sum` of 2^28 u32: the first launch's most blocks (`reduce::TUNED_BLOCKS`);
//!   checked: the library forced to the candidate, unchecked: the `unchecked` kernels with
//!   the candidate's launches (`reduce::launches_with`). Peers torch.sum / cupy.sum of
//!   int32 / uint32.
//! - `histogram::even` of 2^28 f32, 256 bins, uniform: the most blocks an SM
//!   (`histogram::TUNED_BLOCKS_PER_SM`); unchecked: the `unchecked` kernels with
//!   `histogram::plan_with`. Peers as the `histogram_lib` group's.
//! - `scan::inclusive_sum` of 2^28 i64 (the fixed-order look-back): its threads a block,
//!   so its tile (`scan::TUNED_BLOCKS`); checked only. Peers torch.cumsum / cupy.cumsum of
//!   int64.
//!
//! Every contestant's result is checked against the CPU's.

use warpspeed::algorithms::histogram::{self, plan_with, TUNED_BLOCKS_PER_SM};
use warpspeed::algorithms::random;
use warpspeed::algorithms::reduce::{self, launches_with, partials_for, TUNED_BLOCKS};
use warpspeed::algorithms::scan;
use warpspeed::autotune::{self, Key, Settings};
use warpspeed::DeviceBuffer;

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", reduce::kernels::block_sums_int::kernel::<u32>()),
        (
            "unchecked",
            reduce::unchecked::block_sums_int::kernel::<u32>(),
        ),
    ]
}

/// `f` with this thread's tunings of `algorithm` forced to `label` (`None`: the tuner's
/// own choice).
fn with_forced<R>(algorithm: &str, label: Option<&str>, f: impl FnOnce() -> R) -> R {
    autotune::force(algorithm, label);
    let r = f();
    autotune::force(algorithm, None);
    r
}

/// What the tuner chose for `key` (the best of its ranking), for the tuned row's note.
fn chosen(key: &Key) -> String {
    autotune::ranking(key, &Settings::from_env())
        .and_then(|r| r.first().cloned())
        .unwrap_or_else(|| {
            "the default (not tuned: the simulator or WARPSPEED_AUTOTUNE=off)".into()
        })
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let mut rows = reduce_rows(b)?;
    rows.extend(histogram_rows(b)?);
    rows.extend(scan_rows(b)?);
    Ok(rows)
}

fn reduce_rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 2206);
    let host: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32 >> 4).collect();
    let want = host.iter().fold(0u32, |s, &v| s.wrapping_add(v));
    let x = dev.upload(&host)?;
    drop(host);
    let mut out = [dev.upload(&[0u32])?, dev.upload(&[0u32])?];
    let mut scratch = [
        dev.zeros::<u32>(partials_for(n))?,
        dev.zeros::<u32>(partials_for(n))?,
    ];
    let mut rows = Vec::new();
    let labels = TUNED_BLOCKS.iter().map(|&(l, blocks)| (Some(l), blocks));
    for (label, blocks) in labels.chain([(None, 0)]) {
        let l = launches_with(n, blocks);
        let t = with_forced("reduce", label, || {
            let ([oc, ou], [sc, su]) = (&mut out, &mut scratch);
            let mut steps: Vec<Step> = vec![Box::new(|| {
                Ok(reduce::sum_into_with_scratch(dev, &x, oc, sc)?)
            })];
            if label.is_some() {
                steps.push(Box::new(|| {
                    use reduce::unchecked::block_sums_int as u;
                    u::launch::<u32>(dev, l.first, &x, &mut su.slice_mut(..l.partials), l.chunk)?;
                    let partials = su.slice(..l.partials);
                    Ok(u::launch::<u32>(
                        dev, l.second, &partials, &mut *ou, l.partials,
                    )?)
                }));
            }
            best_ms(b, &mut steps)
        })?;
        for (who, o) in ["checked", "unchecked"].iter().zip(&out).take(t.len()) {
            let got = o.download()?[0];
            if got != want {
                b.mismatch(format_args!(
                    "autotune reduce::sum u32 {label:?} ({who}): {got}, the CPU {want}"
                ));
            }
        }
        let (name, note) = match label {
            Some(label) => (
                format!("reduce::sum u32, {label} (autotune)"),
                format!("{} partials", l.partials),
            ),
            None => (
                "reduce::sum u32, tuned (autotune)".to_string(),
                format!(
                    "chose {}",
                    chosen(&Key::new(dev, "reduce", "Sum<u32>", &[n]))
                ),
            ),
        };
        rows.push(
            Row::new(name, format!("2^{log2} u32"), Unit::Ms)
                .times(t[0], t.get(1).copied(), None)
                .peers(b.peers(&format!("sum_2^{log2}_u32"), Unit::Ms))
                .note(format!(
                    "{}; {note}",
                    b.bandwidth_note(4.0 * n as f64, t[0])
                )),
        );
    }
    Ok(rows)
}

/// The CPU's counts of `x` in `bins` bins over [0, 1) (the library's formula).
fn cpu_counts(x: &[f32], bins: usize) -> Vec<u32> {
    let mut c = vec![0u32; bins];
    for &v in x {
        if (0.0..1.0).contains(&v) {
            c[((v * bins as f32) as usize).min(bins - 1)] += 1;
        }
    }
    c
}

fn histogram_rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let bins = 256;
    let dev = &b.dev;
    let mut x = dev.zeros::<f32>(n)?;
    random::fill_uniform_f32(dev, &mut x, 2026, 0)?;
    let want = cpu_counts(&x.download()?, bins);
    let mut counts: [DeviceBuffer<u32>; 2] = [dev.zeros(bins)?, dev.zeros(bins)?];
    let mut rows = Vec::new();
    let labels = TUNED_BLOCKS_PER_SM
        .iter()
        .map(|&(l, per_sm)| (Some(l), per_sm));
    for (label, per_sm) in labels.chain([(None, 2)]) {
        let p = plan_with(dev, n, bins, per_sm);
        let t = with_forced("histogram::even", label, || {
            let [cc, cu] = &mut counts;
            let mut steps: Vec<Step> =
                vec![Box::new(|| Ok(histogram::even(dev, &x, cc, 0.0f32, 1.0)?))];
            if label.is_some() {
                steps.push(Box::new(|| {
                    let u = &histogram::unchecked::even_shared_float::launch::<f32>;
                    histogram::unchecked::zero_counts::launch(dev, p.zero, &mut *cu)?;
                    let copies = p.shared.expect("256 bins fit in shared memory");
                    Ok(u(dev, p.cfg, &x, &mut *cu, 0.0, 1.0, bins as f32, copies)?)
                }));
            }
            best_ms(b, &mut steps)
        })?;
        for (who, c) in ["checked", "unchecked"].iter().zip(&counts).take(t.len()) {
            if c.download()? != want {
                b.mismatch(format_args!("autotune histogram::even {label:?} ({who})"));
            }
        }
        let (name, note) = match label {
            Some(label) => (
                format!("histogram::even 256 bins, {label} (autotune)"),
                format!("{} blocks", p.cfg.grid.x),
            ),
            None => (
                "histogram::even 256 bins, tuned (autotune)".to_string(),
                format!(
                    "chose {}",
                    chosen(&Key::new(dev, "histogram::even", "f32", &[n, bins]))
                ),
            ),
        };
        rows.push(
            Row::new(name, format!("2^{log2} f32"), Unit::Ms)
                .times(t[0], t.get(1).copied(), None)
                .peers(b.peers(&format!("histogram_lib_2^{log2}_f32_256_uniform"), Unit::Ms))
                .note(format!(
                    "{}; {note}",
                    b.bandwidth_note(4.0 * n as f64, t[0])
                )),
        );
    }
    Ok(rows)
}

fn scan_rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.scan_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 2207);
    let host: Vec<i64> = (0..n).map(|_| (rng.next_u64() % 17) as i64 - 8).collect();
    let x = dev.upload(&host)?;
    let mut out = dev.zeros::<i64>(n)?;
    let mut scratch = scan::Scratch::new(dev, n)?;
    let mut rows = Vec::new();
    let labels = scan::TUNED_BLOCKS
        .iter()
        .map(|&(l, block)| (Some(l), block));
    for (label, block) in labels.chain([(None, 0)]) {
        let t = with_forced("scan", label, || {
            best_ms(
                b,
                &mut [Box::new(|| {
                    Ok(scan::inclusive_with_scratch::<
                        warpspeed::algorithms::operator::Sum<i64>,
                    >(dev, &x, &mut out, &mut scratch)?)
                }) as Step],
            )
        })?;
        let got = out.download()?;
        let mut s = 0i64;
        if let Some(i) = host.iter().zip(&got).position(|(&v, &g)| {
            s += v;
            g != s
        }) {
            b.mismatch(format_args!(
                "autotune scan i64 {label:?}: first wrong at {i}"
            ));
        }
        let (name, note) = match label {
            Some(label) => (
                format!("scan::inclusive_sum i64, {label} (autotune)"),
                format!("{block} threads a block, tiles of {}", 16 * block),
            ),
            None => (
                "scan::inclusive_sum i64, tuned (autotune)".to_string(),
                format!("chose {}", chosen(&Key::new(dev, "scan", "Sum<i64>", &[n]))),
            ),
        };
        rows.push(
            Row::new(name, format!("2^{log2} i64"), Unit::Ms)
                .times(t[0], None, None)
                .peers(b.peers(&format!("scan_2^{log2}_i64"), Unit::Ms))
                .note(format!(
                    "{}; {note}",
                    b.bandwidth_note(16.0 * n as f64, t[0])
                )),
        );
    }
    Ok(rows)
}
