//! Vector add of 2^28 f32 (examples/kernels/vector_add.rs): checked, unchecked, by hand;
//! peers torch.add and a copy of the same bytes. Then the same sum on the same buffers
//! viewed as 2^26 `f32x4` (`vector_add4`, one 16-byte access per operand and thread; by
//! hand with a `float4` struct). Every output equals the CPU's sum.

use cudarc::driver::PushKernelArg;
use warpspeed::{f32x4, DeviceBuffer, KernelScalar, LaunchConfig};

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

/// A vector-add kernel's launch, for `f32` and `f32x4` alike.
type Launch<E> = fn(
    &warpspeed::Device,
    LaunchConfig,
    &DeviceBuffer<E>,
    &DeviceBuffer<E>,
    &mut DeviceBuffer<E>,
) -> warpspeed::Result<()>;

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let log2 = b.sizes.vector_log2;
    let n = 1usize << log2;
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64);
    let ha: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let hb: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let (a, bb) = (dev.upload(&ha)?, dev.upload(&hb)?);
    drop((ha, hb));
    // Poisoned: an element no thread writes stays NaN and fails the comparison.
    let poison = || dev.upload(&vec![f32::NAN; n]);
    let outs = [poison()?, poison()?, poison()?];
    let kernels: [Launch<f32>; 2] = [checked::vector_add::launch, unchecked::vector_add::launch];
    let (t, outs) = contest(b, &a, &bb, outs, kernels, "vector_add_hand")?;
    check(b, &format!("vector add 2^{log2}"), outs, &want)?;
    let scalar = Row::new("vector add", format!("2^{log2} f32"), Unit::Ms)
        .times(t[0], Some(t[1]), Some(t[2]))
        .peers(b.peers(&format!("vector_add_2^{log2}_f32"), Unit::Ms))
        .note(b.bandwidth_note(12.0 * n as f64, t[0]));

    // The same sum on the same buffers viewed as 2^(log2 - 2) `f32x4` (no copy).
    let (a, bb) = (a.into_vectors::<f32x4>()?, bb.into_vectors::<f32x4>()?);
    let outs = [
        poison()?.into_vectors::<f32x4>()?,
        poison()?.into_vectors::<f32x4>()?,
        poison()?.into_vectors::<f32x4>()?,
    ];
    let kernels: [Launch<f32x4>; 2] =
        [checked::vector_add4::launch, unchecked::vector_add4::launch];
    let (t, outs) = contest(b, &a, &bb, outs, kernels, "vector_add4_hand")?;
    check(
        b,
        &format!("vector add 2^{log2} as f32x4"),
        outs.map(DeviceBuffer::from_vectors),
        &want,
    )?;
    let vector = Row::new(
        "vector add f32x4",
        format!("2^{} f32x4", log2 - 2),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .note(b.bandwidth_note(12.0 * n as f64, t[0]));
    Ok(vec![scalar, vector])
}

/// Times `out = a + b` by the checked and unchecked kernels and the hand-written
/// `hand(const E* a, const E* b, E* out, unsigned long long n)`, each into its own output.
fn contest<E: KernelScalar>(
    b: &Bench,
    a: &DeviceBuffer<E>,
    bb: &DeviceBuffer<E>,
    outs: [DeviceBuffer<E>; 3],
    kernels: [Launch<E>; 2],
    hand: &str,
) -> Res<(Vec<f64>, [DeviceBuffer<E>; 3])> {
    let dev = &b.dev;
    let [mut out_c, mut out_u, out_h] = outs;
    let config = LaunchConfig::for_num_elems(u32::try_from(a.len())?);
    let f = b.hand.function("vector_add.cu", hand)?;
    let n64 = a.len() as u64;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(kernels[0](dev, config, a, bb, &mut out_c)?)),
        Box::new(|| Ok(kernels[1](dev, config, a, bb, &mut out_u)?)),
        Box::new(|| {
            let mut l = b.stream.launch_builder(&f);
            l.arg(raw(a)).arg(raw(bb)).arg(raw(&out_h)).arg(&n64);
            // SAFETY: vector_add_hand / vector_add4_hand(const E* a, const E* b, E* out,
            // unsigned long long n), E float or float4_hand (16 bytes, 16-aligned): three
            // live buffers of n E on this context; the kernel checks i < n.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    Ok((t, [out_c, out_u, out_h]))
}

/// Each contestant's output (checked, unchecked, hand) against the CPU's sum.
fn check(b: &Bench, what: &str, outs: [DeviceBuffer<f32>; 3], want: &[f32]) -> Res<()> {
    for (who, out) in ["checked", "unchecked", "hand"].into_iter().zip(outs) {
        b.check(
            &format!("{what}, {who}, against the CPU"),
            &out.download()?,
            want,
            f32::to_bits,
        );
    }
    Ok(())
}
