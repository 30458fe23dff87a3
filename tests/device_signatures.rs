//! A kernel knows its callees' signatures (docs/language.md, "Calling device functions"):
//! device-function results need no annotation (tuples, structs, generic and
//! const-generic callees, through module paths and `super::`, from concrete and generic
//! kernels), and an unsuffixed literal argument takes
//! its parameter's type. On the simulator and on the GPU where there is one, against a
//! host reference, with outputs poisoned; NVRTC compiles the kernel.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, nvrtc_compiles, Rng};

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub lo: u32,
    pub hi: u32,
}

#[gpu_device]
fn divmod(a: u32, b: u32) -> (u32, u32) {
    (a / b, a % b)
}

#[gpu_device]
fn split(x: u64) -> Pair {
    Pair {
        lo: x as u32,
        hi: (x >> 32) as u32,
    }
}

/// A `u64` parameter: the literal argument is a `u64`, as rustc makes it.
#[gpu_device]
fn high_bits(x: u64) -> u32 {
    (x >> 40) as u32
}

mod shapes {
    use warpspeed::prelude::*;

    #[gpu_device]
    pub fn spread(x: f32) -> (f32, f32, f32) {
        (x, x * 2.0, x * 3.0)
    }

    /// Generic and const-generic: the result's type is the call's `T`.
    #[gpu_device]
    pub fn times<T: Float, const N: usize>(x: T) -> (T, u32) {
        let mut acc = x;
        for _ in 1..N {
            acc += x;
        }
        (acc, N as u32)
    }

    #[gpu_device]
    pub fn scale<T: Float>(x: T, k: T) -> T {
        x * k
    }

    /// Calls up the module tree, unannotated.
    #[gpu_device]
    pub fn digits(x: u32) -> u32 {
        let (q, r) = super::divmod(x, 10);
        let (q2, r2) = super::divmod(q, 10);
        r + r2 + q2 % 10
    }
}

/// A generic kernel: each instance's call of the generic `scale` infers `T` from the
/// arguments, and the result needs no annotation.
#[gpu_kernel]
fn generic_user<T: Float>(x: &[T], out: &mut [T], d: &mut [u32]) {
    let i = grid_1d();
    if i < x.len() {
        let y = shapes::scale(x[i], T::from_f32(0.5));
        out[i] = y + x[i];
        d[i] = shapes::digits(i as u32 * 7919);
    }
}

#[gpu_kernel]
fn no_annotations(
    x: &[u32],
    f: &[f32],
    q: &mut [u32],
    p: &mut [u32],
    s: &mut [f32],
    d: &mut [f64],
) {
    let i = grid_1d();
    if i < x.len() {
        let (div, rem) = divmod(x[i] + 7, 5);
        let pair = split(x[i] as u64 * 0x1_0000_0001);
        let big = high_bits(0xabcd_0000_0000_0000);
        q[i] = div ^ rem.rotate_left(3) ^ big;
        p[i] = pair.lo.wrapping_add(pair.hi.rotate_left(7));
        let a = shapes::spread(f[i]);
        let (r, n) = shapes::times::<f32, 4>(f[i]);
        let k = self::shapes::scale(f[i], 0.5);
        s[i] = a.0 + a.1 * a.2 + r * n as f32 + k;
        let w = crate::shapes::scale(f[i] as f64, 0.25);
        d[i] = w;
    }
}

#[test]
fn results_without_annotations() {
    nvrtc_compiles(&[("no_annotations", &no_annotations::KERNEL)]);
    let mut rng = Rng::new(7);
    let n = 3000;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let f: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    for dev in devices("results_without_annotations") {
        let (dx, df) = (dev.upload(&x).unwrap(), dev.upload(&f).unwrap());
        let mut q = dev.upload(&vec![0xdead_beefu32; n]).unwrap();
        let mut p = dev.upload(&vec![0xdead_beefu32; n]).unwrap();
        let mut s = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut d = dev.upload(&vec![f64::NAN; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        no_annotations::launch(&dev, cfg, &dx, &df, &mut q, &mut p, &mut s, &mut d).unwrap();
        let (q, p, s, d) = (
            q.download().unwrap(),
            p.download().unwrap(),
            s.download().unwrap(),
            d.download().unwrap(),
        );
        for i in 0..n {
            let a = x[i].wrapping_add(7);
            let want_q = (a / 5) ^ (a % 5).rotate_left(3) ^ 0xabcd00;
            assert_eq!(q[i], want_q, "{:?}: divmod {i}", dev.backend());
            let wide = x[i] as u64 * 0x1_0000_0001;
            let want_p = (wide as u32).wrapping_add(((wide >> 32) as u32).rotate_left(7));
            assert_eq!(p[i], want_p, "{:?}: split {i}", dev.backend());
            let v = f[i];
            let want_s = v + (v * 2.0) * (v * 3.0) + (v + v + v + v) * 4.0 + v * 0.5;
            assert_eq!(
                s[i].to_bits(),
                want_s.to_bits(),
                "{:?}: f32 {i}",
                dev.backend()
            );
            let want_d = v as f64 * 0.25;
            assert_eq!(
                d[i].to_bits(),
                want_d.to_bits(),
                "{:?}: f64 {i}",
                dev.backend()
            );
        }
    }
}

#[test]
fn generic_kernels_call_without_annotations() {
    let mut rng = Rng::new(8);
    let n = 2000;
    let x32: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    let x64: Vec<f64> = x32.iter().map(|&v| v as f64 * 1.25).collect();
    let digits = |i: usize| {
        let v = i as u32 * 7919;
        v % 10 + v / 10 % 10 + v / 100 % 10
    };
    for dev in devices("generic_kernels_call_without_annotations") {
        let cfg = LaunchConfig::for_num_elems(n as u32);
        let dx = dev.upload(&x32).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut d = dev.upload(&vec![u32::MAX; n]).unwrap();
        generic_user::launch(&dev, cfg, &dx, &mut out, &mut d).unwrap();
        let (out, d) = (out.download().unwrap(), d.download().unwrap());
        for i in 0..n {
            let want = x32[i] * 0.5 + x32[i];
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "{:?}: f32 {i}",
                dev.backend()
            );
            assert_eq!(d[i], digits(i), "{:?}: digits {i}", dev.backend());
        }
        let dx = dev.upload(&x64).unwrap();
        let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
        let mut d = dev.upload(&vec![u32::MAX; n]).unwrap();
        generic_user::launch(&dev, cfg, &dx, &mut out, &mut d).unwrap();
        let out = out.download().unwrap();
        for i in 0..n {
            let want = x64[i] * 0.5 + x64[i];
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "{:?}: f64 {i}",
                dev.backend()
            );
        }
    }
}
