//! The numeric methods where Rust panics (docs/methods.md, "Where Rust panics"): the
//! simulator reports the panic as `Error::KernelPanic`; the GPU does not check and gives
//! the value the docs name. Also `f32::from_bits`/`to_bits` and `T::from` in kernels,
//! against Rust on the host. (Every method on edge values: tests/semantics_prop.rs.)

mod common;

use warpspeed::prelude::*;
use warpspeed::{Backend, Device, Error, LaunchConfig};

#[gpu_kernel]
fn logs(a: &[u32], b: &[i32], l2: &mut [u32], l10: &mut [u32], root: &mut [i32]) {
    let i = grid_1d();
    if i < l2.len() {
        l2[i] = a[i].ilog2();
        l10[i] = b[i].ilog10();
        root[i] = b[i].isqrt();
    }
}

#[gpu_kernel]
fn ceil_div(a: &[u64], b: &[u64], out: &mut [u64]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = a[i].div_ceil(b[i]);
    }
}

#[gpu_kernel]
fn clamp_f(x: &[f32], lo: f32, hi: f32, out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = x[i].clamp(lo, hi);
    }
}

#[gpu_kernel]
fn bits(b: &[u32], x: &[f64], small: &[u8], f: &mut [f32], d: &mut [u64], w: &mut [i64]) {
    let i = grid_1d();
    if i < f.len() {
        f[i] = f32::from_bits(b[i]);
        d[i] = f64::from_bits(x[i].to_bits() ^ (1u64 << 63)).to_bits();
        w[i] = i64::from(small[i]) - i64::from(small[i] > 100) + i64::from(u32::from(small[i]));
    }
}

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

/// The launch fails on the simulator with a panic naming `what`; on the GPU it succeeds.
fn expect_panic(dev: &Device, r: warpspeed::Result<()>, what: &str) -> bool {
    match dev.backend() {
        Backend::Simulator => {
            match r {
                Err(Error::KernelPanic { message, .. }) => {
                    assert!(message.contains(what), "{message}")
                }
                other => panic!("expected a reported panic ({what}), got {other:?}"),
            }
            false
        }
        Backend::Cuda => {
            r.unwrap();
            true
        }
    }
}

#[test]
fn logarithms_and_roots_of_invalid_values() {
    for dev in common::devices("logarithms_and_roots_of_invalid_values") {
        // Valid values agree with Rust everywhere.
        let a: Vec<u32> = vec![1, 2, 3, 1023, 1024, u32::MAX, 7, 8];
        let b: Vec<i32> = vec![1, 9, 10, 99, 100, i32::MAX, 123456, 1_000_000_000];
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut l2 = dev.upload(&[7u32; 8]).unwrap();
        let mut l10 = dev.upload(&[7u32; 8]).unwrap();
        let mut root = dev.upload(&[7i32; 8]).unwrap();
        logs::launch(&dev, cfg(8), &da, &db, &mut l2, &mut l10, &mut root).unwrap();
        let want2: Vec<u32> = a.iter().map(|x| x.ilog2()).collect();
        let want10: Vec<u32> = b.iter().map(|x| x.ilog10()).collect();
        let wantr: Vec<i32> = b.iter().map(|x| x.isqrt()).collect();
        assert_eq!(l2.download().unwrap(), want2, "{:?}", dev.backend());
        assert_eq!(l10.download().unwrap(), want10, "{:?}", dev.backend());
        assert_eq!(root.download().unwrap(), wantr, "{:?}", dev.backend());

        // ilog2(0), ilog10(-5), isqrt(-5): Rust panics.
        let da = dev.upload(&[0u32, 4]).unwrap();
        let db = dev.upload(&[-5i32, 100]).unwrap();
        let mut l2 = dev.zeros::<u32>(2).unwrap();
        let mut l10 = dev.zeros::<u32>(2).unwrap();
        let mut root = dev.zeros::<i32>(2).unwrap();
        let r = logs::launch(&dev, cfg(2), &da, &db, &mut l2, &mut l10, &mut root);
        if expect_panic(&dev, r, "logarithm") {
            assert_eq!(l2.download().unwrap(), vec![u32::MAX, 2]);
            assert_eq!(l10.download().unwrap(), vec![u32::MAX, 2]);
            assert_eq!(root.download().unwrap(), vec![-1, 10]);
        }
    }
}

#[test]
fn div_ceil_by_zero() {
    for dev in common::devices("div_ceil_by_zero") {
        let a = [7u64, u64::MAX, 0, 10];
        let b = [2u64, 3, 5, 10];
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut out = dev.upload(&[9u64; 4]).unwrap();
        ceil_div::launch(&dev, cfg(4), &da, &db, &mut out).unwrap();
        let want: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x.div_ceil(*y)).collect();
        assert_eq!(out.download().unwrap(), want);
        let db = dev.upload(&[0u64, 3, 5, 10]).unwrap();
        let r = ceil_div::launch(&dev, cfg(4), &da, &db, &mut out);
        expect_panic(&dev, r, "divide by zero");
    }
}

#[test]
fn clamp_keeps_nan_and_checks_its_bounds() {
    for dev in common::devices("clamp_keeps_nan_and_checks_its_bounds") {
        let x = [f32::NAN, -3.0, 0.5, 7.0, f32::INFINITY, -0.0];
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.zeros::<f32>(x.len()).unwrap();
        clamp_f::launch(&dev, cfg(x.len()), &dx, -1.0, 2.0, &mut out).unwrap();
        let got = out.download().unwrap();
        for (g, v) in got.iter().zip(&x) {
            let w = v.clamp(-1.0, 2.0);
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "{v}: {g} vs {w}"
            );
        }
        let r = clamp_f::launch(&dev, cfg(x.len()), &dx, 2.0, -1.0, &mut out);
        if expect_panic(&dev, r, "min > max") {
            // The GPU: `if x < min { min } else if x > max { max } else { x }`.
            let got = out.download().unwrap();
            assert_eq!(got[1], 2.0);
            assert_eq!(got[3], -1.0);
        }
    }
}

#[test]
fn bits_and_lossless_conversions() {
    for dev in common::devices("bits_and_lossless_conversions") {
        let b: Vec<u32> = vec![
            0,
            0x3f80_0000,
            0x7fc0_0001,
            0x8000_0000,
            1,
            0xff80_0000,
            0x7f7f_ffff,
        ];
        let x: Vec<f64> = vec![1.5, -0.0, f64::NAN, f64::INFINITY, 5e-324, -2.0, 1e300];
        let small: Vec<u8> = vec![0, 1, 100, 101, 200, 255, 42];
        let n = b.len();
        let (db, dx, ds) = (
            dev.upload(&b).unwrap(),
            dev.upload(&x).unwrap(),
            dev.upload(&small).unwrap(),
        );
        let mut f = dev.zeros::<f32>(n).unwrap();
        let mut d = dev.zeros::<u64>(n).unwrap();
        let mut w = dev.zeros::<i64>(n).unwrap();
        bits::launch(&dev, cfg(n), &db, &dx, &ds, &mut f, &mut d, &mut w).unwrap();
        let fb: Vec<u32> = f.download().unwrap().iter().map(|v| v.to_bits()).collect();
        assert_eq!(
            fb,
            b,
            "from_bits keeps every bit, NaN payloads included ({:?})",
            dev.backend()
        );
        let want: Vec<u64> = x.iter().map(|v| v.to_bits() ^ (1 << 63)).collect();
        assert_eq!(d.download().unwrap(), want);
        let want: Vec<i64> = small
            .iter()
            .map(|&s| i64::from(s) - i64::from(s > 100) + i64::from(u32::from(s)))
            .collect();
        assert_eq!(w.download().unwrap(), want);
    }
}

/// NVRTC accepts these kernels' C (the GPU run above needs a GPU; this needs only NVRTC).
#[test]
fn nvrtc_compiles_these_kernels() {
    if !common::nvrtc_here() {
        return;
    }
    for src in [
        logs::CUDA_SOURCE.as_str(),
        ceil_div::CUDA_SOURCE.as_str(),
        clamp_f::CUDA_SOURCE.as_str(),
        bits::CUDA_SOURCE.as_str(),
        polar::CUDA_SOURCE.as_str(),
    ] {
        warpspeed::compile::compile_cubin(
            src,
            (8, 0),
            warpspeed::KernelOptions { fast_math: false },
        )
        .unwrap_or_else(|e| panic!("NVRTC rejects the emitted C: {e}"));
    }
}

#[gpu_kernel]
fn polar(r: &[f64], t: &[f64], x: &mut [f64], y: &mut [f64], s32: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        let (s, c) = t[i].sin_cos();
        x[i] = r[i] * c;
        y[i] = r[i] * s;
        s32[i] = (t[i] as f32).sin_cos().0;
    }
}

#[test]
fn sin_cos_binds_a_tuple() {
    for dev in common::devices("sin_cos_binds_a_tuple") {
        let r: Vec<f64> = (0..64).map(|k| 1.0 + k as f64 * 0.25).collect();
        let t: Vec<f64> = (0..64).map(|k| (k as f64 - 32.0) * 0.37).collect();
        let (dr, dt) = (dev.upload(&r).unwrap(), dev.upload(&t).unwrap());
        let mut x = dev.upload(&[f64::NAN; 64]).unwrap();
        let mut y = dev.upload(&[f64::NAN; 64]).unwrap();
        let mut s32 = dev.upload(&[f32::NAN; 64]).unwrap();
        polar::launch(&dev, cfg(64), &dr, &dt, &mut x, &mut y, &mut s32).unwrap();
        let (x, y, s32) = (
            x.download().unwrap(),
            y.download().unwrap(),
            s32.download().unwrap(),
        );
        for k in 0..64 {
            let (s, c) = t[k].sin_cos();
            // CUDA's sincos is within 2 ulp of the true value (docs/methods.md).
            assert!(
                (x[k] - r[k] * c).abs() <= 1e-14 * r[k],
                "{k}: {} vs {}",
                x[k],
                r[k] * c
            );
            assert!(
                (y[k] - r[k] * s).abs() <= 1e-14 * r[k],
                "{k}: {} vs {}",
                y[k],
                r[k] * s
            );
            let w = (t[k] as f32).sin();
            assert!(
                (s32[k] - w).abs() <= 4.0 * f32::EPSILON,
                "{k}: {} vs {w}",
                s32[k]
            );
        }
    }
}
