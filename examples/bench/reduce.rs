//! `warpspeed::algorithms::reduce` of 2^28 f32 (issue 22): `sum`, `max`, `min_max` and
//! `arg_max`, each as the library runs it (its two launches of the checked kernels, the
//! scratch given, so no allocation is timed) and with the `unchecked` kernels; peers
//! torch.sum/amax/aminmax/argmax and cupy.sum/max/argmax (CUB). Integers in [-8, 8] as
//! floats: every partial sum is exact, so each contestant's sum equals the CPU's, and the
//! many ties test that the arg-max is the first of the greatest. Then the same data as a
//! 2^(log2 - 10) x 1024 matrix: row sums (`segmented::sum`; torch.sum(dim=1),
//! cupy.sum(axis=1)) and running row sums (`segmented::inclusive_sum`; torch.cumsum(dim=1),
//! cupy.cumsum(axis=1)).

use warpspeed::algorithms::reduce::{self, kernels, launches, partials_for, unchecked};
use warpspeed::algorithms::segmented::{self, Segments};
use warpspeed::{DeviceBuffer, KernelScalar};

use crate::common::XorShift;
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", kernels::block_sums_float::kernel::<f32>()),
        ("unchecked", unchecked::block_sums_float::kernel::<f32>()),
        ("checked", kernels::block_maxs_float::kernel::<f32>()),
        ("unchecked", unchecked::block_maxs_float::kernel::<f32>()),
        ("checked", kernels::block_min_max_float::kernel::<f32>()),
        ("unchecked", unchecked::block_min_max_float::kernel::<f32>()),
        ("checked", kernels::block_arg_max_float::kernel::<f32>()),
        ("unchecked", unchecked::block_arg_max_float::kernel::<f32>()),
        (
            "checked",
            segmented::kernels::segment_sums_float::kernel::<f32>(),
        ),
        (
            "unchecked",
            segmented::kernels::unchecked::segment_sums_float::kernel::<f32>(),
        ),
        (
            "checked",
            segmented::kernels::segment_scan_sums_float::kernel::<f32>(),
        ),
        (
            "unchecked",
            segmented::kernels::unchecked::segment_scan_sums_float::kernel::<f32>(),
        ),
    ]
}

/// `first` over `x` into the partials, then `second` over the partials into the result:
/// the library's two launches, written once for a kernel pair of either module.
macro_rules! two_launches {
    ($m:ident :: $first:ident, $m2:ident :: $second:ident, $dev:expr, $x:expr, $scratch:expr, $out:expr, $n:expr) => {{
        let l = launches($n);
        $m::$first::launch($dev, l.first, $x, &mut *$scratch, l.chunk)?;
        Ok($m2::$second::launch(
            $dev, l.second, &*$scratch, &mut *$out, l.partials,
        )?)
    }};
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 22);
    let host: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 17) as f32 - 8.0).collect();
    let want_sum: f32 = host.iter().map(|&v| v as f64).sum::<f64>() as f32;
    let want_max = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let want_min = host.iter().copied().fold(f32::INFINITY, f32::min);
    let want_arg = host.iter().position(|&v| v == want_max).unwrap_or(0);
    let x = dev.upload(&host)?;
    drop(host);
    let size = format!("2^{log2} f32");
    let note = |t: f64| b.bandwidth_note(4.0 * n as f64, t);
    let mut rows = Vec::new();

    // Results and scratch of the checked and the unchecked runs: [checked, unchecked].
    let mut out = [dev.upload(&[f32::NAN])?, dev.upload(&[f32::NAN])?];
    let mut scratch = [
        dev.zeros::<f32>(partials_for(n))?,
        dev.zeros::<f32>(partials_for(n))?,
    ];
    let t = {
        let ([oc, ou], [sc, su]) = (&mut out, &mut scratch);
        best_ms(
            b,
            &mut [
                Box::new(|| Ok(reduce::sum_into_with_scratch(dev, &x, oc, sc)?)) as Step,
                Box::new(|| {
                    two_launches!(
                        unchecked::block_sums_float,
                        unchecked::block_sums_float,
                        dev,
                        &x,
                        su,
                        ou,
                        n
                    )
                }),
            ],
        )?
    };
    check(
        b,
        "reduce::sum",
        &out,
        |v| v[0] == want_sum,
        format!("{want_sum}"),
    )?;
    rows.push(row(
        b,
        "reduce::sum (algorithms)",
        &size,
        &format!("sum_2^{log2}_f32"),
        &t,
        note(t[0]),
    ));

    let t = {
        let ([oc, ou], [sc, su]) = (&mut out, &mut scratch);
        best_ms(
            b,
            &mut [
                Box::new(|| {
                    two_launches!(
                        kernels::block_maxs_float,
                        kernels::block_maxs_float,
                        dev,
                        &x,
                        sc,
                        oc,
                        n
                    )
                }) as Step,
                Box::new(|| {
                    two_launches!(
                        unchecked::block_maxs_float,
                        unchecked::block_maxs_float,
                        dev,
                        &x,
                        su,
                        ou,
                        n
                    )
                }),
            ],
        )?
    };
    check(
        b,
        "reduce::max",
        &out,
        |v| v[0] == want_max,
        format!("{want_max}"),
    )?;
    rows.push(row(
        b,
        "reduce::max (algorithms)",
        &size,
        &format!("max_2^{log2}_f32"),
        &t,
        note(t[0]),
    ));

    let mm = kernels::MinMax {
        lo: f32::NAN,
        hi: f32::NAN,
    };
    let mut out = [dev.upload(&[mm])?, dev.upload(&[mm])?];
    let mut scratch = [
        dev.upload(&vec![mm; partials_for(n)])?,
        dev.upload(&vec![mm; partials_for(n)])?,
    ];
    let t = {
        let ([oc, ou], [sc, su]) = (&mut out, &mut scratch);
        best_ms(
            b,
            &mut [
                Box::new(|| {
                    two_launches!(
                        kernels::block_min_max_float,
                        kernels::block_min_max_pairs_float,
                        dev,
                        &x,
                        sc,
                        oc,
                        n
                    )
                }) as Step,
                Box::new(|| {
                    two_launches!(
                        unchecked::block_min_max_float,
                        unchecked::block_min_max_pairs_float,
                        dev,
                        &x,
                        su,
                        ou,
                        n
                    )
                }),
            ],
        )?
    };
    check(
        b,
        "reduce::min_max",
        &out,
        |v| (v[0].lo, v[0].hi) == (want_min, want_max),
        format!("({want_min}, {want_max})"),
    )?;
    rows.push(row(
        b,
        "reduce::min_max (algorithms)",
        &size,
        &format!("min_max_2^{log2}_f32"),
        &t,
        note(t[0]),
    ));

    let arg = kernels::Arg {
        value: f32::NAN,
        index: u64::MAX,
    };
    let mut out = [dev.upload(&[arg])?, dev.upload(&[arg])?];
    let mut scratch = [
        dev.upload(&vec![arg; partials_for(n)])?,
        dev.upload(&vec![arg; partials_for(n)])?,
    ];
    let t = {
        let ([oc, ou], [sc, su]) = (&mut out, &mut scratch);
        best_ms(
            b,
            &mut [
                Box::new(|| {
                    two_launches!(
                        kernels::block_arg_max_float,
                        kernels::block_arg_max_pairs_float,
                        dev,
                        &x,
                        sc,
                        oc,
                        n
                    )
                }) as Step,
                Box::new(|| {
                    two_launches!(
                        unchecked::block_arg_max_float,
                        unchecked::block_arg_max_pairs_float,
                        dev,
                        &x,
                        su,
                        ou,
                        n
                    )
                }),
            ],
        )?
    };
    check(
        b,
        "reduce::arg_max",
        &out,
        |v| v[0].index as usize == want_arg && v[0].value == want_max,
        format!("({want_arg}, {want_max})"),
    )?;
    rows.push(row(
        b,
        "reduce::arg_max (algorithms)",
        &size,
        &format!("arg_max_2^{log2}_f32"),
        &t,
        note(t[0]),
    ));

    // Row sums of the same data as a 2^(log2 - 10) x 1024 matrix: the segmented reduce.
    let count = n / 1024;
    let segs = Segments::uniform(dev, count, 1024)?;
    let mut sums = [dev.zeros::<f32>(count)?, dev.zeros::<f32>(count)?];
    let (cfg, offsets, per_warp) = (segs.reduce_config(), segs.offsets(), segs.reduce_per_warp());
    let t = {
        let [c, u] = &mut sums;
        best_ms(
            b,
            &mut [
                Box::new(|| Ok(segmented::sum(dev, &x, &segs, c)?)) as Step,
                Box::new(|| {
                    Ok(segmented::kernels::unchecked::segment_sums_float::launch(
                        dev, cfg, &x, u, offsets, per_warp,
                    )?)
                }),
            ],
        )?
    };
    let host = x.download()?;
    let want: Vec<f32> = host
        .chunks(1024)
        .map(|r| r.iter().map(|&v| v as f64).sum::<f64>() as f32)
        .collect();
    check(
        b,
        "segmented::sum",
        &sums,
        |v| v == &want[..],
        "the rows' sums".into(),
    )?;
    rows.push(row(
        b,
        "segmented::sum (algorithms)",
        &format!("2^{} x 1024 f32", log2 - 10),
        &format!("row_sums_2^{log2}_f32"),
        &t,
        note(t[0]),
    ));

    // Running sums of each row of the same matrix: the segmented scan (one launch, one
    // block a row). Integers in [-8, 8]: every partial sum is exact, so each contestant's
    // equals the CPU's.
    drop(sums);
    let mut scans = [dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?];
    let scan_cfg = segs.scan_config::<f32>();
    let t = {
        let [c, u] = &mut scans;
        best_ms(
            b,
            &mut [
                Box::new(|| Ok(segmented::inclusive_sum(dev, &x, &segs, c)?)) as Step,
                Box::new(|| {
                    Ok(
                        segmented::kernels::unchecked::segment_scan_sums_float::launch(
                            dev, scan_cfg, &x, u, offsets, true,
                        )?,
                    )
                }),
            ],
        )?
    };
    let want: Vec<f32> = host
        .chunks(1024)
        .flat_map(|r| {
            r.iter().scan(0.0f32, |acc, &v| {
                *acc += v;
                Some(*acc)
            })
        })
        .collect();
    // `check` would print all 2^log2 results: the first difference instead.
    for (name, o) in ["checked", "unchecked"].iter().zip(&scans) {
        let got = o.download()?;
        if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
            b.mismatch(format_args!(
                "segmented::inclusive_sum ({name}): {} at {i}, the CPU {}",
                got[i], want[i]
            ));
        }
    }
    rows.push(row(
        b,
        "segmented::inclusive_sum (algorithms)",
        &format!("2^{} x 1024 f32", log2 - 10),
        &format!("row_cumsum_2^{log2}_f32"),
        &t,
        b.bandwidth_note(8.0 * n as f64, t[0]),
    ));
    Ok(rows)
}

/// Both runs' results downloaded and compared with the CPU's (`want` as text for the
/// message).
fn check<T: KernelScalar + std::fmt::Debug>(
    b: &Bench,
    what: &str,
    out: &[DeviceBuffer<T>; 2],
    ok: impl Fn(&[T]) -> bool,
    want: String,
) -> Res<()> {
    for (name, o) in ["checked", "unchecked"].iter().zip(out) {
        let got = o.download()?;
        if !ok(&got) {
            b.mismatch(format_args!("{what} ({name}): {got:?}, the CPU {want}"));
        }
    }
    Ok(())
}

/// A row: checked and unchecked times, the peers of `key`, the bandwidth note.
fn row(b: &Bench, name: &str, size: &str, key: &str, t: &[f64], note: String) -> Row {
    Row::new(name, size, Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(key, Unit::Ms))
        .note(note)
}
