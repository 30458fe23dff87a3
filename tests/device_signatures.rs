//! A kernel knows its callees' signatures (docs/language.md, "Calling device functions"):
//! device-function results need no annotation (tuples, structs, generic and
//! const-generic callees, through module paths), and an unsuffixed literal argument takes
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
