//! Tuples as values and as returns of `#[gpu_device]` functions (docs/language.md,
//! "Tuples"): built, passed through locals, destructured, their fields read and assigned,
//! returned early and as a tail, nested; on the simulator and on the GPU where there is
//! one, against the same Rust on the host; and NVRTC compiles every kernel here.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, Rng};

#[gpu_device]
fn divmod(a: u32, b: u32) -> (u32, u32) {
    (a / b, a % b)
}

#[gpu_device]
fn spread(x: f32, y: f32, z: f32) -> (f32, (f32, f64)) {
    let lo = x.min(y).min(z);
    let hi = x.max(y).max(z);
    (lo, (hi, x as f64 + y as f64 + z as f64))
}

#[gpu_device]
fn magnitude(x: i32) -> (i32, bool) {
    if x < 0 {
        return (-x, true);
    }
    (x, false)
}

#[gpu_kernel]
fn tuples(
    a: &[u32],
    b: &[u32],
    x: &[f32],
    out_q: &mut [u32],
    out_r: &mut [u32],
    outf: &mut [f32],
    outd: &mut [f64],
    outi: &mut [i32],
) {
    let i = grid_1d();
    if i < a.len() {
        let (q, r): (u32, u32) = divmod(a[i], b[i] | 1);
        let t = (q, r, i);
        let mut pair = (t.0 + 1, t.1);
        pair.0 += 1;
        pair = (pair.1, pair.0);
        let (mut s, _) = pair;
        s *= 3;
        out_q[i] = s + (t.2 as u32 & 1);
        out_r[i] = pair.1;
        let m: (f32, (f32, f64)) = spread(x[i], x[i] * 2.0, -x[i]);
        let mut n = m;
        (n.1).0 = (n.1).0 + 1.0;
        outf[i] = n.0 + (n.1).0;
        outd[i] = (m.1).1;
        let (v, neg): (i32, bool) = magnitude(a[i] as i32 - 1000);
        let both = if neg { (-v, 1) } else { (v * 2, 0) };
        let one = (both.1,);
        outi[i] = both.0 + one.0;
    }
}

fn host(a: u32, b: u32, x: f32, i: usize) -> (u32, u32, f32, f64, i32) {
    let (q, r) = (a / (b | 1), a % (b | 1));
    let t = (q, r, i);
    let mut pair = (t.0.wrapping_add(1), t.1);
    pair.0 = pair.0.wrapping_add(1);
    pair = (pair.1, pair.0);
    let s = pair.0.wrapping_mul(3);
    let (y, z) = (x * 2.0, -x);
    let lo = x.min(y).min(z);
    let hi = x.max(y).max(z);
    let m = (lo, (hi, x as f64 + y as f64 + z as f64));
    let f = m.0 + ((m.1).0 + 1.0);
    let k = (a as i32).wrapping_sub(1000);
    let i_out = if k < 0 {
        k.wrapping_neg().wrapping_neg() + 1
    } else {
        k.wrapping_mul(2)
    };
    (s + (t.2 as u32 & 1), pair.1, f, (m.1).1, i_out)
}

#[test]
fn tuples_as_values_and_returns() {
    let mut rng = Rng::new(9);
    let n = 3000;
    let a: Vec<u32> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                rng.next_u32() % 3000
            } else {
                rng.next_u32()
            }
        })
        .collect();
    let b: Vec<u32> = (0..n).map(|_| rng.next_u32() % 50).collect();
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-100.0, 100.0)).collect();
    for dev in devices("tuples_as_values_and_returns") {
        let (da, db, dx) = (
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
            dev.upload(&x).unwrap(),
        );
        let mut q = dev.upload(&vec![7u32; n]).unwrap();
        let mut r = dev.upload(&vec![7u32; n]).unwrap();
        let mut f = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut d = dev.upload(&vec![f64::NAN; n]).unwrap();
        let mut o = dev.upload(&vec![7i32; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        tuples::launch(
            &dev, cfg, &da, &db, &dx, &mut q, &mut r, &mut f, &mut d, &mut o,
        )
        .unwrap();
        let (q, r, f, d, o) = (
            q.download().unwrap(),
            r.download().unwrap(),
            f.download().unwrap(),
            d.download().unwrap(),
            o.download().unwrap(),
        );
        for i in 0..n {
            let w = host(a[i], b[i], x[i], i);
            let got = (q[i], r[i], f[i], d[i], o[i]);
            assert!(
                got.0 == w.0
                    && got.1 == w.1
                    && got.2.to_bits() == w.2.to_bits()
                    && got.3.to_bits() == w.3.to_bits()
                    && got.4 == w.4,
                "{:?} at {i}: got {got:?}, Rust says {w:?}",
                dev.backend()
            );
        }
    }
}

/// Every kernel of this file, for the NVRTC check.
fn kernels() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![("tuples", &tuples::KERNEL)]
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&kernels());
}
