//! `warpspeed::algorithms::map!` (issue 22), Numba's `@vectorize`: maps of one, two and
//! three inputs of mixed types, scalars shared by every element, a `#[gpu_struct]` input, on both backends, bit for bit
//! against the same function called on the host; lengths around the block and past the
//! grid's cap (the grid-stride loop), views at odd offsets, NaNs, a stream; lengths that
//! differ refused before anything runs; no bounds check in the emitted C; NVRTC.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::map;
use warpspeed::prelude::*;

#[gpu_device]
fn square(x: f32) -> f32 {
    x * x
}

#[gpu_device]
fn saxpy(a: f32, x: f32, y: f32) -> f32 {
    a * x + y
}

/// Mixed types; parameters named as the kernel's own locals might be.
#[gpu_device]
fn mixed(n: u32, out: i32, i: f64) -> f64 {
    (n as i64 - out as i64) as f64 * i
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pt {
    pub x: f32,
    pub y: f32,
}

#[gpu_device]
fn norm2(p: Pt, k: u32) -> f32 {
    (p.x * p.x + p.y * p.y) * k as f32
}

warpspeed::algorithms::map! {
    /// `x * x`.
    pub struct Square = fn square(x: f32) -> f32;
}
warpspeed::algorithms::map! {
    pub struct Saxpy = fn saxpy(a: f32, x: f32, y: f32) -> f32;
}
warpspeed::algorithms::map! {
    /// `a` one value for every element.
    pub struct SaxpyScalar = fn saxpy(a: f32; x: f32, y: f32) -> f32;
}

#[gpu_device]
fn clamp_scale(lo: f32, hi: f32, k: u32, x: f32) -> f32 {
    x.max(lo).min(hi) * k as f32
}

warpspeed::algorithms::map! {
    struct ClampScale = fn clamp_scale(lo: f32, hi: f32, k: u32; x: f32) -> f32;
}
warpspeed::algorithms::map! {
    struct Mixed = fn mixed(n: u32, out: i32, i: f64) -> f64;
}
warpspeed::algorithms::map! {
    struct Norm2 = fn norm2(p: Pt, k: u32) -> f32
}

/// The bits of each value, every NaN as one: the GPU's arithmetic returns the canonical
/// NaN (0x7fffffff) where the CPU passes an operand's payload on.
fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| if x.is_nan() { 0x7fff_ffff } else { x.to_bits() })
        .collect()
}

#[test]
fn maps_equal_the_host_on_both_backends() {
    let mut rng = Rng::new(22);
    for dev in devices("maps_equal_the_host_on_both_backends") {
        let b = dev.backend();
        for n in [0usize, 1, 255, 256, 257, 3001] {
            let a: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
            let mut x: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
            if n > 2 {
                x[1] = f32::NAN;
                x[2] = f32::INFINITY;
            }
            let (da, dx, dy) = (
                dev.upload(&a).unwrap(),
                dev.upload(&x).unwrap(),
                dev.upload(&y).unwrap(),
            );
            let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
            Square::map(&dev, &dx, &mut out).unwrap();
            let want: Vec<f32> = x.iter().map(|&v| square(v)).collect();
            assert_eq!(
                bits32(&out.download().unwrap()),
                bits32(&want),
                "square {n} {b:?}"
            );

            let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
            Saxpy::map(&dev, &da, &dx, &dy, &mut out).unwrap();
            let want: Vec<f32> = (0..n).map(|i| saxpy(a[i], x[i], y[i])).collect();
            assert_eq!(
                bits32(&out.download().unwrap()),
                bits32(&want),
                "saxpy {n} {b:?}"
            );
            // The unchecked twin: the same.
            let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
            Saxpy::map_unchecked(&dev, &da, &dx, &dy, &mut out).unwrap();
            assert_eq!(
                bits32(&out.download().unwrap()),
                bits32(&want),
                "unchecked {n} {b:?}"
            );

            // A scalar shared by every element.
            let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
            SaxpyScalar::map(&dev, -1.5, &dx, &dy, &mut out).unwrap();
            let want: Vec<f32> = (0..n).map(|i| saxpy(-1.5, x[i], y[i])).collect();
            assert_eq!(
                bits32(&out.download().unwrap()),
                bits32(&want),
                "scalar {n} {b:?}"
            );
            let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
            ClampScale::map(&dev, -10.0, 500.0, 3, &dx, &mut out).unwrap();
            let want: Vec<f32> = (0..n).map(|i| clamp_scale(-10.0, 500.0, 3, x[i])).collect();
            assert_eq!(
                bits32(&out.download().unwrap()),
                bits32(&want),
                "clamp {n} {b:?}"
            );

            let u: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
            let s: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
            let f: Vec<f64> = (0..n).map(|_| rng.range_f32(-2.0, 2.0) as f64).collect();
            let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
            Mixed::map(
                &dev,
                &dev.upload(&u).unwrap(),
                &dev.upload(&s).unwrap(),
                &dev.upload(&f).unwrap(),
                &mut out,
            )
            .unwrap();
            let want: Vec<u64> = (0..n).map(|i| mixed(u[i], s[i], f[i]).to_bits()).collect();
            let got: Vec<u64> = out
                .download()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(got, want, "mixed {n} {b:?}");

            let p: Vec<Pt> = (0..n)
                .map(|i| Pt {
                    x: a[i],
                    y: y[i] / 100.0,
                })
                .collect();
            let k: Vec<u32> = (0..n).map(|i| i as u32 % 5).collect();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            Norm2::map(
                &dev,
                &dev.upload(&p).unwrap(),
                &dev.upload(&k).unwrap(),
                &mut out,
            )
            .unwrap();
            let want: Vec<f32> = (0..n).map(|i| norm2(p[i], k[i])).collect();
            assert_eq!(
                bits32(&out.download().unwrap()),
                bits32(&want),
                "norm2 {n} {b:?}"
            );
        }
    }
}

#[test]
fn views_streams_and_the_grid_stride_loop() {
    // Past MAX_BLOCKS * BLOCK elements, each thread loops.
    let n = (map::MAX_BLOCKS * map::BLOCK) as usize + 1001;
    assert_eq!(map::config(n).grid.x, map::MAX_BLOCKS);
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
    let want: Vec<f32> = x.iter().map(|&v| square(v)).collect();
    for dev in devices("views_streams_and_the_grid_stride_loop") {
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        Square::map(&dev, &dx, &mut out).unwrap();
        assert_eq!(bits32(&out.download().unwrap()), bits32(&want));

        // Views at odd offsets, on a stream; the rest of `out` untouched.
        let stream = dev.create_stream().unwrap();
        let mut out = dev.upload(&[-1.0f32; 40]).unwrap();
        Square::map(&stream, &dx.slice(3..36), &mut out.slice_mut(5..38)).unwrap();
        let got = out.download().unwrap();
        assert_eq!(bits32(&got[5..38]), bits32(&want[3..36]));
        assert!(got[..5].iter().chain(&got[38..]).all(|&v| v == -1.0));
    }
}

#[test]
fn lengths_that_differ_are_refused_before_anything_runs() {
    for dev in devices("lengths_that_differ_are_refused_before_anything_runs") {
        let a = dev.upload(&[1.0f32; 10]).unwrap();
        let x = dev.upload(&[1.0f32; 9]).unwrap();
        let y = dev.upload(&[1.0f32; 10]).unwrap();
        let mut out = dev.upload(&[5.0f32; 10]).unwrap();
        let err = Saxpy::map(&dev, &a, &x, &y, &mut out).unwrap_err();
        match &err {
            Error::LengthMismatch {
                what,
                expected,
                found,
            } => {
                assert!(what.contains("Saxpy") && what.contains("`x`"), "{err}");
                assert_eq!((*expected, *found), (10, 9));
            }
            other => panic!("expected LengthMismatch, got {other}"),
        }
        // An output shorter than the inputs, too.
        let mut short = dev.upload(&[5.0f32; 9]).unwrap();
        let err = Saxpy::map_unchecked(&dev, &a, &x, &y, &mut short).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        assert_eq!(out.download().unwrap(), vec![5.0; 10]);
        assert_eq!(short.download().unwrap(), vec![5.0; 9]);
    }
}

#[test]
fn the_map_kernels_compile_with_nvrtc() {
    let mut all = Vec::new();
    for ks in [
        Square::kernels(),
        Saxpy::kernels(),
        SaxpyScalar::kernels(),
        ClampScale::kernels(),
        Mixed::kernels(),
        Norm2::kernels(),
    ] {
        all.extend(ks.map(|k| (k.rust_name, k)));
    }
    nvrtc_compiles(&all);
}

/// Every index is proven: the checked kernels keep no check.
#[test]
fn the_map_kernels_keep_no_check() {
    for k in [
        Square::kernels()[0],
        Saxpy::kernels()[0],
        SaxpyScalar::kernels()[0],
        ClampScale::kernels()[0],
        Mixed::kernels()[0],
        Norm2::kernels()[0],
    ] {
        let c = k.source.as_str();
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{check}: {body}");
        }
    }
}
