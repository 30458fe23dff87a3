//! Local arrays as values (docs/language.md, "Arrays"): copied by `let`, assigned whole
//! (rows of 2-D arrays too), chosen by `if`, and passed by value to `#[gpu_device]`
//! functions, which may change their copy (`mut a: [i32; 3]`) without touching the
//! caller's; on the simulator and on the GPU where there is one, against the same Rust on
//! the host; and NVRTC compiles every kernel here.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, Rng};

#[gpu_device]
fn dot4(a: [f32; 4], b: [f32; 4]) -> f32 {
    let mut s = 0.0f32;
    for k in 0..4 {
        s += a[k] * b[k];
    }
    s
}

#[gpu_device]
fn bump(mut a: [i32; 3], by: i32) -> i32 {
    for k in 0..3 {
        a[k] += by;
    }
    a[0] * 100 + a[1] * 10 + a[2]
}

#[gpu_device]
fn trace(m: [[i32; 3]; 3]) -> i32 {
    m[0][0] + m[1][1] + m[2][2]
}

#[gpu_kernel]
fn arrays(x: &[f32], v: &[i32], outf: &mut [f32], outi: &mut [i32]) {
    let i = grid_1d();
    if i < x.len() {
        let a = [x[i], x[i] + 1.0, x[i] * 2.0, -x[i]];
        let mut b = a;
        b[0] = 5.0;
        let c = if x[i] > 0.0 { a } else { b };
        let mut d = [1.0f32; 4];
        let before = d[2];
        d = c;
        d[3] += a[0];
        let dot: f32 = dot4(d, a);
        outf[i] = dot + a[0] + b[0] + before;
        let t = [v[i], v[i] * 2, 7];
        let bumped: i32 = bump(t, 3);
        let mut m = [[5i32; 3]; 3];
        let five = m[2][0];
        m = [[0; 3]; 3];
        m[0] = [0, 2, 0];
        m[1] = t;
        m[2][2] = bumped;
        let tr: i32 = trace(m);
        outi[i] = tr + t[0] + five + m[2][0] + m[0][1];
    }
}

fn host(x: f32, v: i32) -> (f32, i32) {
    let a = [x, x + 1.0, x * 2.0, -x];
    let mut b = a;
    b[0] = 5.0;
    let c = if x > 0.0 { a } else { b };
    let mut d = c;
    d[3] += a[0];
    let mut dot = 0.0f32;
    for k in 0..4 {
        dot += d[k] * a[k];
    }
    let t = [v, v.wrapping_mul(2), 7];
    let u: Vec<i32> = t.iter().map(|e| e.wrapping_add(3)).collect();
    let bumped = u[0]
        .wrapping_mul(100)
        .wrapping_add(u[1].wrapping_mul(10))
        .wrapping_add(u[2]);
    let tr = t[1].wrapping_add(bumped);
    (
        dot + a[0] + b[0] + 1.0,
        tr.wrapping_add(t[0]).wrapping_add(5 + 2),
    )
}

#[test]
fn arrays_are_values() {
    let mut rng = Rng::new(4);
    let n = 2500;
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-50.0, 50.0)).collect();
    let v: Vec<i32> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                rng.next_u32() as i32
            } else {
                (rng.next_u32() % 2000) as i32 - 1000
            }
        })
        .collect();
    for dev in devices("arrays_are_values") {
        let (dx, dv) = (dev.upload(&x).unwrap(), dev.upload(&v).unwrap());
        let mut of = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut oi = dev.upload(&vec![7i32; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        arrays::launch(&dev, cfg, &dx, &dv, &mut of, &mut oi).unwrap();
        let (of, oi) = (of.download().unwrap(), oi.download().unwrap());
        for i in 0..n {
            let (wf, wi) = host(x[i], v[i]);
            assert_eq!(
                of[i].to_bits(),
                wf.to_bits(),
                "{:?} at {i}: x {}",
                dev.backend(),
                x[i]
            );
            assert_eq!(oi[i], wi, "{:?} at {i}: v {}", dev.backend(), v[i]);
        }
    }
}

/// Every kernel of this file, for the NVRTC check.
fn kernels() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![("arrays", &arrays::KERNEL)]
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&kernels());
}
