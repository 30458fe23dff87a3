//! The memory ceiling: a device-to-device copy of 1 GiB (`cuMemcpyDtoD` through cudarc),
//! beside the peers' copies. Its bandwidth (bytes read + written per second) is what the
//! streaming rows (vector add, scan, histogram) are measured against: "x% of copy". Then
//! the same bytes copied by a kernel, 16 bytes a thread (`copy4` on `f32x4`: checked,
//! unchecked, and by hand with a `float4` struct).

use cudarc::driver::PushKernelArg;
use warpspeed::{f32x4, KernelScalar, LaunchConfig};

use crate::common::XorShift;
use crate::hand::{cfg, raw};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::vector_add_kernels::{checked, unchecked};
use crate::{Bench, Res};

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let bytes = 1usize << b.sizes.copy_log2;
    let src = b.stream.clone_htod(&vec![0x5Au8; bytes])?;
    let mut dst = b.stream.alloc_zeros::<u8>(bytes)?;
    let mut steps: Vec<Step> = vec![Box::new(|| Ok(b.stream.memcpy_dtod(&src, &mut dst)?))];
    let ms = best_ms(b, &mut steps)?[0];
    drop(steps);
    // A copy that copied nothing is no ceiling.
    let sample = b.stream.clone_dtoh(&dst.slice(bytes - 4096..))?;
    if sample.iter().any(|&v| v != 0x5A) {
        b.mismatch("device-to-device copy: the destination does not hold the source");
    }
    let gbs = 2.0 * bytes as f64 / (ms * 1e-3) / 1e9;
    b.copy_gbs.set(Some(gbs));
    let row = Row::new(
        "d2d copy (ceiling)",
        format!("2^{} B", b.sizes.copy_log2),
        Unit::Ms,
    );
    drop((src, dst));
    let ceiling = Row {
        hand: Some(ms),
        ..row
    }
    .peers(b.peers(&format!("copy_2^{}_bytes", b.sizes.copy_log2), Unit::Ms))
    .note(format!("hand = cudarc, {gbs:.0} GB/s"));
    Ok(vec![ceiling, kernel_copy_row(b, bytes)?])
}

/// `bytes` copied by `copy4` (checked, unchecked) and by its hand-written twin.
fn kernel_copy_row(b: &Bench, bytes: usize) -> Res<Row> {
    let dev = &b.dev;
    let n = bytes / std::mem::size_of::<f32x4>();
    let mut rng = XorShift::new(n as u64);
    let host: Vec<f32x4> = (0..n)
        .map(|_| f32x4::from_bits128(u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())))
        .collect();
    let src = dev.upload(&host)?;
    let poison = f32x4::splat(f32::NAN);
    let mut dst_c = dev.upload(&vec![poison; n])?;
    let mut dst_u = dev.upload(&vec![poison; n])?;
    let dst_h = dev.upload(&vec![poison; n])?;
    let config = LaunchConfig::for_num_elems(u32::try_from(n)?);
    let f = b.hand.function("vector_add.cu", "copy4_hand")?;
    let n64 = n as u64;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(checked::copy4::launch(dev, config, &src, &mut dst_c)?)),
        Box::new(|| Ok(unchecked::copy4::launch(dev, config, &src, &mut dst_u)?)),
        Box::new(|| {
            let mut l = b.stream.launch_builder(&f);
            l.arg(raw(&src)).arg(raw(&dst_h)).arg(&n64);
            // SAFETY: copy4_hand(const float4_hand* src, float4_hand* dst, unsigned long
            // long n): two live buffers of n f32x4 on this context; the kernel checks i < n.
            unsafe { l.launch(cfg(config)) }?;
            Ok(())
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    for (who, dst) in [("checked", &dst_c), ("unchecked", &dst_u), ("hand", &dst_h)] {
        // Random bits include NaNs: compare bits.
        b.check(
            &format!("copy4 of 2^{} B, {who}", b.sizes.copy_log2),
            &dst.download()?,
            &host,
            KernelScalar::to_bits128,
        );
    }
    Ok(Row::new(
        "copy kernel f32x4",
        format!("2^{} B", b.sizes.copy_log2),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), Some(t[2]))
    .note(b.bandwidth_note(2.0 * bytes as f64, t[0])))
}
