//! `warpspeed::algorithms::histogram` (issue 22): `histogram::even` of 2^28 f32 over
//! `[0, 1)`, as the library runs it (zeroing the counts, then counting) and with the
//! `unchecked` kernels launched by the same [`plan`]; four rows: 256 bins of uniform
//! samples, 256 bins of one value (0.0, the worst case for atomics), 4096 and 65536 bins
//! of uniform samples (65536: the global-atomic kernel). Peers cupy.histogram,
//! torch.histc and torch.bincount (of the samples scaled to bins, which is not timed).
//! The uniform samples are Philox's (`random::fill_uniform_f32`), multiples of 2^-24;
//! every contestant's counts are checked against the CPU's.

use warpspeed::algorithms::histogram::{self, kernels, plan, unchecked};
use warpspeed::algorithms::random;
use warpspeed::DeviceBuffer;

use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", kernels::zero_counts::kernel()),
        ("unchecked", unchecked::zero_counts::kernel()),
        ("checked", kernels::even_shared_float::kernel::<f32>()),
        ("unchecked", unchecked::even_shared_float::kernel::<f32>()),
        ("checked", kernels::even_global_float::kernel::<f32>()),
        ("unchecked", unchecked::even_global_float::kernel::<f32>()),
    ]
}

/// The CPU's counts of `x` in `bins` bins over [0, 1) (the library's formula).
fn cpu_counts(x: &[f32], bins: usize) -> Vec<u32> {
    let scale = bins as f32;
    let mut c = vec![0u32; bins];
    for &v in x {
        if (0.0..1.0).contains(&v) {
            c[((v * scale) as usize).min(bins - 1)] += 1;
        }
    }
    c
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    // The library's default plan, the one the unchecked rows launch: checked against
    // unchecked like for like (the `autotune` group measures the tuned plan).
    let default = histogram::TUNED_BLOCKS_PER_SM[0].0;
    warpspeed::autotune::force("histogram::even", Some(default));
    let rows = rows_of_default_plan(b);
    warpspeed::autotune::force("histogram::even", None);
    rows
}

fn rows_of_default_plan(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.reduce_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut uniform = dev.zeros::<f32>(n)?;
    random::fill_uniform_f32(dev, &mut uniform, 2026, 0)?;
    let host = uniform.download()?;
    let one = dev.zeros::<f32>(n)?;
    let mut rows = Vec::new();
    for (bins, what, x) in [
        (256usize, "uniform", &uniform),
        (256, "one value", &one),
        (4096, "uniform", &uniform),
        (65536, "uniform", &uniform),
    ] {
        let p = plan(dev, n, bins);
        let mut counts: [DeviceBuffer<u32>; 2] = [dev.zeros(bins)?, dev.zeros(bins)?];
        let t = {
            let [cc, cu] = &mut counts;
            best_ms(
                b,
                &mut [
                    Box::new(|| Ok(histogram::even(dev, x, cc, 0.0f32, 1.0)?)) as Step,
                    Box::new(|| {
                        unchecked::zero_counts::launch(dev, p.zero, &mut *cu)?;
                        match p.shared {
                            Some(copies) => unchecked::even_shared_float::launch::<f32>(
                                dev,
                                p.cfg,
                                x,
                                &mut *cu,
                                0.0,
                                1.0,
                                bins as f32,
                                copies,
                            )?,
                            None => unchecked::even_global_float::launch::<f32>(
                                dev,
                                p.cfg,
                                x,
                                &mut *cu,
                                0.0,
                                1.0,
                                bins as f32,
                            )?,
                        }
                        Ok(())
                    }),
                ],
            )?
        };
        let want = if what == "one value" {
            let mut w = vec![0u32; bins];
            w[0] = n as u32;
            w
        } else {
            cpu_counts(&host, bins)
        };
        for (who, c) in ["checked", "unchecked"].iter().zip(&counts) {
            if c.download()? != want {
                b.mismatch(format_args!("histogram::even {bins} bins {what} ({who})"));
            }
        }
        let key = format!(
            "histogram_lib_2^{log2}_f32_{bins}_{}",
            what.replace(' ', "_")
        );
        rows.push(
            Row::new(
                format!("histogram::even {bins} bins, {what} (algorithms)"),
                format!("2^{log2} f32"),
                Unit::Ms,
            )
            .times(t[0], Some(t[1]), None)
            .peers(b.peers(&key, Unit::Ms))
            .note(format!(
                "{}; {}",
                b.bandwidth_note(4.0 * n as f64, t[0]),
                match p.shared {
                    Some(c) => format!("shared, {c} copies a block"),
                    None => "global atomics".into(),
                }
            )),
        );
    }
    Ok(rows)
}
