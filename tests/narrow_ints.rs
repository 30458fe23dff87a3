//! Every `i8` and `i16` value through the operations that negate (`-x`, `abs`,
//! `wrapping_neg`, `saturating_neg`, `/ -1`, ...), each result widened afterwards, as
//! Rust's release builds compute them. The large property set found `(-x) as i64` of
//! `i16::MIN` giving 32768 on an H100: ptxas drops the sign extension after a 16-bit
//! `neg`, so the prelude negates 16-bit values in 32 bits (runtime/src/prelude.cuh).

use warpspeed::prelude::*;

mod common;
use common::devices;

/// One kernel per narrow type, from one body: each result widened after the negation.
macro_rules! negations {
    ($name:ident, $t:ty) => {
        #[gpu_kernel]
        fn $name(x: &[$t], d: &[$t], out: &mut [i64], out_u: &mut [u32]) {
            let i = grid_1d();
            if i < x.len() && i < d.len() && 8 * i + 7 < out.len() && 2 * i + 1 < out_u.len() {
                let v = x[i];
                out[8 * i] = (-v) as i64;
                out[8 * i + 1] = v.abs() as i64;
                out[8 * i + 2] = v.wrapping_neg() as i64;
                out[8 * i + 3] = v.saturating_neg() as i64;
                out[8 * i + 4] = (v / d[i]) as i64;
                out[8 * i + 5] = v.wrapping_abs() as i64;
                out[8 * i + 6] = v.saturating_abs() as i64;
                out[8 * i + 7] = (v.rem_euclid(d[i]) + v.signum()) as i64;
                out_u[2 * i] = v.abs() as u32;
                out_u[2 * i + 1] = ((-v) as u32).count_ones();
            }
        }
    };
}
negations!(negations16, i16);
negations!(negations8, i8);

/// What Rust's release build computes for one value (`d` is never 0).
macro_rules! reference {
    ($v:expr, $d:expr) => {{
        let (v, d) = ($v, $d);
        (
            [
                v.wrapping_neg() as i64,
                v.wrapping_abs() as i64,
                v.wrapping_neg() as i64,
                v.saturating_neg() as i64,
                v.wrapping_div(d) as i64,
                v.wrapping_abs() as i64,
                v.saturating_abs() as i64,
                v.wrapping_rem_euclid(d).wrapping_add(v.signum()) as i64,
            ],
            [
                v.wrapping_abs() as u32,
                (v.wrapping_neg() as u32).count_ones(),
            ],
        )
    }};
}

#[test]
fn every_narrow_value_negates_as_rust_does() {
    let x16: Vec<i16> = (i16::MIN..=i16::MAX).collect();
    // Divisors: -1 (the wrapping case) for a third of the values, others elsewhere.
    let d16: Vec<i16> = (0..x16.len()).map(|i| [-1i16, 7, -3][i % 3]).collect();
    let x8: Vec<i8> = (0..1024).map(|i| (i % 256) as u8 as i8).collect();
    let d8: Vec<i8> = (0..x8.len()).map(|i| [-1i8, 5, -2, 1][i % 4]).collect();
    for dev in devices("every_narrow_value_negates_as_rust_does") {
        let cfg = LaunchConfig::for_num_elems(x16.len() as u32);
        let (dx, dd) = (dev.upload(&x16).unwrap(), dev.upload(&d16).unwrap());
        let mut out = dev
            .upload(&vec![0x5555_5555_5555i64; 8 * x16.len()])
            .unwrap();
        let mut out_u = dev.upload(&vec![0xdead_beefu32; 2 * x16.len()]).unwrap();
        negations16::launch(&dev, cfg, &dx, &dd, &mut out, &mut out_u).unwrap();
        let (out, out_u) = (out.download().unwrap(), out_u.download().unwrap());
        for (i, (&v, &d)) in x16.iter().zip(&d16).enumerate() {
            let (w, wu) = reference!(v, d);
            assert_eq!(
                &out[8 * i..8 * i + 8],
                &w,
                "{:?}: i16 {v} / {d}",
                dev.backend()
            );
            assert_eq!(
                &out_u[2 * i..2 * i + 2],
                &wu,
                "{:?}: i16 {v}",
                dev.backend()
            );
        }

        let cfg = LaunchConfig::for_num_elems(x8.len() as u32);
        let (dx, dd) = (dev.upload(&x8).unwrap(), dev.upload(&d8).unwrap());
        let mut out = dev
            .upload(&vec![0x5555_5555_5555i64; 8 * x8.len()])
            .unwrap();
        let mut out_u = dev.upload(&vec![0xdead_beefu32; 2 * x8.len()]).unwrap();
        negations8::launch(&dev, cfg, &dx, &dd, &mut out, &mut out_u).unwrap();
        let (out, out_u) = (out.download().unwrap(), out_u.download().unwrap());
        for (i, (&v, &d)) in x8.iter().zip(&d8).enumerate() {
            let (w, wu) = reference!(v, d);
            assert_eq!(
                &out[8 * i..8 * i + 8],
                &w,
                "{:?}: i8 {v} / {d}",
                dev.backend()
            );
            assert_eq!(&out_u[2 * i..2 * i + 2], &wu, "{:?}: i8 {v}", dev.backend());
        }
    }
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&[
        ("negations16", &negations16::KERNEL),
        ("negations8", &negations8::KERNEL),
    ]);
}
