//! Vector add of 2^28 f32 (examples/kernels/vector_add.rs): checked, unchecked, by hand;
//! peers torch.add and a copy of the same bytes. Then the same sum on the same buffers
//! viewed as 2^26 `f32x4` (`vector_add4`, one 16-byte access per operand and thread; by
//! hand with a `float4` struct). Every output equals the CPU's sum.

use cudarc::driver::PushKernelArg;
use warpspeed::{f32x4, DeviceBuffer, LaunchConfig};

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::vector_add_kernels::{checked, unchecked};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::vector_add::KERNEL),
        ("unchecked", &unchecked::vector_add::KERNEL),
        ("checked", &checked::vector_add4::KERNEL),
        ("unchecked", &unchecked::vector_add4::KERNEL),
        ("checked", &checked::copy4::KERNEL),
        ("unchecked", &unchecked::copy4::KERNEL),
    ]
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.vector_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64);
    let ha: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let hb: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let (a, bb) = (dev.upload(&ha)?, dev.upload(&hb)?);
    // Poisoned: an element no thread writes stays NaN and fails the comparison.
    let poison = vec![f32::NAN; n];
    drop((ha, hb));
    let mut out_c = dev.upload(&poison)?;
    let mut out_u = dev.upload(&poison)?;
    let out_h = dev.upload(&poison)?;
    let config = LaunchConfig::for_num_elems(u32::try_from(n)?);
    let f = b.hand.function("vector_add.cu", "vector_add_hand")?;
    let n64 = n as u64;
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(checked::vector_add::launch(
                dev, config, &a, &bb, &mut out_c,
            )?)
        }),
        Box::new(|| {
            Ok(unchecked::vector_add::launch(
                dev, config, &a, &bb, &mut out_u,
            )?)
        }),
        Box::new(|| {
            let mut l = b.stream.launch_builder(&f);
            l.arg(raw(&a)).arg(raw(&bb)).arg(raw(&out_h)).arg(&n64);
            // SAFETY: vector_add_hand(const float* a, const float* b, float* out,
            // unsigned long long n): three live buffers of n f32 on this context; the kernel
            // checks i < n.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    for (who, out) in [("checked", &out_c), ("unchecked", &out_u), ("hand", &out_h)] {
        b.check(
            &format!("vector add 2^{log2}, {who}, against the CPU"),
            &out.download()?,
            &want,
            f32::to_bits,
        );
    }
    let scalar = Row::new("vector add", format!("2^{log2} f32"), Unit::Ms)
        .times(t[0], Some(t[1]), Some(t[2]))
        .peers(b.peers(&format!("vector_add_2^{log2}_f32"), Unit::Ms))
        .note(b.bandwidth_note(12.0 * n as f64, t[0]));
    drop((out_c, out_u, out_h));
    let vector = vector_rows(b, log2, a, bb, &poison, &want)?;
    Ok(vec![scalar, vector])
}

/// The `f32x4` row: the scalar row's inputs viewed as vectors (no copy).
fn vector_rows(
    b: &Bench,
    log2: u32,
    a: DeviceBuffer<f32>,
    bb: DeviceBuffer<f32>,
    poison: &[f32],
    want: &[f32],
) -> Res<Row> {
    let dev = &b.dev;
    let n4 = a.len() / 4;
    let (a, bb) = (a.into_vectors::<f32x4>()?, bb.into_vectors::<f32x4>()?);
    let mut out_c = dev.upload(poison)?.into_vectors::<f32x4>()?;
    let mut out_u = dev.upload(poison)?.into_vectors::<f32x4>()?;
    let out_h = dev.upload(poison)?.into_vectors::<f32x4>()?;
    let config = LaunchConfig::for_num_elems(u32::try_from(n4)?);
    let f = b.hand.function("vector_add.cu", "vector_add4_hand")?;
    let n64 = n4 as u64;
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(checked::vector_add4::launch(
                dev, config, &a, &bb, &mut out_c,
            )?)
        }),
        Box::new(|| {
            Ok(unchecked::vector_add4::launch(
                dev, config, &a, &bb, &mut out_u,
            )?)
        }),
        Box::new(|| {
            let mut l = b.stream.launch_builder(&f);
            l.arg(raw(&a)).arg(raw(&bb)).arg(raw(&out_h)).arg(&n64);
            // SAFETY: vector_add4_hand(const float4_hand* a, const float4_hand* b,
            // float4_hand* out, unsigned long long n): three live buffers of n f32x4 (16
            // bytes, 16-aligned) on this context; the kernel checks i < n.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    for (who, out) in [("checked", out_c), ("unchecked", out_u), ("hand", out_h)] {
        b.check(
            &format!("vector add 2^{log2} as f32x4, {who}, against the CPU"),
            &DeviceBuffer::from_vectors(out).download()?,
            want,
            f32::to_bits,
        );
    }
    Ok(Row::new(
        "vector add f32x4",
        format!("2^{} f32x4", log2 - 2),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .note(b.bandwidth_note(12.0 * (4 * n4) as f64, t[0])))
}
