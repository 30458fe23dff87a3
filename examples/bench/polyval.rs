//! Polynomial evaluation (examples/kernels/polyval.rs): the seed's degree-8 polynomial
//! 1, 2, ..., 9 at 2^26 f32 points by Horner's method, checked, unchecked and by hand, every
//! result equal to the CPU's Horner bit for bit (`--fmad=false`: no fused multiply-add).

use cudarc::driver::PushKernelArg;
use warpspeed::LaunchConfig;

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::polyval_kernels::{checked, horner, unchecked};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

/// Threads per block (the seed's).
const BLOCK: u32 = 1024;

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::polyval_f32::KERNEL),
        ("unchecked", &unchecked::polyval_f32::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let dev = &b.dev;
    let log2 = b.sizes.polyval_log2;
    let n = 1usize << log2;
    let mut rng = XorShift::new(n as u64);
    let xs: Vec<f32> = (0..n).map(|_| rng.range_f32(-1.5, 1.5)).collect();
    let coeffs: Vec<f32> = (1..=9).map(|c| c as f32).collect();
    let want: Vec<f32> = xs.iter().map(|&x| horner(&coeffs, x)).collect();
    let (x, c) = (dev.upload(&xs)?, dev.upload(&coeffs)?);
    let poison = vec![f32::NAN; n];
    let mut out_c = dev.upload(&poison)?;
    let mut out_u = dev.upload(&poison)?;
    let out_h = dev.upload(&poison)?;
    let config = LaunchConfig::new(u32::try_from(n.div_ceil(BLOCK as usize))?, BLOCK);
    let f = b.hand.function("polyval.cu", "polyval_f32_hand")?;
    let (n64, nc64) = (n as u64, coeffs.len() as u64);
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(checked::polyval_f32::launch(
                dev, config, &mut out_c, &x, &c,
            )?)
        }),
        Box::new(|| {
            Ok(unchecked::polyval_f32::launch(
                dev, config, &mut out_u, &x, &c,
            )?)
        }),
        Box::new(|| {
            let mut l = b.stream.launch_builder(&f);
            l.arg(raw(&out_h))
                .arg(raw(&x))
                .arg(&n64)
                .arg(raw(&c))
                .arg(&nc64);
            // SAFETY: polyval_f32_hand(float* result, const float* x, unsigned long long n,
            // const float* coeffs, unsigned long long ncoeffs): live buffers of n, n and
            // ncoeffs f32; the kernel tests i < n.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    for (who, out) in [("checked", &out_c), ("unchecked", &out_u), ("hand", &out_h)] {
        b.check(
            &format!("polyval 2^{log2}, {who}, against the CPU Horner"),
            &out.download()?,
            &want,
            f32::to_bits,
        );
    }
    Ok(vec![Row::new(
        "polyval_f32 (degree 8)",
        format!("2^{log2} f32"),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .note(format!(
        "{:.0} Gpoint/s",
        n as f64 / (t[0] * 1e-3) / 1e9
    ))])
}
