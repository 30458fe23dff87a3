//! Vector types (`f32x4`, CUDA's `float4`, and friends) on the simulator and the GPU:
//! kernels that load, compute on and store them agree with a CPU reference on random
//! inputs (outputs poisoned first, so an element never written shows); `a[i + 1]` one past
//! the end reports `OutOfBounds` on both; a buffer of `f32` is viewed as `f32x4` and back
//! without copying; the simulator reports a race on a vector element; and the generated C
//! loads and stores whole vectors, which NVRTC turns into `ld.global.nc.v4.f32` and
//! `st.global.v4.f32`. `load4`/`store4` (four elements of any type as one access) agree
//! with element accesses at every offset, in global and shared memory, and a slice that is
//! not four long is `OutOfBounds` at the call on both backends.

mod common;

use common::{devices, expect_oob, line_of, Rng};
use warpspeed::prelude::*;
use warpspeed::{Device, DeviceBuffer, Error, LaunchConfig, Vector};

const SOURCE: &str = include_str!("vectors.rs");
const FILE: &str = "tests/vectors.rs";

#[gpu_kernel]
fn add4(a: &[f32x4], b: &[f32x4], out: &mut [f32x4]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = a[i] + b[i];
    }
}

#[gpu_kernel(unchecked)]
fn copy4(src: &[f32x4], dst: &mut [f32x4]) {
    let i = grid_1d();
    if i < dst.len() {
        dst[i] = src[i];
    }
}

/// Lane by lane `v * s + w` with a scalar `s`, through `splat`.
#[gpu_device]
fn scale_add(v: f32x4, s: f32, w: f32x4) -> f32x4 {
    v * f32x4::splat(s) + w
}

/// Every form the language has: fields, constructors, `splat`, `+ - *` (integers wrap),
/// a lane assigned, compound assignment, a vector by value, a device function, a shared
/// array and a local array of vectors, 2-lane and `f64x2` types.
#[gpu_kernel]
fn mix(
    a: &[f32x4],
    ints: &[i32x4],
    pairs: &[u32x2],
    wide: &[f64x2],
    bias: f32x4,
    out: &mut [f32x4],
    out_ints: &mut [i32x4],
    out_pairs: &mut [u32x2],
    out_wide: &mut [f64x2],
    out_xy: &mut [f32x2],
) {
    let t = thread_idx().x as usize;
    let i = grid_1d();
    let tile = SharedArray::<f32x4, 64>::new();
    if i < a.len() {
        tile[t] = a[i];
    }
    sync_threads();
    if i >= out.len() {
        return;
    }
    let v = tile[t];
    let mut w: f32x4 = scale_add(v, 2.0f32, bias);
    w.y = v.x - v.w;
    w.z += 1.5;
    w -= f32x4::new(0.25, 0.0, 0.0, v.y);
    let local = [w, v];
    out[i] = local[0] * local[1];
    let k = ints[i];
    out_ints[i] = k * k + i32x4::new(k.w, k.z, k.y, k.x) - i32x4::splat(i32::MAX);
    let p = pairs[i];
    let mut q = p + u32x2::new(p.y, 3);
    q *= u32x2::splat(0x9e37_79b9);
    out_pairs[i] = q;
    out_pairs[i] += u32x2::new(1, p.x);
    let d = wide[i];
    out_wide[i] = d * d - f64x2::new(d.y, 1.0e-3);
    out_xy[i] = f32x2::new(v.x + v.y, v.z * v.w);
}

/// `a[i + 1]` is one past the end at the last thread.
#[gpu_kernel]
fn next4(a: &[f32x4], out: &mut [f32x4]) {
    let i = grid_1d();
    if i < a.len() {
        out[i] = a[i + 1]; // @NEXT
    }
}

/// Every thread writes element 0.
#[gpu_kernel]
fn all_write_one(out: &mut [f32x4]) {
    let t = thread_idx().x as f32;
    out[0] = f32x4::splat(t); // @RACE
}

fn poison4() -> f32x4 {
    f32x4::splat(f32::from_bits(0x7fc0_dead))
}

fn random4(rng: &mut Rng, n: usize) -> Vec<f32x4> {
    (0..n)
        .map(|_| {
            let mut r = || rng.range_f32(-100.0, 100.0);
            f32x4::new(r(), r(), r(), r())
        })
        .collect()
}

fn same_bits(a: f32x4, b: f32x4) -> bool {
    f32x4::as_lanes(&[a])
        .iter()
        .zip(f32x4::as_lanes(&[b]))
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

#[test]
fn add_and_copy_agree_with_the_cpu() {
    let mut rng = Rng::new(4);
    for dev in devices("vectors_add_copy") {
        for n in [1usize, 63, 64, 1000] {
            let (ha, hb) = (random4(&mut rng, n), random4(&mut rng, n));
            let (a, b) = (dev.upload(&ha).unwrap(), dev.upload(&hb).unwrap());
            let mut out = dev.upload(&vec![poison4(); n]).unwrap();
            let cfg = LaunchConfig::for_num_elems(n as u32);
            add4::launch(&dev, cfg, &a, &b, &mut out).unwrap();
            let got = out.download().unwrap();
            for (k, g) in got.iter().enumerate() {
                let want = ha[k] + hb[k];
                assert!(same_bits(*g, want), "n {n} [{k}] on {:?}", dev.backend());
            }
            let mut copy = dev.upload(&vec![poison4(); n]).unwrap();
            copy4::launch(&dev, cfg, &a, &mut copy).unwrap();
            let got = copy.download().unwrap();
            assert!(got.iter().zip(&ha).all(|(g, w)| same_bits(*g, *w)));
        }
    }
}

#[test]
fn every_form_agrees_with_the_cpu() {
    let mut rng = Rng::new(9);
    for dev in devices("vectors_mix") {
        let n = 200usize;
        let ha = random4(&mut rng, n);
        let hi: Vec<i32x4> = (0..n)
            .map(|_| {
                let mut r = || rng.next_u32() as i32;
                i32x4::new(r(), r(), r(), r())
            })
            .collect();
        let hp: Vec<u32x2> = (0..n)
            .map(|_| u32x2::new(rng.next_u32(), rng.next_u32()))
            .collect();
        let hw: Vec<f64x2> = (0..n)
            .map(|_| f64x2::new(rng.range_f64(-1e3, 1e3), rng.range_f64(-1e3, 1e3)))
            .collect();
        let bias = f32x4::new(0.5, -1.0, 2.0, 1e3);
        let a = dev.upload(&ha).unwrap();
        let ints = dev.upload(&hi).unwrap();
        let pairs = dev.upload(&hp).unwrap();
        let wide = dev.upload(&hw).unwrap();
        let mut out = dev.upload(&vec![poison4(); n]).unwrap();
        let mut out_ints = dev.upload(&vec![i32x4::splat(-7); n]).unwrap();
        let mut out_pairs = dev.upload(&vec![u32x2::splat(7); n]).unwrap();
        let mut out_wide = dev.upload(&vec![f64x2::splat(f64::NAN); n]).unwrap();
        let mut out_xy = dev.upload(&vec![f32x2::splat(f32::NAN); n]).unwrap();
        mix::launch(
            &dev,
            LaunchConfig::new(n.div_ceil(64) as u32, 64),
            &a,
            &ints,
            &pairs,
            &wide,
            bias,
            &mut out,
            &mut out_ints,
            &mut out_pairs,
            &mut out_wide,
            &mut out_xy,
        )
        .unwrap();
        let (got, got_i, got_p, got_w, got_xy) = (
            out.download().unwrap(),
            out_ints.download().unwrap(),
            out_pairs.download().unwrap(),
            out_wide.download().unwrap(),
            out_xy.download().unwrap(),
        );
        for k in 0..n {
            let v = ha[k];
            let mut w = v * f32x4::splat(2.0) + bias;
            w.y = v.x - v.w;
            w.z += 1.5;
            w -= f32x4::new(0.25, 0.0, 0.0, v.y);
            assert!(same_bits(got[k], w * v), "[{k}] on {:?}", dev.backend());
            let i = hi[k];
            let want_i = i * i + i32x4::new(i.w, i.z, i.y, i.x) - i32x4::splat(i32::MAX);
            assert_eq!(got_i[k], want_i, "[{k}] on {:?}", dev.backend());
            let p = hp[k];
            let q = (p + u32x2::new(p.y, 3)) * u32x2::splat(0x9e37_79b9) + u32x2::new(1, p.x);
            assert_eq!(got_p[k], q, "[{k}] on {:?}", dev.backend());
            let d = hw[k];
            let want_w = d * d - f64x2::new(d.y, 1.0e-3);
            assert_eq!(
                (got_w[k].x.to_bits(), got_w[k].y.to_bits()),
                (want_w.x.to_bits(), want_w.y.to_bits())
            );
            assert_eq!(got_xy[k], f32x2::new(v.x + v.y, v.z * v.w));
        }
    }
}

#[test]
fn one_past_the_end_is_out_of_bounds() {
    for dev in devices("vectors_near_miss") {
        let n = 32usize;
        let a = dev.upload(&vec![f32x4::splat(1.0); n]).unwrap();
        let mut out = dev.zeros::<f32x4>(n).unwrap();
        let err = next4::launch(&dev, LaunchConfig::new(1, n as u32), &a, &mut out)
            .and_then(|()| dev.synchronize())
            .unwrap_err();
        match &err {
            Error::OutOfBounds {
                kernel,
                file,
                line,
                index,
                len,
                ..
            } => assert_eq!(
                (kernel.as_str(), file.as_str(), *line, *index, *len),
                ("next4", FILE, line_of(SOURCE, "NEXT"), n as u64, n as u64),
                "{err}"
            ),
            other => panic!("expected OutOfBounds on {:?}, got {other}", dev.backend()),
        }
        // The device stays usable.
        let mut copy = dev.zeros::<f32x4>(n).unwrap();
        copy4::launch(&dev, LaunchConfig::new(1, n as u32), &a, &mut copy).unwrap();
        assert_eq!(copy.download().unwrap(), vec![f32x4::splat(1.0); n]);
    }
}

#[test]
fn scalar_buffers_are_viewed_as_vectors_without_copying() {
    for dev in devices("vectors_views") {
        let n = 4 * 300;
        let host: Vec<f32> = (0..n).map(|k| k as f32 * 0.5).collect();
        let a = dev.upload(&host).unwrap().into_vectors::<f32x4>().unwrap();
        assert_eq!(a.len(), 300);
        assert_eq!(a.download().unwrap(), f32x4::from_lanes(&host).unwrap());
        let mut out = dev
            .zeros::<f32>(n)
            .unwrap()
            .into_vectors::<f32x4>()
            .unwrap();
        add4::launch(&dev, LaunchConfig::for_num_elems(300), &a, &a, &mut out).unwrap();
        let out = DeviceBuffer::from_vectors(out);
        assert_eq!(out.len(), n);
        let want: Vec<f32> = host.iter().map(|x| x + x).collect();
        assert_eq!(out.download().unwrap(), want);
        // Two lanes, and a length that is not a whole number of vectors.
        let pairs = dev.upload(&[1u32, 2, 3, 4]).unwrap();
        let pairs = pairs.into_vectors::<u32x2>().unwrap();
        assert_eq!(
            pairs.download().unwrap(),
            vec![u32x2::new(1, 2), u32x2::new(3, 4)]
        );
        let odd = dev.upload(&[1.0f32; 6]).unwrap();
        let err = odd.into_vectors::<f32x4>().unwrap_err();
        assert!(matches!(
            err,
            Error::NotWholeVectors {
                len: 6,
                lanes: 4,
                ..
            }
        ));
        assert_eq!(
            err.to_string(),
            "into_vectors: 6 `f32`s are not a whole number of `f32x4`s (4 lanes each); pad the data to a multiple of 4"
        );
    }
}

#[test]
fn a_race_on_a_vector_element_is_reported() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<f32x4>(1).unwrap();
    let err = all_write_one::launch(&dev, LaunchConfig::new(1, 2), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    let at = format!("{FILE}:{}", line_of(SOURCE, "RACE"));
    assert!(text.contains(&at), "{text}");
}

/// The kernel's own C, after the prelude.
fn kernel_c(source: &str) -> &str {
    source
        .split_once("// ---- end of the prelude: the kernel follows\n")
        .map_or(source, |(_, k)| k)
}

#[test]
fn a_copy_is_one_vector_load_and_store() {
    for source in [&*copy4::CUDA_SOURCE, &*add4::CUDA_SOURCE] {
        let c = kernel_c(source);
        assert!(c.contains("const ws_f32x4* __restrict__"), "{c}");
    }
    // Checked: through the prelude's `ws_ld` (a value) and `ws_at` (a place); `add4`'s
    // store is proven in bounds, `next4`'s is not.
    let c = kernel_c(&add4::CUDA_SOURCE);
    assert!(
        c.contains("ws_ld(a, i, a_len") && c.contains("out[i] = "),
        "{c}"
    );
    let c = kernel_c(&next4::CUDA_SOURCE);
    assert!(
        c.contains("ws_ld(a, ") && c.contains("ws_at(out, i, out_len"),
        "{c}"
    );
    if !common::nvrtc_here() {
        return;
    }
    // A plain copy moves bits (NVVM types its registers `.u32`); arithmetic loads floats.
    for (name, k, lane) in [
        ("copy4", &copy4::KERNEL, ""),
        ("add4", &add4::KERNEL, "f32"),
        ("next4", &next4::KERNEL, "f32"),
    ] {
        let ptx = warpspeed::compile::compile_ptx(k.source.as_str(), (9, 0), k.options).unwrap();
        for want in ["ld.global.nc.v4.", "st.global.v4."] {
            let want = format!("{want}{lane}");
            assert!(ptx.contains(&want), "{name}: no {want} in\n{ptx}");
        }
        for scalar in ["ld.global.nc.f32", "ld.global.nc.u32", "st.global.f32"] {
            assert!(!ptx.contains(scalar), "{name}: a scalar access\n{ptx}");
        }
    }
    let ptx =
        warpspeed::compile::compile_ptx(mix::CUDA_SOURCE.as_str(), (9, 0), mix::KERNEL.options)
            .unwrap();
    for want in [
        "ld.global.nc.v4.u32",
        "ld.global.nc.v2.u32",
        "ld.global.nc.v2.f64",
        "st.global.v2.f32",
        "st.global.v2.f64",
        "st.shared.v4.f32",
    ] {
        assert!(ptx.contains(want), "mix: no {want}");
    }
}

/// `load4`/`store4` at index `4 * t + off` of each thread `t`: aligned for `off == 0`,
/// misaligned otherwise (the C's four element accesses), in global memory and, staged, in
/// shared memory; `u16` (8-byte wide accesses) and `f32` (16-byte).
#[gpu_kernel]
fn quad_f32(x: &[f32], out: &mut [f32], off: usize) {
    let t = thread_idx().x as usize;
    let tile = SharedArray::<f32, 520>::new();
    let i = 4 * t + off;
    if i + 4 <= x.len() && i + 4 <= 520 {
        let (a, b, c, d) = load4(&x[i..i + 4]);
        store4(&mut tile[i..i + 4], d, c, b, a);
    }
    sync_threads();
    if i + 4 <= out.len() && i + 4 <= 520 {
        let (a, b, c, d) = load4(&tile[i..i + 4]);
        store4(&mut out[i..i + 4], a * 2.0, b, c, d + 1.0);
    }
}

#[gpu_kernel]
fn quad_u16(x: &[u16], out: &mut [u16], off: usize) {
    let i = 4 * grid_1d() + off;
    if i + 4 <= x.len() && i + 4 <= out.len() {
        let q = load4(&x[i..i + 4]);
        store4(&mut out[i..i + 4], q.3, q.2, q.1, q.0 ^ 0xffff);
    }
}

#[gpu_kernel]
fn quad_short(x: &[f32], out: &mut [f32]) {
    let (a, b, c, d) = load4(&x[0..3]); // @SHORT
    out[0] = a + b + c + d;
}

#[gpu_kernel]
fn quad_long(out: &mut [u16]) {
    store4(&mut out[0..5], 1, 2, 3, 4); // @LONG
}

#[test]
fn load4_and_store4_agree_with_element_accesses_at_every_offset() {
    let mut rng = Rng::new(44);
    for dev in devices("load4_and_store4_agree_with_element_accesses_at_every_offset") {
        for off in 0..4usize {
            let n = 517;
            let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-9.0, 9.0)).collect();
            let dx = dev.upload(&x).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            quad_f32::launch(&dev, LaunchConfig::new(1, 130), &dx, &mut out, off).unwrap();
            let got = out.download().unwrap();
            for (i, g) in got.iter().enumerate() {
                let want = if i < off || i >= off + (n - off) / 4 * 4 {
                    f32::NAN
                } else {
                    let base = i - (i - off) % 4;
                    let r = [x[base + 3], x[base + 2], x[base + 1], x[base]];
                    let v = r[(i - off) % 4];
                    match (i - off) % 4 {
                        0 => v * 2.0,
                        3 => v + 1.0,
                        _ => v,
                    }
                };
                assert_eq!(
                    g.to_bits(),
                    want.to_bits(),
                    "f32 {off} {i} {:?}",
                    dev.backend()
                );
            }

            let h: Vec<u16> = (0..n).map(|_| rng.next_u32() as u16).collect();
            let dh = dev.upload(&h).unwrap();
            let mut out = dev.upload(&vec![7u16; n]).unwrap();
            quad_u16::launch(&dev, LaunchConfig::new(3, 64), &dh, &mut out, off).unwrap();
            let got = out.download().unwrap();
            for (i, &g) in got.iter().enumerate() {
                let want = if i < off || i >= off + (n - off) / 4 * 4 {
                    7
                } else {
                    let base = i - (i - off) % 4;
                    [h[base + 3], h[base + 2], h[base + 1], h[base] ^ 0xffff][(i - off) % 4]
                };
                assert_eq!(g, want, "u16 {off} {i} {:?}", dev.backend());
            }
        }
    }
}

#[test]
fn a_slice_not_four_long_is_out_of_bounds_at_the_call() {
    for dev in devices("a_slice_not_four_long_is_out_of_bounds_at_the_call") {
        let x = dev.upload(&[1.0f32; 8]).unwrap();
        let mut out = dev.upload(&[0.0f32; 8]).unwrap();
        let r = quad_short::launch(&dev, LaunchConfig::new(1, 1), &x, &mut out);
        let at = format!("{FILE}:{}", line_of(SOURCE, "SHORT"));
        expect_oob(&dev, r, "quad_short", &at, 3, 3);
        let mut out = dev.upload(&[0u16; 8]).unwrap();
        let r = quad_long::launch(&dev, LaunchConfig::new(1, 1), &mut out);
        let at = format!("{FILE}:{}", line_of(SOURCE, "LONG"));
        expect_oob(&dev, r, "quad_long", &at, 5, 4);
        assert_eq!(out.download().unwrap(), vec![0u16; 8], "nothing written");
    }
}
