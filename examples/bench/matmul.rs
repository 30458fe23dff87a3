//! f32 matmul, naive, 16x16-tiled and register-tiled (examples/kernels/matmul.rs), on
//! 4096^3: checked, unchecked, by hand; peers cuBLAS (through torch, TF32 off) and Triton's
//! tutorial kernel (input_precision="ieee").
//!
//! The inputs are small integers (-8..=8) as f32, so every sum is exact in any order: the
//! checked kernel's C is compared with the CPU on a sample of elements, the other
//! contestants' C with the checked kernel's, all bit for bit. C starts poisoned (NaN).

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::{DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::matmul_kernels::{checked, cpu_element, matmul_reg_config, small_ints, unchecked};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::matmul_naive::KERNEL),
        ("unchecked", &unchecked::matmul_naive::KERNEL),
        ("checked", &checked::matmul_tiled::KERNEL),
        ("unchecked", &unchecked::matmul_tiled::KERNEL),
        ("checked", &checked::matmul_reg::KERNEL),
        ("unchecked", &unchecked::matmul_reg::KERNEL),
    ]
}

type Launch = fn(
    &warpspeed::Device,
    LaunchConfig,
    &mut DeviceBuffer<f32>,
    &DeviceBuffer<f32>,
    &DeviceBuffer<f32>,
    usize,
    usize,
    usize,
) -> warpspeed::Result<()>;

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let n = b.sizes.matmul;
    let mut rng = XorShift::new(n as u64);
    let ha = small_ints(|| rng.next_u64(), n * n);
    let hb = small_ints(|| rng.next_u64(), n * n);
    let (a, bm) = (b.dev.upload(&ha)?, b.dev.upload(&hb)?);
    // A sample of elements checked against the CPU (the whole product is 2 n^3 flops).
    let sample: Vec<(usize, usize)> = (0..256)
        .map(|i| match i {
            0 => (0, 0),
            1 => (n - 1, n - 1),
            _ => ((rng.next_u64() as usize) % n, (rng.next_u64() as usize) % n),
        })
        .collect();
    let want: Vec<f32> = sample
        .iter()
        .map(|&(r, c)| cpu_element(&ha, &hb, n, n, r, c))
        .collect();
    let mut rows = Vec::new();
    let blocks16 = LaunchConfig::new((n.div_ceil(16) as u32, n.div_ceil(16) as u32), (16, 16));
    for (label, ws, ws_unchecked, hand, config) in [
        (
            "matmul_naive",
            checked::matmul_naive::launch as Launch,
            unchecked::matmul_naive::launch as Launch,
            "matmul_naive_hand",
            blocks16,
        ),
        (
            "matmul_tiled",
            checked::matmul_tiled::launch as Launch,
            unchecked::matmul_tiled::launch as Launch,
            "matmul_tiled_hand",
            blocks16,
        ),
        (
            "matmul_reg",
            checked::matmul_reg::launch as Launch,
            unchecked::matmul_reg::launch as Launch,
            "matmul_reg_hand",
            matmul_reg_config(n, n),
        ),
    ] {
        let f = b.hand.function("matmul.cu", hand)?;
        let t = contest(
            b,
            label,
            [ws, ws_unchecked],
            &f,
            config,
            &a,
            &bm,
            n,
            &sample,
            &want,
        )?;
        let tflops = 2.0 * (n as f64).powi(3) / (t[0] * 1e-3) / 1e12;
        rows.push(
            Row::new(label, format!("{n}^3 f32"), Unit::Ms)
                .times(t[0], Some(t[1]), Some(t[2]))
                .peers(b.peers(&format!("matmul_{n}_f32"), Unit::Ms))
                .note(format!("{tflops:.2} TFLOP/s")),
        );
    }
    Ok(rows)
}

#[allow(clippy::too_many_arguments)]
fn contest(
    b: &Bench,
    label: &str,
    ws: [Launch; 2],
    f: &CudaFunction,
    config: LaunchConfig,
    a: &DeviceBuffer<f32>,
    bm: &DeviceBuffer<f32>,
    n: usize,
    sample: &[(usize, usize)],
    want: &[f32],
) -> Res<Vec<f64>> {
    let dev = &b.dev;
    let poison = vec![f32::NAN; n * n];
    let mut c = [dev.upload(&poison)?, dev.upload(&poison)?];
    let h = dev.upload(&poison)?;
    let n64 = n as u64;
    let [cc, cu] = &mut c;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(ws[0](dev, config, cc, a, bm, n, n, n)?)),
        Box::new(|| Ok(ws[1](dev, config, cu, a, bm, n, n, n)?)),
        Box::new(|| {
            let mut l = b.stream.launch_builder(f);
            l.arg(raw(&h))
                .arg(raw(a))
                .arg(raw(bm))
                .arg(&n64)
                .arg(&n64)
                .arg(&n64);
            // SAFETY: matmul_*_hand(float* c, const float* a, const float* b, unsigned long
            // long m, k, n): three live n*n f32 buffers; the kernels test row < m, col < n
            // and the tile loads against k.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let got = c[0].download()?;
    if let Some(i) = got.iter().position(|v| v.is_nan()) {
        b.mismatch(format_args!(
            "{label} {n}^3, checked: element {i} was never written"
        ));
    }
    let got_sample: Vec<f32> = sample.iter().map(|&(r, col)| got[r * n + col]).collect();
    b.check(
        &format!(
            "{label} {n}^3, checked, on {} sampled elements against the CPU",
            sample.len()
        ),
        &got_sample,
        want,
        f32::to_bits,
    );
    for (who, other) in [("unchecked", &c[1]), ("hand", &h)] {
        b.check(
            &format!("{label} {n}^3, {who}, against the checked kernel"),
            &other.download()?,
            &got,
            f32::to_bits,
        );
    }
    Ok(t)
}
