//! `warpspeed::algorithms::xoroshiro` (issue 22): seed 002's Monte Carlo π (625 × 64
//! threads, one xoroshiro128+ generator each, 5000 points a thread, the kernel of
//! examples/kernels/monte_carlo_pi.rs) and a fill of 2^28 uniform f32 by 2^16 generators,
//! each checked and `unchecked`; peers: the same π estimate in torch and cupy (uniforms
//! drawn in chunks, then counted), and torch.rand / cupy.random for the fill (the random
//! group's rows, `peers.py --only random,xoroshiro`). Each output is checked, bit for bit,
//! against the host's generator at a sample of threads.

use warpspeed::algorithms::xoroshiro::{self, Xoroshiro128p};
use warpspeed::{DeviceBuffer, LaunchConfig};

use crate::monte_carlo_pi_kernels::{self as k, compute_pi_cpu, uniform_f32_cpu};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

/// Seed 002's shape: blocks, threads a block, points a thread.
const PI_BLOCKS: u32 = 625;
const PI_THREADS: u32 = 64;
const PI_ITERATIONS: u32 = 5000;
/// Generators of the fill row (256 blocks of 256 threads).
const FILL_STATES: usize = 1 << 16;

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &k::checked::compute_pi::KERNEL),
        ("unchecked", &k::unchecked::compute_pi::KERNEL),
        ("checked", &k::checked::fill_uniform::KERNEL),
        ("unchecked", &k::unchecked::fill_uniform::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let dev = &b.dev;
    let mut rows = Vec::new();

    // Monte Carlo π: each contestant's first run from fresh states, checked; the timed runs
    // go on from the states they leave (the same work).
    let n = (PI_BLOCKS * PI_THREADS) as usize;
    let host = xoroshiro::xoroshiro128p_states(n, 1, 0);
    let cfg = LaunchConfig::new(PI_BLOCKS, PI_THREADS);
    let mut st: [DeviceBuffer<Xoroshiro128p>; 2] = [dev.upload(&host)?, dev.upload(&host)?];
    let mut outs = [dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?];
    {
        let [sc, su] = &mut st;
        let [oc, ou] = &mut outs;
        k::checked::compute_pi::launch(dev, cfg, sc, PI_ITERATIONS, oc)?;
        k::unchecked::compute_pi::launch(dev, cfg, su, PI_ITERATIONS, ou)?;
    }
    for (who, out) in ["checked", "unchecked"].iter().zip(&outs) {
        let got = out.download()?;
        for t in (0..n).step_by(97).chain([n - 1]) {
            let want = compute_pi_cpu(host[t], PI_ITERATIONS);
            if got[t].to_bits() != want.to_bits() {
                b.mismatch(format_args!(
                    "xoroshiro compute_pi ({who}) at thread {t}: {}, the host {want}",
                    got[t]
                ));
                break;
            }
        }
        let pi = got.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
        if (pi - std::f64::consts::PI).abs() > 1e-3 {
            b.mismatch(format_args!("xoroshiro compute_pi ({who}): π = {pi}"));
        }
    }
    let t = {
        let [sc, su] = &mut st;
        let [oc, ou] = &mut outs;
        let mut steps: Vec<Step> = vec![
            Box::new(|| {
                Ok(k::checked::compute_pi::launch(
                    dev,
                    cfg,
                    sc,
                    PI_ITERATIONS,
                    oc,
                )?)
            }),
            Box::new(|| {
                Ok(k::unchecked::compute_pi::launch(
                    dev,
                    cfg,
                    su,
                    PI_ITERATIONS,
                    ou,
                )?)
            }),
        ];
        best_ms(b, &mut steps)?
    };
    let points = n as f64 * PI_ITERATIONS as f64;
    rows.push(
        Row::new(
            "xoroshiro monte_carlo_pi (seed 002)",
            format!("{n}x{PI_ITERATIONS} points"),
            Unit::Ms,
        )
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(&format!("monte_carlo_pi_{n}x{PI_ITERATIONS}"), Unit::Ms))
        .note(format!("{:.1} G points/s", points / (t[0] * 1e-3) / 1e9)),
    );

    // The fill: 2^log2 uniform f32 from FILL_STATES generators.
    let log2 = b.sizes.reduce_log2;
    let len = 1usize << log2;
    let host = xoroshiro::xoroshiro128p_states(FILL_STATES, 2026, 0);
    let cfg = LaunchConfig::new((FILL_STATES / 256) as u32, 256);
    let mut st: [DeviceBuffer<Xoroshiro128p>; 2] = [dev.upload(&host)?, dev.upload(&host)?];
    let mut outs = [dev.zeros::<f32>(len)?, dev.zeros::<f32>(len)?];
    {
        let [sc, su] = &mut st;
        let [oc, ou] = &mut outs;
        k::checked::fill_uniform::launch(dev, cfg, sc, oc)?;
        k::unchecked::fill_uniform::launch(dev, cfg, su, ou)?;
    }
    let per = len / FILL_STATES;
    for (who, out) in ["checked", "unchecked"].iter().zip(&outs) {
        let got = out.download()?;
        'sample: for t in (0..FILL_STATES).step_by(4099).chain([FILL_STATES - 1]) {
            for j in [0, 1, per / 2, per - 1] {
                let want = uniform_f32_cpu(host[t], j);
                let i = t + j * FILL_STATES;
                if got[i].to_bits() != want.to_bits() {
                    b.mismatch(format_args!(
                        "xoroshiro fill_uniform ({who}) at {i}: {}, the host {want}",
                        got[i]
                    ));
                    break 'sample;
                }
            }
        }
    }
    let t = {
        let [sc, su] = &mut st;
        let [oc, ou] = &mut outs;
        let mut steps: Vec<Step> = vec![
            Box::new(|| Ok(k::checked::fill_uniform::launch(dev, cfg, sc, oc)?)),
            Box::new(|| Ok(k::unchecked::fill_uniform::launch(dev, cfg, su, ou)?)),
        ];
        best_ms(b, &mut steps)?
    };
    rows.push(
        Row::new(
            "xoroshiro fill uniform f32 (2^16 generators)",
            format!("2^{log2} f32"),
            Unit::Ms,
        )
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(&format!("uniform_2^{log2}_f32"), Unit::Ms))
        .note(format!(
            "{} written",
            b.bandwidth_note(4.0 * len as f64, t[0])
        )),
    );
    Ok(rows)
}
