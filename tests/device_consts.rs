//! Const-generic device functions (docs/language.md, "Generics"): each call names the const
//! parameters (`rotl::<7>(x)`), with a literal, a module-level constant, arithmetic on
//! constants, or the caller's own const parameter (a generic kernel's, or a generic device
//! function's, whose C is a template too); mixed with type parameters; used as values, as
//! `as` operands and as local array lengths. Random data on the simulator and the GPU,
//! against plain Rust; NVRTC compiles every instance.

use warpspeed::prelude::*;
use warpspeed::{Device, LaunchConfig};

mod common;
use common::{devices, nvrtc_compiles, Rng};

const SHIFT: u32 = 13;
const WINDOW: usize = 3;

#[gpu_device]
fn rotl<const K: u32>(x: u32) -> u32 {
    x.rotate_left(K)
}

/// Uses its const parameter as a value, in `as`, and passes it on to another template.
#[gpu_device]
fn mix<const K: u32>(x: u32) -> u32 {
    let scaled = (K as f32 * 0.5f32) as u32;
    rotl::<K>(x) ^ K.wrapping_mul(0x9e37_79b9) ^ scaled
}

#[gpu_device]
fn half<const HIGH: bool>(x: u32) -> u32 {
    if HIGH {
        x >> 16
    } else {
        x & 0xffff
    }
}

#[gpu_device]
fn offset<const D: i32>(x: i32) -> i32 {
    x.wrapping_add(D)
}

/// Type and const parameters together; a local array of the const length.
#[gpu_device]
fn window_sum<T: Float, const N: usize>(x: &[T], i: usize) -> T {
    let mut buf = [T::zero(); N];
    for k in 0..N {
        buf[k] = x[(i + k) % x.len()];
    }
    let mut s = T::zero();
    for k in 0..N {
        s += buf[k];
    }
    s
}

#[gpu_kernel]
fn consts_by_every_form(x: &[u32], y: &[i32], out: &mut [u32], outy: &mut [i32]) {
    let i = grid_1d();
    if i < x.len() {
        let v = x[i];
        out[i] = rotl::<7>(v)
            ^ rotl::<SHIFT>(v)
            ^ rotl::<{ SHIFT + 2 }>(v)
            ^ mix::<5>(v)
            ^ half::<true>(v)
            ^ (half::<false>(v) << 3);
        outy[i] = offset::<{ -5 }>(y[i]) ^ offset::<7>(y[i]);
    }
}

#[gpu_kernel]
fn windows<T: Float, const B: usize>(x: &[T], out: &mut [T], out3: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        out[i] = window_sum::<T, B>(x, i);
        out3[i] = window_sum::<T, WINDOW>(x, i);
    }
}

fn host_mix(k: u32, x: u32) -> u32 {
    let scaled = (k as f32 * 0.5f32) as u32;
    x.rotate_left(k) ^ k.wrapping_mul(0x9e37_79b9) ^ scaled
}

fn host_window<T: Copy + std::ops::Add<Output = T>>(x: &[T], i: usize, n: usize, zero: T) -> T {
    let mut buf = vec![zero; n];
    for (k, b) in buf.iter_mut().enumerate() {
        *b = x[(i + k) % x.len()];
    }
    buf.into_iter().fold(zero, |s, v| s + v)
}

#[test]
fn const_arguments_of_every_form() {
    nvrtc_compiles(&[("consts_by_every_form", &consts_by_every_form::KERNEL)]);
    let mut rng = Rng::new(7);
    let n = 3000;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let y: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
    for dev in devices("const_arguments_of_every_form") {
        let (dx, dy) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
        let mut out = dev.upload(&vec![0xdead_beefu32; n]).unwrap();
        let mut outy = dev.upload(&vec![i32::MIN; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        consts_by_every_form::launch(&dev, cfg, &dx, &dy, &mut out, &mut outy).unwrap();
        let (out, outy) = (out.download().unwrap(), outy.download().unwrap());
        for i in 0..n {
            let v = x[i];
            let want = v.rotate_left(7)
                ^ v.rotate_left(SHIFT)
                ^ v.rotate_left(SHIFT + 2)
                ^ host_mix(5, v)
                ^ (v >> 16)
                ^ ((v & 0xffff) << 3);
            assert_eq!(out[i], want, "{:?}: element {i}", dev.backend());
            let want_y = y[i].wrapping_add(-5) ^ y[i].wrapping_add(7);
            assert_eq!(outy[i], want_y, "{:?}: i32 element {i}", dev.backend());
        }
    }
}

/// `windows::<T, B>` on `dev`, outputs poisoned with NaN, against the host's windows of
/// `B` and `WINDOW`.
fn windows_agree<T, const B: usize>(dev: &Device, x: &[T], nan: T, zero: T)
where
    T: warpspeed::Float + std::ops::Add<Output = T> + PartialEq + std::fmt::Debug,
{
    let n = x.len();
    let dx = dev.upload(x).unwrap();
    let mut out = dev.upload(&vec![nan; n]).unwrap();
    let mut out3 = dev.upload(&vec![nan; n]).unwrap();
    let cfg = LaunchConfig::for_num_elems(n as u32);
    windows::launch::<T, B>(dev, cfg, &dx, &mut out, &mut out3).unwrap();
    let (out, out3) = (out.download().unwrap(), out3.download().unwrap());
    let what = format!("{:?} {}", dev.backend(), std::any::type_name::<T>());
    for i in 0..n {
        let want = host_window(x, i, B, zero);
        assert_eq!(out[i], want, "{what}: B = {B}, element {i}");
        let want = host_window(x, i, WINDOW, zero);
        assert_eq!(out3[i], want, "{what}: WINDOW, element {i}");
    }
}

#[test]
fn type_and_const_parameters_together() {
    nvrtc_compiles(&[
        ("windows::<f32, 4>", windows::kernel::<f32, 4>()),
        ("windows::<f64, 9>", windows::kernel::<f64, 9>()),
    ]);
    let mut rng = Rng::new(11);
    let n = 1000;
    // Integers in floats: every order of summation gives the same bits.
    let xf: Vec<f32> = (0..n).map(|_| (rng.next_u32() % 1000) as f32).collect();
    let xd: Vec<f64> = (0..n)
        .map(|_| (rng.next_u32() % 1000) as f64 - 500.0)
        .collect();
    for dev in devices("type_and_const_parameters_together") {
        windows_agree::<f32, 4>(&dev, &xf, f32::NAN, 0.0);
        windows_agree::<f64, 9>(&dev, &xd, f64::NAN, 0.0);
    }
}
