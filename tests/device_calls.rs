//! Calls of `#[gpu_device]` functions by every kind of path (docs/language.md, "Calling
//! device functions"): a bare name, a module path, `self::`, `super::`, `crate::`, a
//! generic callee with and without a turbofish, and a diamond (two callees that call one
//! function) three calls deep, which the compile-time cycle check walks and lets pass. On
//! the simulator and on the GPU where there is one, against the same Rust on the host, with
//! outputs poisoned; NVRTC compiles the kernel.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, nvrtc_compiles, Rng};

/// The bottom of the diamond.
#[gpu_device]
fn mix(x: u32) -> u32 {
    (x ^ (x >> 7)).wrapping_mul(0x9e37_79b9)
}

mod helpers {
    use warpspeed::prelude::*;

    /// One side of the diamond, reached as `helpers::left`.
    #[gpu_device]
    pub fn left(x: u32) -> u32 {
        let m: u32 = super::mix(x);
        m.rotate_left(5)
    }

    /// The other side, reached as `crate::helpers::right`; it calls `self::twice`.
    #[gpu_device]
    pub fn right(x: u32) -> u32 {
        let t: u32 = self::twice(x);
        let m: u32 = crate::mix(t);
        m ^ 0x5555_5555
    }

    #[gpu_device]
    pub fn twice(x: u32) -> u32 {
        x.wrapping_mul(2)
    }

    pub mod inner {
        use warpspeed::prelude::*;

        /// Reached from a kernel as `helpers::inner::top`; calls `super::left` and
        /// `super::right`.
        #[gpu_device]
        pub fn top(x: u32) -> u32 {
            let l: u32 = super::left(x);
            let r: u32 = super::right(x);
            l.wrapping_add(r)
        }
    }
}

/// A generic callee.
#[gpu_device]
fn lerp<T: Float>(a: T, b: T, t: T) -> T {
    a + (b - a) * t
}

#[gpu_kernel]
fn calls(x: &[u32], f: &[f32], out: &mut [u32], outf: &mut [f32], outd: &mut [f64]) {
    let i = grid_1d();
    if i < x.len() {
        let top: u32 = helpers::inner::top(x[i]);
        let m: u32 = mix(x[i]);
        out[i] = top ^ m;
        outf[i] = lerp(f[i], 2.0f32, 0.25f32);
        outd[i] = lerp::<f64>(f[i] as f64, -1.0, 0.5);
    }
}

fn host_mix(x: u32) -> u32 {
    (x ^ (x >> 7)).wrapping_mul(0x9e37_79b9)
}

fn host(x: u32) -> u32 {
    let l = host_mix(x).rotate_left(5);
    let r = host_mix(x.wrapping_mul(2)) ^ 0x5555_5555;
    l.wrapping_add(r) ^ host_mix(x)
}

#[test]
fn device_functions_by_every_path() {
    nvrtc_compiles(&[("calls", &calls::KERNEL)]);
    let mut rng = Rng::new(31);
    let n = 5000;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let f: Vec<f32> = (0..n).map(|_| rng.range_f32(-50.0, 50.0)).collect();
    for dev in devices("device_functions_by_every_path") {
        let (dx, df) = (dev.upload(&x).unwrap(), dev.upload(&f).unwrap());
        let mut out = dev.upload(&vec![0xdead_beefu32; n]).unwrap();
        let mut outf = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut outd = dev.upload(&vec![f64::NAN; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        calls::launch(&dev, cfg, &dx, &df, &mut out, &mut outf, &mut outd).unwrap();
        let (out, outf, outd) = (
            out.download().unwrap(),
            outf.download().unwrap(),
            outd.download().unwrap(),
        );
        for i in 0..n {
            assert_eq!(out[i], host(x[i]), "{:?}: element {i}", dev.backend());
            let want_f = f[i] + (2.0f32 - f[i]) * 0.25f32;
            assert_eq!(
                outf[i].to_bits(),
                want_f.to_bits(),
                "{:?}: f32 {i}",
                dev.backend()
            );
            let fd = f[i] as f64;
            let want_d = fd + (-1.0 - fd) * 0.5;
            assert_eq!(
                outd[i].to_bits(),
                want_d.to_bits(),
                "{:?}: f64 {i}",
                dev.backend()
            );
        }
    }
}
