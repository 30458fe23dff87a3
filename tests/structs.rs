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
        outv[i] = Vec3 { z: v.z, x: v.x + 1.0, y: q.w[2] };
        outv[i].y += 0.5;
    }
}

fn host_apply(p: Params, x: f32, i: usize) -> (f32, Vec3) {
    let mut q = p;
    q.dt = p.dt * 2.0;
    q.w[1] += x;
    let k = (i as u32 % p.n) as usize;
    let o = q.origin;
    let v = Vec3 { x: o.x * x, y: o.y * x, z: o.z * x };
    let s = if p.flag { q.w[k] } else { -q.w[k] };
    let d = v.x * p.origin.x + v.y * p.origin.y + v.z * p.origin.z;
    let mut ov = Vec3 { z: v.z, x: v.x + 1.0, y: q.w[2] };
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
            w: [rng.range_f32(-5.0, 5.0), rng.range_f32(-5.0, 5.0), rng.range_f32(-5.0, 5.0)],
            origin: Vec3 { x: rng.range_f32(-1.0, 1.0), y: rng.range_f32(-1.0, 1.0), z: rng.range_f32(-1.0, 1.0) },
            flag,
        };
        for dev in devices("struct_parameter_by_value") {
            let dx = dev.upload(&xs).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            let poison = Vec3 { x: f32::NAN, y: f32::NAN, z: f32::NAN };
            let mut outv = dev.upload(&vec![poison; n]).unwrap();
            apply::launch(&dev, LaunchConfig::for_num_elems(n as u32), p, &dx, &mut out, &mut outv).unwrap();
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
