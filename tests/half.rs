//! Half precision (`warpspeed::f16`, `f16x2`, CUDA's `__half`/`__half2`): conversions,
//! arithmetic and comparisons as the `half` crate computes them, and the half atomics of
//! seed 001's table (`atomicAdd` on `__half` and `__half2`), on the simulator and the GPU.

mod common;

use common::{devices, Rng};
use core::sync::atomic::Ordering;
use warpspeed::prelude::*;
use warpspeed::{f16, f16x2, AtomicF16, AtomicF16x2, LaunchConfig};

/// Per element: the five operations, an f32 view, and three comparisons as bits.
#[gpu_kernel]
fn half_ops(a: &[f16], b: &[f16], out: &mut [f16], outf: &mut [f32], flags: &mut [u32]) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let x = a[i];
    let y = b[i];
    out[5 * i] = x + y;
    out[5 * i + 1] = x - y;
    out[5 * i + 2] = x * y;
    out[5 * i + 3] = x / y;
    out[5 * i + 4] = -x;
    let mut acc = x;
    acc += y;
    outf[i] = acc.to_f32() * 2.0;
    flags[i] = (x < y) as u32 | ((x == y) as u32) << 1 | ((x >= y) as u32) << 2;
}

#[gpu_kernel]
fn half_convert(xs: &[f32], ds: &[f64], out: &mut [f16], back: &mut [f64]) {
    let i = grid_1d();
    if i >= xs.len() {
        return;
    }
    let h = f16::from_f32(xs[i]);
    out[2 * i] = h;
    out[2 * i + 1] = f16::from_f64(ds[i]);
    back[i] = h.to_f64();
}

/// Every thread adds into one `__half` and one `__half2`, in global and shared memory.
#[gpu_kernel]
fn half_atomics(vals: &[f16], acc: &[AtomicF16], acc2: &[AtomicF16x2]) {
    let local = SharedArray::<AtomicF16, 1>::new();
    if thread_idx().x == 0 {
        local[0].store(f16::from_f32(0.0), Ordering::Relaxed);
    }
    sync_threads();
    let i = grid_1d();
    if i < vals.len() {
        let v = vals[i];
        acc[0].fetch_add(v, Ordering::Relaxed);
        acc2[0].fetch_add(f16x2::new(v, -v), Ordering::Relaxed);
        local[0].fetch_add(v, Ordering::Relaxed);
    }
    sync_threads();
    if thread_idx().x == 0 {
        acc[1].fetch_add(local[0].load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

fn same(a: f16, b: f16) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn random_half(rng: &mut Rng) -> f16 {
    // Every class: random bits cover normals, subnormals, zeros, infinities and NaNs.
    f16::from_bits(rng.next_u32() as u16)
}

#[test]
fn arithmetic_and_comparisons_as_the_half_crate() {
    let mut rng = Rng::new(41);
    let n = 4096;
    let a: Vec<f16> = (0..n).map(|_| random_half(&mut rng)).collect();
    let b: Vec<f16> = (0..n).map(|_| random_half(&mut rng)).collect();
    for dev in devices("half_arithmetic") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut out = dev.upload(&vec![f16::from_bits(0x7e01); 5 * n]).unwrap();
        let mut outf = dev.zeros::<f32>(n).unwrap();
        let mut flags = dev.upload(&vec![u32::MAX; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        half_ops::launch(&dev, cfg, &da, &db, &mut out, &mut outf, &mut flags).unwrap();
        let (out, outf, flags) = (
            out.download().unwrap(),
            outf.download().unwrap(),
            flags.download().unwrap(),
        );
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [x + y, x - y, x * y, x / y, -x];
            for (k, w) in want.iter().enumerate() {
                assert!(
                    same(out[5 * i + k], *w),
                    "{:?}: op {k} of {x:?}, {y:?}: got {:?}, half says {w:?}",
                    dev.backend(),
                    out[5 * i + k]
                );
            }
            let f = (x + y).to_f32() * 2.0;
            assert!(
                outf[i].to_bits() == f.to_bits() || (f.is_nan() && outf[i].is_nan()),
                "{:?}",
                dev.backend()
            );
            let bits = u32::from(x < y) | u32::from(x == y) << 1 | u32::from(x >= y) << 2;
            assert_eq!(
                flags[i],
                bits,
                "{:?}: comparisons of {x:?}, {y:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn conversions_round_as_the_half_crate() {
    let mut rng = Rng::new(43);
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        65504.0,
        65519.99,
        65520.0,
        1e9,
        -1e9,
        6.0e-8,
        5.96e-8,
        2.98e-8,
        1e-10,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.000_976_6,
        1.000_488_3,
        1.000_732_4,
        2049.0,
        2051.0,
    ];
    while xs.len() < 2000 {
        xs.push(f32::from_bits(rng.next_u32()));
    }
    let ds: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            if i % 2 == 0 {
                f64::from(x)
            } else {
                f64::from_bits(rng.next_u64())
            }
        })
        .collect();
    let n = xs.len();
    for dev in devices("half_conversions") {
        let (dx, dd) = (dev.upload(&xs).unwrap(), dev.upload(&ds).unwrap());
        let mut out = dev.zeros::<f16>(2 * n).unwrap();
        let mut back = dev.zeros::<f64>(n).unwrap();
        half_convert::launch(
            &dev,
            LaunchConfig::for_num_elems(n as u32),
            &dx,
            &dd,
            &mut out,
            &mut back,
        )
        .unwrap();
        let (out, back) = (out.download().unwrap(), back.download().unwrap());
        for i in 0..n {
            let h = f16::from_f32(xs[i]);
            assert!(
                same(out[2 * i], h),
                "{:?}: from_f32({:e}) = {:?}, half says {h:?}",
                dev.backend(),
                xs[i],
                out[2 * i]
            );
            let hd = warpspeed::f16_from_f64(ds[i]); // correctly rounded, as the GPU's cvt
            assert!(
                same(out[2 * i + 1], hd),
                "{:?}: from_f64({:e}) = {:?}, half says {hd:?}",
                dev.backend(),
                ds[i],
                out[2 * i + 1]
            );
            let w = h.to_f64();
            assert!(
                back[i].to_bits() == w.to_bits() || (w.is_nan() && back[i].is_nan()),
                "{:?}: to_f64",
                dev.backend()
            );
        }
    }
}

#[test]
fn half_atomic_add_global_and_shared() {
    let mut rng = Rng::new(47);
    let n = 600;
    // Small integers: every partial sum is an exact half, so the order does not matter.
    let vals: Vec<f16> = (0..n)
        .map(|_| f16::from_f32((rng.next_u32() % 4) as f32))
        .collect();
    let total: f32 = vals.iter().map(|v| v.to_f32()).sum();
    for dev in devices("half_atomics") {
        let input = dev.upload(&vals).unwrap();
        let mut acc = dev
            .upload(&[f16::from_f32(0.5), f16::from_f32(0.0)])
            .unwrap();
        let mut acc2 = dev
            .upload(&[f16x2::new(f16::from_f32(1.0), f16::from_f32(-1.0))])
            .unwrap();
        half_atomics::launch(&dev, LaunchConfig::new(3, 256), &input, &mut acc, &mut acc2).unwrap();
        let acc = acc.download().unwrap();
        assert_eq!(
            acc[0].to_f32(),
            total + 0.5,
            "{:?}: global __half",
            dev.backend()
        );
        assert_eq!(
            acc[1].to_f32(),
            total,
            "{:?}: shared __half, then global",
            dev.backend()
        );
        let p = acc2.download().unwrap()[0];
        assert_eq!(
            (p.lo.to_f32(), p.hi.to_f32()),
            (total + 1.0, -total - 1.0),
            "{:?}: __half2",
            dev.backend()
        );
    }
}
