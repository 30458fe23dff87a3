//! `#[gpu_struct]` (docs/language.md, "Structs"): a struct of scalars, an array and a
//! nested struct passed by value; `DeviceBuffer`s of structs read and written by a kernel
//! (whole elements and single fields); struct literals, locals and field writes; device
//! functions taking and returning structs; the C layout (padding included) equal to
//! Rust's. Each on the simulator and on the GPU where there is one, against the same Rust
//! on the host, with outputs poisoned first; NVRTC compiles every kernel here.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, nvrtc_compiles, Rng};

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub dt: f32,
    pub n: u32,
    pub w: [f32; 3],
    pub origin: Vec3,
    pub flag: bool,
}

#[gpu_device]
fn scaled(v: Vec3, k: f32) -> Vec3 {
    Vec3 {
        x: v.x * k,
        y: v.y * k,
        z: v.z * k,
    }
}

#[gpu_device]
fn dot(a: Vec3, b: Vec3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

#[gpu_kernel]
fn apply(p: Params, xs: &[f32], out: &mut [f32], outv: &mut [Vec3]) {
    let i = grid_1d();
    if i < xs.len() {
        let mut q = p;
        q.dt = p.dt * 2.0;
        q.w[1] = q.w[1] + xs[i];
        let k = (i as u32 % p.n) as usize;
        let v: Vec3 = scaled(q.origin, xs[i]);
        let s = if p.flag { q.w[k] } else { -q.w[k] };
        out[i] = s * q.dt + dot(v, p.origin);
        outv[i] = Vec3 {
            z: v.z,
            x: v.x + 1.0,
            y: q.w[2],
        };
        outv[i].y += 0.5;
    }
}

fn host_apply(p: Params, x: f32, i: usize) -> (f32, Vec3) {
    let mut q = p;
    q.dt = p.dt * 2.0;
    q.w[1] += x;
    let k = (i as u32 % p.n) as usize;
    let o = q.origin;
    let v = Vec3 {
        x: o.x * x,
        y: o.y * x,
        z: o.z * x,
    };
    let s = if p.flag { q.w[k] } else { -q.w[k] };
    let d = v.x * p.origin.x + v.y * p.origin.y + v.z * p.origin.z;
    let mut ov = Vec3 {
        z: v.z,
        x: v.x + 1.0,
        y: q.w[2],
    };
    ov.y += 0.5;
    (s * q.dt + d, ov)
}

#[test]
fn struct_parameter_by_value() {
    let mut rng = Rng::new(11);
    let n = 2000;
    let xs: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    for flag in [true, false] {
        let p = Params {
            dt: rng.range_f32(0.0, 1.0),
            n: 3,
            w: [
                rng.range_f32(-5.0, 5.0),
                rng.range_f32(-5.0, 5.0),
                rng.range_f32(-5.0, 5.0),
            ],
            origin: Vec3 {
                x: rng.range_f32(-1.0, 1.0),
                y: rng.range_f32(-1.0, 1.0),
                z: rng.range_f32(-1.0, 1.0),
            },
            flag,
        };
        for dev in devices("struct_parameter_by_value") {
            let dx = dev.upload(&xs).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            let poison = Vec3 {
                x: f32::NAN,
                y: f32::NAN,
                z: f32::NAN,
            };
            let mut outv = dev.upload(&vec![poison; n]).unwrap();
            apply::launch(
                &dev,
                LaunchConfig::for_num_elems(n as u32),
                p,
                &dx,
                &mut out,
                &mut outv,
            )
            .unwrap();
            let (out, outv) = (out.download().unwrap(), outv.download().unwrap());
            for i in 0..n {
                let (w, wv) = host_apply(p, xs[i], i);
                assert_eq!(out[i].to_bits(), w.to_bits(), "{:?} at {i}", dev.backend());
                assert_eq!(outv[i], wv, "{:?} at {i}", dev.backend());
            }
        }
    }
}

#[test]
fn nvrtc_compiles_struct_kernels() {
    nvrtc_compiles(&[("apply", &apply::KERNEL)]);
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Particle {
    pos: Vec3,
    vel: Vec3,
    mass: f64,
    hits: u16,
}

#[gpu_kernel]
fn step(ps: &mut [Particle], forces: &[Vec3], dt: f32) {
    let i = grid_1d();
    if i < ps.len() {
        let mut p = ps[i];
        let f = forces[i];
        let inv = (1.0 / p.mass) as f32;
        p.vel.x += f.x * inv * dt;
        p.vel.y += f.y * inv * dt;
        p.vel.z = p.vel.z + f.z * inv * dt;
        p.pos = Vec3 {
            x: p.pos.x + p.vel.x * dt,
            y: p.pos.y + p.vel.y * dt,
            z: p.pos.z + p.vel.z * dt,
        };
        if p.pos.y < 0.0 {
            p.hits += 1;
        }
        ps[i] = p;
        ps[i].mass = ps[i].mass * 0.5;
    }
}

fn host_step(mut p: Particle, f: Vec3, dt: f32) -> Particle {
    let inv = (1.0 / p.mass) as f32;
    p.vel.x += f.x * inv * dt;
    p.vel.y += f.y * inv * dt;
    p.vel.z += f.z * inv * dt;
    p.pos = Vec3 {
        x: p.pos.x + p.vel.x * dt,
        y: p.pos.y + p.vel.y * dt,
        z: p.pos.z + p.vel.z * dt,
    };
    if p.pos.y < 0.0 {
        p.hits = p.hits.wrapping_add(1);
    }
    p.mass *= 0.5;
    p
}

#[test]
fn buffer_of_structs_round_trip_and_update() {
    let mut rng = Rng::new(5);
    let n = 1500;
    let mut v3 = |r: f32| Vec3 {
        x: rng.range_f32(-r, r),
        y: rng.range_f32(-r, r),
        z: rng.range_f32(-r, r),
    };
    let forces: Vec<Vec3> = (0..n).map(|_| v3(10.0)).collect();
    let ps: Vec<Particle> = (0..n)
        .map(|i| Particle {
            pos: v3(1.0),
            vel: v3(2.0),
            mass: 0.5 + (i % 7) as f64,
            hits: (i % 3) as u16 * 30000,
        })
        .collect();
    for dev in devices("buffer_of_structs_round_trip_and_update") {
        let mut dp = dev.upload(&ps).unwrap();
        assert_eq!(
            dp.download().unwrap(),
            ps,
            "{:?}: upload/download",
            dev.backend()
        );
        let df = dev.upload(&forces).unwrap();
        let mut want = ps.clone();
        for _ in 0..3 {
            step::launch(
                &dev,
                LaunchConfig::for_num_elems(n as u32),
                &mut dp,
                &df,
                0.01,
            )
            .unwrap();
            for (w, f) in want.iter_mut().zip(&forces) {
                *w = host_step(*w, *f, 0.01);
            }
        }
        let got = dp.download().unwrap();
        for i in 0..n {
            assert_eq!(got[i], want[i], "{:?} at {i}", dev.backend());
        }
        // cudarc hands the same memory out and back (GPU only: the simulator's memory is
        // host memory).
        if dev.backend() == warpspeed::Backend::Cuda {
            let slice = dp.into_cudarc().unwrap();
            let back = DeviceBuffer::from_cudarc(&dev, slice).unwrap();
            assert_eq!(back.download().unwrap(), want, "through cudarc");
        }
        // Zeroed buffers of structs are all-zero values.
        let z = dev.zeros::<Particle>(3).unwrap().download().unwrap();
        assert!(z
            .iter()
            .all(|p| p.mass == 0.0 && p.hits == 0 && p.pos.x == 0.0));
    }
}

/// Padding between and after fields: C's rule, which `#[repr(C)]` is.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Padded {
    a: u8,
    b: f64,
    c: u16,
}

#[gpu_kernel]
fn padded(ps: &[Padded], out: &mut [Padded], k: Padded) {
    let i = grid_1d();
    if i < ps.len() {
        let p = ps[i];
        out[i] = Padded {
            c: p.c ^ k.c,
            a: p.a.wrapping_add(k.a),
            b: p.b * k.b,
        };
    }
}

#[test]
fn layout_with_padding() {
    assert_eq!(std::mem::size_of::<Padded>(), 24);
    assert_eq!(std::mem::align_of::<Padded>(), 8);
    assert_eq!(std::mem::offset_of!(Padded, a), 0);
    assert_eq!(std::mem::offset_of!(Padded, b), 8);
    assert_eq!(std::mem::offset_of!(Padded, c), 16);
    assert_eq!(std::mem::size_of::<Params>(), 36);
    assert_eq!(std::mem::offset_of!(Params, origin), 20);
    assert_eq!(std::mem::offset_of!(Params, flag), 32);
    // The C side: NVRTC checks its own layout against these numbers.
    let src = padded::CUDA_SOURCE.as_str();
    assert!(src.contains("struct ws_s_Padded { unsigned char a; double b; unsigned short c; };"));
    assert!(src.contains("sizeof(ws_s_Padded) == 24ull"));
    let mut rng = Rng::new(3);
    let n = 700;
    let ps: Vec<Padded> = (0..n)
        .map(|_| Padded {
            a: rng.next_u32() as u8,
            b: rng.range_f32(-1e3, 1e3) as f64,
            c: rng.next_u32() as u16,
        })
        .collect();
    let k = Padded {
        a: 200,
        b: 1.5,
        c: 0xa5a5,
    };
    for dev in devices("layout_with_padding") {
        let dps = dev.upload(&ps).unwrap();
        let poison = Padded {
            a: 7,
            b: f64::NAN,
            c: 7,
        };
        let mut out = dev.upload(&vec![poison; n]).unwrap();
        padded::launch(
            &dev,
            LaunchConfig::for_num_elems(n as u32),
            &dps,
            &mut out,
            k,
        )
        .unwrap();
        let out = out.download().unwrap();
        for i in 0..n {
            let w = Padded {
                a: ps[i].a.wrapping_add(k.a),
                b: ps[i].b * k.b,
                c: ps[i].c ^ k.c,
            };
            assert_eq!(out[i], w, "{:?} at {i}", dev.backend());
        }
    }
}

#[test]
fn nvrtc_compiles_more_struct_kernels() {
    nvrtc_compiles(&[("step", &step::KERNEL), ("padded", &padded::KERNEL)]);
}

/// Structs named through paths and imports: the kernel finds each struct's definition as
/// rustc finds the type.
mod geo {
    use warpspeed::prelude::*;

    #[gpu_struct]
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Seg {
        pub a: super::Vec3,
        pub len: f32,
        pub tag: [u8; 3],
    }
}

mod paths {
    use super::geo;
    use super::geo::Seg as S;
    use warpspeed::prelude::*;

    #[gpu_kernel]
    pub fn flip(segs: &[geo::Seg], out: &mut [S]) {
        let i = grid_1d();
        if i < segs.len() {
            let s: S = segs[i];
            let mut pts: [S; 2] = [s, s];
            pts[1].len = -s.len;
            pts[1].tag[2] = s.tag[0];
            let a: super::Vec3 = s.a;
            out[i] = geo::Seg {
                len: pts[1].len + pts[0].len * 2.0,
                a: super::Vec3 {
                    x: a.y,
                    y: a.x,
                    z: a.z,
                },
                tag: pts[1].tag,
            };
        }
    }
}

#[test]
fn structs_through_paths_and_aliases() {
    let mut rng = Rng::new(21);
    let n = 500;
    let segs: Vec<geo::Seg> = (0..n)
        .map(|_| geo::Seg {
            a: Vec3 {
                x: rng.range_f32(-1.0, 1.0),
                y: rng.range_f32(-1.0, 1.0),
                z: rng.range_f32(-1.0, 1.0),
            },
            len: rng.range_f32(0.0, 4.0),
            tag: [
                rng.next_u32() as u8,
                rng.next_u32() as u8,
                rng.next_u32() as u8,
            ],
        })
        .collect();
    for dev in devices("structs_through_paths_and_aliases") {
        let ds = dev.upload(&segs).unwrap();
        let poison = geo::Seg {
            a: Vec3 {
                x: f32::NAN,
                y: f32::NAN,
                z: f32::NAN,
            },
            len: f32::NAN,
            tag: [9; 3],
        };
        let mut out = dev.upload(&vec![poison; n]).unwrap();
        paths::flip::launch(&dev, LaunchConfig::for_num_elems(n as u32), &ds, &mut out).unwrap();
        let out = out.download().unwrap();
        for i in 0..n {
            let s = segs[i];
            let w = geo::Seg {
                len: -s.len + s.len * 2.0,
                a: Vec3 {
                    x: s.a.y,
                    y: s.a.x,
                    z: s.a.z,
                },
                tag: [s.tag[0], s.tag[1], s.tag[0]],
            };
            assert_eq!(out[i], w, "{:?} at {i}", dev.backend());
        }
    }
    nvrtc_compiles(&[("flip", &paths::flip::KERNEL)]);
}

/// Structs in shared memory: a block reverses its elements through a shared array.
#[gpu_kernel(block = 64)]
fn reverse_in_block(ps: &mut [Vec3]) {
    let tile = SharedArray::<Vec3, 64>::new();
    let t = thread_idx().x as usize;
    let i = grid_1d();
    tile[t] = ps[i];
    sync_threads();
    let mut v = tile[63 - t];
    v.z = -v.z;
    ps[i] = v;
}

#[test]
fn structs_in_shared_memory() {
    let mut rng = Rng::new(8);
    let n = 64 * 10;
    let ps: Vec<Vec3> = (0..n)
        .map(|_| Vec3 {
            x: rng.range_f32(-1.0, 1.0),
            y: rng.range_f32(-1.0, 1.0),
            z: rng.range_f32(-1.0, 1.0),
        })
        .collect();
    for dev in devices("structs_in_shared_memory") {
        let mut d = dev.upload(&ps).unwrap();
        reverse_in_block::launch(&dev, LaunchConfig::new(10, 64), &mut d).unwrap();
        let got = d.download().unwrap();
        for i in 0..n {
            let src = ps[i / 64 * 64 + 63 - i % 64];
            assert_eq!(
                got[i],
                Vec3 { z: -src.z, ..src },
                "{:?} at {i}",
                dev.backend()
            );
        }
    }
    nvrtc_compiles(&[("reverse_in_block", &reverse_in_block::KERNEL)]);
}

/// A kernel before the struct it uses, whose fields are named like C words.
#[gpu_kernel]
fn c_words(ws: &mut [Words]) {
    let i = grid_1d();
    if i < ws.len() {
        let w = ws[i];
        ws[i].int = w.int.wrapping_mul(3);
        ws[i].double = w.double + w.int as f32;
        ws[i].threadIdx[1] = w.threadIdx[0] ^ 0xff;
    }
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(non_snake_case)]
struct Words {
    int: i32,
    double: f32,
    threadIdx: [u8; 2],
}

#[test]
fn struct_after_its_kernel_with_c_words_as_fields() {
    let mut rng = Rng::new(4);
    let n = 300;
    let ws: Vec<Words> = (0..n)
        .map(|_| Words {
            int: rng.next_u32() as i32,
            double: rng.range_f32(-9.0, 9.0),
            threadIdx: [rng.next_u32() as u8, 0],
        })
        .collect();
    for dev in devices("struct_after_its_kernel_with_c_words_as_fields") {
        let mut d = dev.upload(&ws).unwrap();
        c_words::launch(&dev, LaunchConfig::for_num_elems(n as u32), &mut d).unwrap();
        let got = d.download().unwrap();
        for i in 0..n {
            let w = ws[i];
            let want = Words {
                int: w.int.wrapping_mul(3),
                double: w.double + w.int as f32,
                threadIdx: [w.threadIdx[0], w.threadIdx[0] ^ 0xff],
            };
            assert_eq!(got[i], want, "{:?} at {i}", dev.backend());
        }
    }
    nvrtc_compiles(&[("c_words", &c_words::KERNEL)]);
}

/// Array literals and repeats inside struct literals; `fill` and views of a buffer of
/// structs.
#[gpu_kernel]
fn literals(out: &mut [Params], k: f32) {
    let i = grid_1d();
    if i < out.len() {
        let o = Vec3 {
            x: k,
            y: 0.0,
            z: -k,
        };
        out[i] = Params {
            w: [k, k * 2.0, i as f32],
            n: i as u32,
            origin: o,
            flag: i % 2 == 0,
            dt: out[i].dt + 1.0,
        };
        if i % 3 == 0 {
            let mut p = out[i];
            p.w = [0.5; 3];
            out[i] = p;
        }
    }
}

#[test]
fn array_literals_in_struct_literals_and_fill() {
    let n = 90;
    let base = Params {
        dt: 0.25,
        n: 0,
        w: [9.0; 3],
        origin: Vec3 {
            x: 1.0,
            y: 2.0,
            z: 3.0,
        },
        flag: false,
    };
    for dev in devices("array_literals_in_struct_literals_and_fill") {
        let mut d = dev.zeros::<Params>(n).unwrap();
        d.fill(base).unwrap();
        assert!(
            d.download().unwrap().iter().all(|p| *p == base),
            "{:?}: fill",
            dev.backend()
        );
        // A view of the second half only.
        let mut half = d.slice_mut(n / 2..);
        literals::launch(&dev, LaunchConfig::for_num_elems(n as u32), &mut half, 1.5).unwrap();
        let got = d.download().unwrap();
        for (i, g) in got.iter().enumerate() {
            if i < n / 2 {
                assert_eq!(*g, base, "{:?} at {i}: outside the view", dev.backend());
                continue;
            }
            let j = i - n / 2;
            let mut want = Params {
                w: [1.5, 3.0, j as f32],
                n: j as u32,
                origin: Vec3 {
                    x: 1.5,
                    y: 0.0,
                    z: -1.5,
                },
                flag: j % 2 == 0,
                dt: 1.25,
            };
            if j % 3 == 0 {
                want.w = [0.5; 3];
            }
            assert_eq!(*g, want, "{:?} at {i}", dev.backend());
        }
    }
    nvrtc_compiles(&[("literals", &literals::KERNEL)]);
}

/// A generic kernel taking a struct: every instance's C starts with the struct's definition.
#[gpu_kernel]
fn affine_generic<T: warpspeed::Float>(v: Vec3, x: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i] * T::from_f32(v.x) + T::from_f32(v.y - v.z);
    }
}

#[test]
fn generic_kernels_take_structs() {
    let mut rng = Rng::new(77);
    let n = 1000;
    let v = Vec3 {
        x: 1.5,
        y: -0.25,
        z: 2.0,
    };
    let x32: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    let x64: Vec<f64> = x32.iter().map(|&x| f64::from(x) * 1.000_001).collect();
    for dev in devices("generic_kernels_take_structs") {
        let cfg = LaunchConfig::for_num_elems(n as u32);
        let dx = dev.upload(&x32).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        affine_generic::launch(&dev, cfg, v, &dx, &mut out).unwrap();
        let want: Vec<u32> = x32
            .iter()
            .map(|&x| (x * v.x + (v.y - v.z)).to_bits())
            .collect();
        let got: Vec<u32> = out
            .download()
            .unwrap()
            .iter()
            .map(|g| g.to_bits())
            .collect();
        assert_eq!(got, want, "f32 on {:?}", dev.backend());
        let dx = dev.upload(&x64).unwrap();
        let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
        affine_generic::launch::<f64>(&dev, cfg, v, &dx, &mut out).unwrap();
        let (k, b) = (f64::from(v.x), f64::from(v.y - v.z));
        let want: Vec<u64> = x64.iter().map(|&x| (x * k + b).to_bits()).collect();
        let got: Vec<u64> = out
            .download()
            .unwrap()
            .iter()
            .map(|g| g.to_bits())
            .collect();
        assert_eq!(got, want, "f64 on {:?}", dev.backend());
    }
}

#[test]
fn nvrtc_compiles_generic_struct_kernels() {
    nvrtc_compiles(&[
        ("affine_generic::<f32>", affine_generic::kernel::<f32>()),
        ("affine_generic::<f64>", affine_generic::kernel::<f64>()),
        (
            "affine_generic::<f16>",
            affine_generic::kernel::<warpspeed::f16>(),
        ),
    ]);
}
