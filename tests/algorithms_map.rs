//! `warpspeed::algorithms::map!` (issue 22), Numba's `@vectorize`: maps of one, two and
//! three inputs of mixed types, scalars shared by every element, a `#[gpu_struct]` input, on both backends, bit for bit
//! against the same function called on the host; lengths around the block and past the
//! grid's cap (the grid-stride loop), views at odd offsets, NaNs, a stream; lengths that
//! differ refused before anything runs; no bounds check in the emitted C; NVRTC. The two
//! paths (vector loads where every view is aligned, the grid-stride loop otherwise): which
//! one runs for views at offsets 0 to 4, and equal results, for 1-, 2-, 4-, 8-byte
//! elements and a `#[gpu_struct]`, lengths 0, 1, 3, 4, 5, 1023, 4097; the wide accesses in
//! the PTX.

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

#[gpu_device]
fn mix_u8(x: u8, y: u8) -> u8 {
    (x ^ 0x5a).wrapping_add(y)
}

#[gpu_device]
fn mix_u16(x: u16) -> u16 {
    x.rotate_left(3) ^ 0x1234
}

#[gpu_device]
fn lerp64(t: f64, x: f64, y: f64) -> f64 {
    x + t * (y - x)
}

#[gpu_device]
fn turn(p: Pt) -> Pt {
    Pt {
        x: -p.y,
        y: p.x * 2.0,
    }
}

warpspeed::algorithms::map! {
    /// 1-byte elements: four are one 4-byte access.
    struct MixU8 = fn mix_u8(x: u8, y: u8) -> u8;
}
warpspeed::algorithms::map! {
    /// 2-byte elements: four are one 8-byte access.
    struct MixU16 = fn mix_u16(x: u16) -> u16;
}
warpspeed::algorithms::map! {
    /// 8-byte elements: four are two 16-byte accesses.
    struct Lerp64 = fn lerp64(t: f64; x: f64, y: f64) -> f64;
}
warpspeed::algorithms::map! {
    /// An 8-byte `#[gpu_struct]`, in and out.
    struct Turn = fn turn(p: Pt) -> Pt;
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
        assert_eq!(Square::path(&dx, &out), map::Path::Vector);
        Square::map(&dev, &dx, &mut out).unwrap();
        assert_eq!(bits32(&out.download().unwrap()), bits32(&want));
        // Misaligned by an element: the grid-stride loop, each thread several elements.
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let (vx, mut vo) = (dx.slice(1..), out.slice_mut(1..));
        assert_eq!(Square::path(&vx, &vo), map::Path::GridStride);
        Square::map(&dev, &vx, &mut vo).unwrap();
        let got = out.download().unwrap();
        assert_eq!(bits32(&got[1..]), bits32(&want[1..]));
        assert!(got[0].is_nan());

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
        MixU8::kernels(),
        MixU16::kernels(),
        Lerp64::kernels(),
        Turn::kernels(),
    ] {
        all.extend(ks.map(|k| (k.rust_name, k)));
    }
    nvrtc_compiles(&all);
}

/// Every index is proven: the checked kernels (grid-stride and vector) keep no check, not
/// even of the vector path's four-element sub-slices.
#[test]
fn the_map_kernels_keep_no_check() {
    for ks in [
        Square::kernels(),
        Saxpy::kernels(),
        SaxpyScalar::kernels(),
        ClampScale::kernels(),
        Mixed::kernels(),
        Norm2::kernels(),
        MixU8::kernels(),
        MixU16::kernels(),
        Lerp64::kernels(),
        Turn::kernels(),
    ] {
        for k in [ks[0], ks[2]] {
            let c = k.source.as_str();
            let body = c.split("// ---- end of the prelude").nth(1).unwrap();
            for check in ["ws_ld(", "ws_at(", "ws_at_shared(", "ws_range_ok("] {
                assert!(!body.contains(check), "{check}: {body}");
            }
        }
        // The vector kernels move four elements with `ws_load4`/`ws_store4`.
        for k in &ks[2..] {
            let body = k
                .source
                .as_str()
                .split("// ---- end of the prelude")
                .nth(1)
                .unwrap();
            assert!(
                body.contains("ws_load4(") && body.contains("ws_store4("),
                "{body}"
            );
        }
    }
}

/// The vector kernels' PTX (sm_90): one 16-byte load per `f32` input and one 16-byte store
/// (`.nc`, the read-only path, for the inputs of the unchecked kernels), 4 bytes for `u8`,
/// 8 for `u16`, two 16-byte accesses for `f64` and an 8-byte struct; the grid-stride
/// kernel's are scalar. (Beside them the PTX has the element accesses of the misaligned
/// fallback and of the tail.)
#[test]
fn the_vector_kernels_make_wide_accesses() {
    if !common::nvrtc_here() {
        return;
    }
    // The bytes one `ld.global..`/`st.global..` moves: `ld.global.nc.v4.u32` 16.
    let bytes = |op: &str| {
        let lanes = if op.contains(".v4.") {
            4
        } else if op.contains(".v2.") {
            2
        } else {
            1
        };
        let t = op.rsplit('.').next().unwrap_or_default();
        lanes * t[1..].parse::<usize>().unwrap_or(0) / 8
    };
    let ptx = |k: &warpspeed::__private::KernelDef| {
        let p = warpspeed::compile::compile_ptx(k.source.as_str(), (9, 0), k.options).unwrap();
        p.lines()
            .filter(|l| l.contains("ld.global") || l.contains("st.global"))
            .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
            .collect::<Vec<String>>()
    };
    // (what, kernel, bytes of the wide access, wide loads, wide stores)
    for (name, k, wide, loads, stores) in [
        ("saxpy", Saxpy::kernels()[3], 16, 3, 1),
        ("saxpy checked", Saxpy::kernels()[2], 16, 3, 1),
        ("u8", MixU8::kernels()[3], 4, 2, 1),
        ("u16", MixU16::kernels()[3], 8, 1, 1),
        ("f64", Lerp64::kernels()[3], 16, 4, 2),
        ("struct", Turn::kernels()[3], 16, 2, 2),
    ] {
        let ops = ptx(k);
        println!("{name}: {ops:?}");
        let count = |kind: &str| {
            ops.iter()
                .filter(|o| o.starts_with(kind) && bytes(o) == wide)
                .count()
        };
        assert_eq!(count("ld.global."), loads, "{name}: {ops:?}");
        // The unchecked kernels' read-only inputs take the read-only path; the checked
        // ones' too where NVRTC keeps it (it does not for the vector kernel: see
        // docs/algorithms.md).
        if !name.contains("checked") {
            assert_eq!(count("ld.global.nc."), loads, "{name}: {ops:?}");
        }
        assert_eq!(count("st.global."), stores, "{name}: {ops:?}");
    }
    let ops = ptx(Saxpy::kernels()[1]);
    assert!(ops.iter().all(|o| bytes(o) == 4), "grid-stride: {ops:?}");
}

/// Both paths, every offset: views of inputs and output at element offsets 0..=4 (so
/// aligned and misaligned by 1, 2, 3 elements), the path `map` takes as `path` says, and
/// the same result as the host's, the rest of the output untouched.
#[test]
fn both_paths_agree_at_every_offset_and_length() {
    let mut rng = Rng::new(2222);
    // (input offset, output offset)
    let offsets = [
        (0usize, 0usize),
        (1, 0),
        (0, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (1, 3),
    ];
    for dev in devices("both_paths_agree_at_every_offset_and_length") {
        let b = dev.backend();
        for n in [0usize, 1, 3, 4, 5, 1023, 4097] {
            for &(oi, oo) in &offsets {
                let m = n + 8;
                // f32, three inputs (Saxpy); the vector path needs 16-byte alignment.
                let a: Vec<f32> = (0..m).map(|_| rng.range_f32(-4.0, 4.0)).collect();
                let x: Vec<f32> = (0..m).map(|_| rng.range_f32(-1e3, 1e3)).collect();
                let mut y: Vec<f32> = (0..m).map(|_| rng.range_f32(-1e3, 1e3)).collect();
                if m > 3 {
                    y[oi + 1] = f32::NAN;
                }
                let (da, dx, dy) = (
                    dev.upload(&a).unwrap(),
                    dev.upload(&x).unwrap(),
                    dev.upload(&y).unwrap(),
                );
                let out = dev.upload(&vec![-7.0f32; m]).unwrap();
                let (va, vx, vy) = (
                    da.slice(oi..oi + n),
                    dx.slice(oi..oi + n),
                    dy.slice(oi..oi + n),
                );
                let want_path = if oi % 4 == 0 && oo % 4 == 0 {
                    map::Path::Vector
                } else {
                    map::Path::GridStride
                };
                assert_eq!(
                    Saxpy::path(&va, &vx, &vy, &out.slice(oo..oo + n)),
                    want_path,
                    "{n} {oi} {oo}"
                );
                let want: Vec<f32> = (oi..oi + n).map(|i| saxpy(a[i], x[i], y[i])).collect();
                for unchecked in [false, true] {
                    let mut out = dev.upload(&vec![-7.0f32; m]).unwrap();
                    let mut vo = out.slice_mut(oo..oo + n);
                    if unchecked {
                        Saxpy::map_unchecked(&dev, &va, &vx, &vy, &mut vo).unwrap();
                    } else {
                        Saxpy::map(&dev, &va, &vx, &vy, &mut vo).unwrap();
                    }
                    let got = out.download().unwrap();
                    assert_eq!(
                        bits32(&got[oo..oo + n]),
                        bits32(&want),
                        "saxpy {n} {oi} {oo} {unchecked} {b:?}"
                    );
                    assert!(
                        got[..oo].iter().chain(&got[oo + n..]).all(|&v| v == -7.0),
                        "saxpy {n} {oi} {oo}: outside the view"
                    );
                }

                // u8: 4-byte alignment, so offsets 0 and 4 are aligned.
                let p: Vec<u8> = (0..m).map(|_| rng.next_u32() as u8).collect();
                let q: Vec<u8> = (0..m).map(|_| rng.next_u32() as u8).collect();
                let (dp, dq) = (dev.upload(&p).unwrap(), dev.upload(&q).unwrap());
                let mut out = dev.upload(&vec![0xeeu8; m]).unwrap();
                let (vp, vq) = (dp.slice(oi..oi + n), dq.slice(oi..oi + n));
                assert_eq!(MixU8::path(&vp, &vq, &out.slice(oo..oo + n)), want_path);
                MixU8::map(&dev, &vp, &vq, &mut out.slice_mut(oo..oo + n)).unwrap();
                let want: Vec<u8> = (oi..oi + n).map(|i| mix_u8(p[i], q[i])).collect();
                let got = out.download().unwrap();
                assert_eq!(&got[oo..oo + n], &want[..], "u8 {n} {oi} {oo} {b:?}");
                assert!(got[..oo].iter().chain(&got[oo + n..]).all(|&v| v == 0xee));

                // u16: 8-byte alignment.
                let p: Vec<u16> = (0..m).map(|_| rng.next_u32() as u16).collect();
                let dp = dev.upload(&p).unwrap();
                let mut out = dev.upload(&vec![0xeeeeu16; m]).unwrap();
                let vp = dp.slice(oi..oi + n);
                assert_eq!(MixU16::path(&vp, &out.slice(oo..oo + n)), want_path);
                MixU16::map(&dev, &vp, &mut out.slice_mut(oo..oo + n)).unwrap();
                let want: Vec<u16> = (oi..oi + n).map(|i| mix_u16(p[i])).collect();
                let got = out.download().unwrap();
                assert_eq!(&got[oo..oo + n], &want[..], "u16 {n} {oi} {oo} {b:?}");
                assert!(got[..oo].iter().chain(&got[oo + n..]).all(|&v| v == 0xeeee));

                // f64, a shared scalar: 16-byte alignment is every second element, and
                // the vector path's four elements are two 16-byte accesses.
                let f: Vec<f64> = (0..m).map(|_| rng.range_f32(-9.0, 9.0) as f64).collect();
                let g: Vec<f64> = (0..m).map(|_| rng.range_f32(-9.0, 9.0) as f64).collect();
                let (df, dg) = (dev.upload(&f).unwrap(), dev.upload(&g).unwrap());
                let mut out = dev.upload(&vec![f64::NAN; m]).unwrap();
                let (vf, vg) = (df.slice(oi..oi + n), dg.slice(oi..oi + n));
                let p64 = if oi % 2 == 0 && oo % 2 == 0 {
                    map::Path::Vector
                } else {
                    map::Path::GridStride
                };
                assert_eq!(Lerp64::path(&vf, &vg, &out.slice(oo..oo + n)), p64);
                Lerp64::map(&dev, 0.25, &vf, &vg, &mut out.slice_mut(oo..oo + n)).unwrap();
                let want: Vec<u64> = (oi..oi + n)
                    .map(|i| lerp64(0.25, f[i], g[i]).to_bits())
                    .collect();
                let got: Vec<u64> = out
                    .download()
                    .unwrap()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect();
                assert_eq!(&got[oo..oo + n], &want[..], "f64 {n} {oi} {oo} {b:?}");
                assert!(got[..oo]
                    .iter()
                    .chain(&got[oo + n..])
                    .all(|&v| v == f64::NAN.to_bits()));

                // An 8-byte `#[gpu_struct]`: as f64.
                let pts: Vec<Pt> = (0..m).map(|i| Pt { x: x[i], y: a[i] }).collect();
                let dpt = dev.upload(&pts).unwrap();
                let poison = Pt { x: -1.0, y: -2.0 };
                let mut out = dev.upload(&vec![poison; m]).unwrap();
                let vpt = dpt.slice(oi..oi + n);
                assert_eq!(Turn::path(&vpt, &out.slice(oo..oo + n)), p64);
                Turn::map(&dev, &vpt, &mut out.slice_mut(oo..oo + n)).unwrap();
                let want: Vec<Pt> = (oi..oi + n).map(|i| turn(pts[i])).collect();
                let got = out.download().unwrap();
                assert_eq!(&got[oo..oo + n], &want[..], "struct {n} {oi} {oo} {b:?}");
                assert!(got[..oo].iter().chain(&got[oo + n..]).all(|&v| v == poison));
            }
        }
    }
}
