//! 2-D convolution, naive and shared-memory (examples/kernels/convolve.rs), of a 4096^2 f32
//! image with a 13x13 mask: checked, unchecked, by hand.
//!
//! The image holds integers 0..=255 and the mask -4..=4, so every sum is exact in any
//! order: the checked kernel's result is compared with the CPU on a sample of rows, the
//! other contestants' with the checked kernel's, all bit for bit. Results start poisoned.

use cudarc::driver::{CudaFunction, PushKernelArg};
use warpspeed::{DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::convolve_kernels::{checked, cpu_row, unchecked};
use crate::hand::{cfg, raw};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

/// The mask (seed 002's 13x13).
const MASK: (usize, usize) = (13, 13);

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::convolve_naive::KERNEL),
        ("unchecked", &unchecked::convolve_naive::KERNEL),
        ("checked", &checked::convolve_shared::KERNEL),
        ("unchecked", &unchecked::convolve_shared::KERNEL),
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
    usize,
) -> warpspeed::Result<()>;

/// The image and mask on the host and the device.
struct Problem {
    side: usize,
    image_host: Vec<f32>,
    mask_host: Vec<f32>,
    image: DeviceBuffer<f32>,
    mask: DeviceBuffer<f32>,
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let side = b.sizes.convolve;
    let mut rng = XorShift::new(side as u64);
    let image_host: Vec<f32> = (0..side * side)
        .map(|_| (rng.next_u64() % 256) as f32)
        .collect();
    let mask_host: Vec<f32> = (0..MASK.0 * MASK.1)
        .map(|_| (rng.next_u64() % 9) as f32 - 4.0)
        .collect();
    let p = Problem {
        side,
        image: b.dev.upload(&image_host)?,
        mask: b.dev.upload(&mask_host)?,
        image_host,
        mask_host,
    };
    let mut rows = Vec::new();
    for (label, ws, ws_unchecked, hand) in [
        (
            "convolve_naive",
            checked::convolve_naive::launch as Launch,
            unchecked::convolve_naive::launch as Launch,
            "convolve_naive_hand",
        ),
        (
            "convolve_shared",
            checked::convolve_shared::launch as Launch,
            unchecked::convolve_shared::launch as Launch,
            "convolve_shared_hand",
        ),
    ] {
        let f = b.hand.function("convolve.cu", hand)?;
        let t = contest(b, label, [ws, ws_unchecked], &f, &p)?;
        let gflops = 2.0 * (side * side * MASK.0 * MASK.1) as f64 / (t[0] * 1e-3) / 1e9;
        rows.push(
            Row::new(label, format!("{side}^2, 13x13 f32"), Unit::Ms)
                .times(t[0], Some(t[1]), Some(t[2]))
                .note(format!("{gflops:.0} GFLOP/s")),
        );
    }
    Ok(rows)
}

fn contest(
    b: &Bench,
    label: &str,
    ws: [Launch; 2],
    f: &CudaFunction,
    p: &Problem,
) -> Res<Vec<f64>> {
    let dev = &b.dev;
    let side = p.side;
    let (mr, mc) = MASK;
    let blocks = u32::try_from(side.div_ceil(32))?;
    let config = LaunchConfig::new((blocks, blocks), (32, 32));
    let poison = vec![f32::NAN; side * side];
    let mut out = [dev.upload(&poison)?, dev.upload(&poison)?];
    let h = dev.upload(&poison)?;
    let (s64, mr64, mc64) = (side as u64, mr as u64, mc as u64);
    let [oc, ou] = &mut out;
    let (image, mask) = (&p.image, &p.mask);
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(ws[0](dev, config, oc, mask, image, side, side, mr, mc)?)),
        Box::new(|| Ok(ws[1](dev, config, ou, mask, image, side, side, mr, mc)?)),
        Box::new(|| {
            let mut l = b.stream.launch_builder(f);
            l.arg(raw(&h)).arg(raw(mask)).arg(raw(image));
            l.arg(&s64).arg(&s64).arg(&mr64).arg(&mc64);
            // SAFETY: convolve_*_hand(float* result, const float* mask, const float* image,
            // unsigned long long rows, cols, mask_rows, mask_cols): live buffers of
            // rows*cols and mask_rows*mask_cols (13x13, what the shared tiles hold) f32;
            // the kernels test every pixel and tap against the image.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let got = out[0].download()?;
    if let Some(i) = got.iter().position(|v| v.is_nan()) {
        b.mismatch(format_args!(
            "{label} {side}^2, checked: pixel {i} was never written"
        ));
    }
    // Every 64th row, and the last (the bottom halo).
    for row in (0..side).step_by(64).chain([side - 1]) {
        let mut want = vec![0.0f32; side];
        cpu_row(
            &p.image_host,
            side,
            side,
            &p.mask_host,
            MASK,
            row,
            &mut want,
        );
        b.check(
            &format!("{label} {side}^2, checked, row {row} against the CPU"),
            &got[row * side..(row + 1) * side],
            &want,
            f32::to_bits,
        );
    }
    for (who, other) in [("unchecked", &out[1]), ("hand", &h)] {
        b.check(
            &format!("{label} {side}^2, {who}, against the checked kernel"),
            &other.download()?,
            &got,
            f32::to_bits,
        );
    }
    Ok(t)
}
