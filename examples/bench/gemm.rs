//! Tensor-core GEMM (examples/kernels/gemm.rs), checked and unchecked, beside cuBLAS
//! (torch.matmul) and the autotuned Triton kernel of bench/peers_tensor.py:
//! - `gemm (mma.sync)`: n^3 bf16 with f32 accumulation (`mma.sync` with a `cp_async`
//!   pipeline). The inputs are small integers (-3..=3), exact in bf16, whose products and
//!   sums are exact in f32 in any order: a sample of C is compared with the CPU bit for bit,
//!   the unchecked kernel's C with the checked one's.
//! - `gemm 3xTF32`: n^3 f32 through tf32 with split correction, at the matmul rows' size;
//!   its peer is cuBLAS's f32 SGEMM (the `matmul` rows' peer), what a user who needs f32
//!   accuracy picks. Random reals; the note gives the largest error on 256 sampled elements
//!   against f64, relative to the largest |C|.
//!
//! C starts poisoned (NaN).

use warpspeed::{bf16, DeviceBuffer};

use crate::common::XorShift;
use crate::gemm_kernels::{checked, gemm_config, unchecked};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::gemm_bf16::KERNEL),
        ("unchecked", &unchecked::gemm_bf16::KERNEL),
        ("checked", &checked::gemm_3xtf32::KERNEL),
        ("unchecked", &unchecked::gemm_3xtf32::KERNEL),
    ]
}

/// Small integers -3..=3 as f32 (exact in bf16).
fn small(rng: &mut XorShift, len: usize) -> Vec<f32> {
    (0..len)
        .map(|_| (rng.next_u32() % 7) as f32 - 3.0)
        .collect()
}

/// 256 (row, col) of an n x n C: two corners, the rest random.
fn sample(rng: &mut XorShift, n: usize) -> Vec<(usize, usize)> {
    (0..256)
        .map(|i| match i {
            0 => (0, 0),
            1 => (n - 1, n - 1),
            _ => ((rng.next_u64() as usize) % n, (rng.next_u64() as usize) % n),
        })
        .collect()
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    for &n in &b.sizes.gemm {
        rows.push(mma_sync_row(b, n)?);
    }
    rows.push(tf32x3_row(b, b.sizes.matmul)?);
    Ok(rows)
}

/// `gemm_bf16`: C (f32) = A * B, both row major.
fn mma_sync_row(b: &Bench, n: usize) -> Res<Row> {
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 21);
    let (ha, hb) = (small(&mut rng, n * n), small(&mut rng, n * n));
    let at = sample(&mut rng, n);
    let want: Vec<f32> = at
        .iter()
        .map(|&(r, c)| (0..n).fold(0.0f32, |s, i| s + ha[r * n + i] * hb[i * n + c]))
        .collect();
    let to_bf16 = |v: &[f32]| -> Vec<bf16> { v.iter().map(|&x| bf16::from_f32(x)).collect() };
    let (a, bm) = (dev.upload(&to_bf16(&ha))?, dev.upload(&to_bf16(&hb))?);
    let poison = vec![f32::NAN; n * n];
    let mut c: [DeviceBuffer<f32>; 2] = [dev.upload(&poison)?, dev.upload(&poison)?];
    let cfg = gemm_config(n, n);
    let [cc, cu] = &mut c;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(checked::gemm_bf16::launch(dev, cfg, &a, &bm, cc, n, n, n)?)),
        Box::new(|| {
            Ok(unchecked::gemm_bf16::launch(
                dev, cfg, &a, &bm, cu, n, n, n,
            )?)
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let got = c[0].download()?;
    if let Some(i) = got.iter().position(|v| v.is_nan()) {
        b.mismatch(format_args!(
            "gemm_bf16 {n}^3: element {i} was never written"
        ));
    }
    let got_at: Vec<f32> = at.iter().map(|&(r, col)| got[r * n + col]).collect();
    b.check(
        &format!(
            "gemm_bf16 {n}^3, on {} sampled elements against the CPU",
            at.len()
        ),
        &got_at,
        &want,
        f32::to_bits,
    );
    b.check(
        &format!("gemm_bf16 {n}^3, unchecked, against the checked kernel"),
        &c[1].download()?,
        &got,
        f32::to_bits,
    );
    let tflops = 2.0 * (n as f64).powi(3) / (t[0] * 1e-3) / 1e12;
    Ok(Row::new("gemm (mma.sync)", format!("{n}^3 bf16"), Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(&format!("gemm_{n}_bf16"), Unit::Ms))
        .note(format!("{tflops:.1} TFLOP/s; C in f32 (peers: bf16)")))
}

/// `gemm_3xtf32`: f32 C = A * B through 3xTF32.
fn tf32x3_row(b: &Bench, n: usize) -> Res<Row> {
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 33);
    let mut reals = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
            .collect()
    };
    let (ha, hb) = (reals(n * n), reals(n * n));
    let at = sample(&mut rng, n);
    let want: Vec<f64> = at
        .iter()
        .map(|&(r, c)| {
            (0..n)
                .map(|i| ha[r * n + i] as f64 * hb[i * n + c] as f64)
                .sum()
        })
        .collect();
    let (a, bm) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let poison = vec![f32::NAN; n * n];
    let mut c: [DeviceBuffer<f32>; 2] = [dev.upload(&poison)?, dev.upload(&poison)?];
    let cfg = gemm_config(n, n);
    let [cc, cu] = &mut c;
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(checked::gemm_3xtf32::launch(
                dev, cfg, &a, &bm, cc, n, n, n,
            )?)
        }),
        Box::new(|| {
            Ok(unchecked::gemm_3xtf32::launch(
                dev, cfg, &a, &bm, cu, n, n, n,
            )?)
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let got = c[0].download()?;
    if let Some(i) = got.iter().position(|v| v.is_nan()) {
        b.mismatch(format_args!(
            "gemm_3xtf32 {n}^3: element {i} was never written"
        ));
    }
    let scale = want.iter().fold(0.0f64, |s, w| s.max(w.abs()));
    let err = at
        .iter()
        .zip(&want)
        .map(|(&(r, col), w)| (got[r * n + col] as f64 - w).abs() / scale)
        .fold(0.0f64, f64::max);
    if err.is_nan() || err > 2f64.powi(-17) {
        b.mismatch(format_args!(
            "gemm_3xtf32 {n}^3: error {err:.2e} of max |C|, above 2^-17"
        ));
    }
    b.check(
        &format!("gemm_3xtf32 {n}^3, unchecked, against the checked kernel"),
        &c[1].download()?,
        &got,
        f32::to_bits,
    );
    let tflops = 2.0 * (n as f64).powi(3) / (t[0] * 1e-3) / 1e12;
    Ok(Row::new("gemm 3xTF32", format!("{n}^3 f32"), Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(&format!("matmul_{n}_f32"), Unit::Ms))
        .note(format!(
            "{tflops:.1} TFLOP/s; error {err:.1e} of max |C| vs f64"
        )))
}
