//! Generic kernels (docs/language.md, "Generics"): type parameters bounded by `Float`,
//! `Int` and `Scalar`, const parameters as lengths and values, each instance its own C
//! function compiled once. Each kernel runs on the simulator and on the GPU where there is
//! one, against a CPU reference, outputs poisoned first; NVRTC compiles every instance.

use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;
use warpspeed::{f16, LaunchConfig};

mod common;
use common::{devices, Rng};

#[gpu_kernel]
fn axpy<T: Float>(y: &mut [T], a: T, x: &[T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// Literals through the trait's conversions; a concrete f32 parameter next to `T`.
#[gpu_kernel]
fn affine<T: Float>(out: &mut [T], x: &[T], scale: f32) {
    let i = grid_1d();
    if i < out.len() {
        let half: T = T::from_f32(0.5);
        let v = x[i] * T::from_f32(scale) - half + T::one();
        out[i] = if v < T::zero() { -v } else { v };
    }
}

/// Math through the conversions: `f32`'s `sqrt` for every instance.
#[gpu_kernel]
fn root<T: Float>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = T::from_f32(x[i].to_f32().sqrt());
    }
}

/// The methods `Float` offers, on every instance (f16's through f32).
#[gpu_kernel]
fn float_methods<T: Float>(out: &mut [T], x: &[T], y: &[T]) {
    let i = grid_1d();
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        out[8 * i] = a.abs().sqrt();
        out[8 * i + 1] = a.abs();
        out[8 * i + 2] = a.min(b);
        out[8 * i + 3] = a.max(b);
        out[8 * i + 4] = a.floor();
        out[8 * i + 5] = a.ceil();
        out[8 * i + 6] = a.round();
        out[8 * i + 7] = a.trunc();
    }
}

/// Integer arithmetic wraps, shifts mask, bit operations and the `Int` methods: bit-exact
/// with Rust for every instance launched.
#[gpu_kernel]
fn mix<T: Int>(out: &mut [T], a: &[T], b: &[T], k: u32) {
    let i = grid_1d();
    if i < out.len() {
        let (x, y) = (a[i], b[i]);
        let mut v = x * y + (x ^ y) - (x & !y);
        v = v.wrapping_add(x.rotate_left(k)) | (y >> k);
        v += T::from_u32(x.count_ones() + y.leading_zeros());
        if y != T::zero() {
            v = v ^ (x / y) ^ (x % y);
        }
        let shift = y.to_u32();
        out[i] = v << shift ^ x.max(y).min(v).wrapping_mul(T::from_i32(-3));
    }
}

/// A block's sum of `B` elements in shared memory of `B` words, a tree with `B` as a bound.
#[gpu_kernel]
fn block_sum<const B: usize>(sums: &mut [u32], x: &[u32]) {
    let tile = SharedArray::<u32, B>::new();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * B;
    tile[t] = x[base + t];
    sync_threads();
    let mut stride = B / 2;
    while stride > 0 {
        if t < stride {
            tile[t] = tile[t].wrapping_add(tile[t + stride]);
        }
        sync_threads();
        stride /= 2;
    }
    if t == 0 {
        sums[block_idx().x as usize] = tile[0] + B as u32 * 0;
    }
}

/// A type and a const parameter together: a local array of `N` elements of `T`.
#[gpu_kernel]
fn window_max<T: Scalar, const N: usize>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    if i + N <= x.len() {
        let mut w = [x[i]; N];
        for k in 0..N {
            w[k] = x[i + k];
        }
        let mut m = w[0];
        for k in 1..N {
            if w[k] > m {
                m = w[k];
            }
        }
        out[i] = m;
    }
}

/// A generic device function: one C overload per type, picked by the arguments' types.
#[gpu_device]
fn lerp<T: Float>(a: T, b: T, t: T) -> T {
    a + (b - a) * t
}

#[gpu_device]
fn sum3<T: Int>(v: &[T], i: usize) -> T {
    v[i] + v[i + 1] + v[i + 2]
}

/// Calls the generic device functions from a generic kernel (inferred and turbofish).
#[gpu_kernel]
fn blend<T: Float>(out: &mut [T], a: &[T], b: &[T]) {
    let i = grid_1d();
    if i < out.len() {
        let quarter: T = T::from_f32(0.25);
        let x: T = lerp(a[i], b[i], quarter);
        let y: T = lerp::<T>(x, b[i], T::from_f32(0.5));
        out[i] = y;
    }
}

/// ... and from concrete kernels (the f32 and the u16 instances).
#[gpu_kernel]
fn blend_f32(out: &mut [f32], a: &[f32], b: &[f32]) {
    let i = grid_1d();
    if i < out.len() {
        let x: f32 = lerp(a[i], b[i], 0.25f32);
        out[i] = lerp::<f32>(x, b[i], 0.5f32);
    }
}

#[gpu_kernel]
fn window_u16(out: &mut [u16], v: &[u16]) {
    let i = grid_1d();
    if i + 2 < v.len() {
        let s: u16 = sum3(v, i);
        out[i] = s;
    }
}

/// Printing a `T` prints what its instance prints (`%g` for a float).
#[gpu_kernel]
fn show<T: Scalar>(x: &[T]) {
    let i = grid_1d();
    if i < x.len() {
        gpu_print!("[{}] [{:7}]\n", x[i], x[i]);
    }
}

#[gpu_kernel]
fn show_int<T: Int>(x: &[T]) {
    let i = grid_1d();
    if i < x.len() {
        gpu_print!("[{}] [{:6}] [{:06}] [{:x}]\n", x[i], x[i], x[i], x[i]);
    }
}

#[gpu_kernel]
fn show_i32(x: &[i32]) {
    let i = grid_1d();
    if i < x.len() {
        gpu_print!("[{}] [{:6}] [{:06}] [{:x}]\n", x[i], x[i], x[i], x[i]);
    }
}

#[gpu_kernel]
fn show_f32(x: &[f32]) {
    let i = grid_1d();
    if i < x.len() {
        gpu_print!("[{}] [{:7}]\n", x[i], x[i]);
    }
}

#[gpu_kernel]
fn show_bool(x: &[bool]) {
    let i = grid_1d();
    if i < x.len() {
        gpu_print!("[{}] [{:7}]\n", x[i], x[i]);
    }
}

/// The kernel options, a declared length and atomics work in a generic kernel as in any.
#[gpu_kernel(block = 64)]
fn count_above<T: Scalar>(#[len(n)] x: &[T], limit: T, hits: &[AtomicU32], n: usize) {
    let i = grid_1d();
    if i < n && x[i] > limit {
        hits[0].fetch_add(1, Ordering::Relaxed);
    }
}

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::new(n.div_ceil(64) as u32, 64)
}

#[test]
fn axpy_f32_f64_f16_inferred_and_named() {
    let n = 1000;
    let mut rng = Rng::new(11);
    let x32: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    let y32: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    let x64: Vec<f64> = (0..n).map(|_| rng.range_f64(-10.0, 10.0)).collect();
    let y64: Vec<f64> = (0..n).map(|_| rng.range_f64(-10.0, 10.0)).collect();
    let x16: Vec<f16> = x32.iter().map(|v| f16::from_f32(*v)).collect();
    let y16: Vec<f16> = y32.iter().map(|v| f16::from_f32(*v)).collect();
    for dev in devices("axpy_f32_f64_f16_inferred_and_named") {
        // f32, T inferred.
        let x = dev.upload(&x32).unwrap();
        let mut y = dev.upload(&y32).unwrap();
        axpy::launch(&dev, cfg(n), &mut y, 1.5f32, &x).unwrap();
        let want: Vec<f32> = x32.iter().zip(&y32).map(|(x, y)| 1.5f32 * x + y).collect();
        let got = y.download().unwrap();
        assert!(
            got.iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{:?}",
            dev.backend()
        );
        // f64, T named.
        let x = dev.upload(&x64).unwrap();
        let mut y = dev.upload(&y64).unwrap();
        axpy::launch::<f64>(&dev, cfg(n), &mut y, -2.25, &x).unwrap();
        let want: Vec<f64> = x64.iter().zip(&y64).map(|(x, y)| -2.25 * x + y).collect();
        let got = y.download().unwrap();
        assert!(got
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        // f16: one rounding per operation, as `half` computes.
        let x = dev.upload(&x16).unwrap();
        let mut y = dev.upload(&y16).unwrap();
        let a = f16::from_f32(0.75);
        axpy::launch(&dev, cfg(n), &mut y, a, &x).unwrap();
        let want: Vec<f16> = x16.iter().zip(&y16).map(|(x, y)| a * *x + *y).collect();
        let got = y.download().unwrap();
        assert!(got
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}

#[test]
fn math_through_f32_for_every_float() {
    let n = 200;
    let mut rng = Rng::new(17);
    let x32: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 1000.0)).collect();
    let x16: Vec<f16> = x32.iter().map(|v| f16::from_f32(*v)).collect();
    let x64: Vec<f64> = x32.iter().map(|v| *v as f64 * 1.000_000_1).collect();
    for dev in devices("math_through_f32_for_every_float") {
        let x = dev.upload(&x16).unwrap();
        let mut out = dev.upload(&vec![f16::NAN; n]).unwrap();
        root::launch(&dev, cfg(n), &mut out, &x).unwrap();
        let want: Vec<u16> = x16
            .iter()
            .map(|v| f16::from_f32(v.to_f32().sqrt()).to_bits())
            .collect();
        let got: Vec<u16> = out
            .download()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(got, want);
        let x = dev.upload(&x64).unwrap();
        let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
        root::launch(&dev, cfg(n), &mut out, &x).unwrap();
        let want: Vec<f64> = x64.iter().map(|v| (*v as f32).sqrt() as f64).collect();
        assert_eq!(out.download().unwrap(), want);
    }
}

/// The reference, through f64 (which holds every f16 and f32, and rounds `sqrt` once more
/// innocuously): independent of the simulator's f16 helpers.
fn float_methods_host<T: Float>(x: &[T], y: &[T]) -> Vec<T> {
    let f = |v: f64| T::from_f64(v);
    x.iter()
        .zip(y)
        .flat_map(|(a, b)| {
            let (a, b) = (a.to_f64(), b.to_f64());
            [
                f(a.abs().sqrt()),
                f(a.abs()),
                f(a.min(b)),
                f(a.max(b)),
                f(a.floor()),
                f(a.ceil()),
                f(a.round()),
                f(a.trunc()),
            ]
        })
        .collect()
}

/// Equal, NaN to NaN (Rust does not fix a NaN's bits, nor does the GPU).
fn same<T: Float>(got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let nan = |v: &T| v.to_f64().is_nan();
        assert!(
            (nan(g) && nan(w)) || g.to_bits() == w.to_bits(),
            "element {k}: {g:?} != {w:?}"
        );
    }
}

#[test]
fn float_methods_on_every_instance() {
    let n = 600;
    let mut rng = Rng::new(18);
    // Halves for the ties of `round`, signed zeros, NaN, infinities, f16's largest.
    let special = [
        0.5,
        -0.5,
        2.5,
        -2.5,
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        65504.0,
    ];
    let x64: Vec<f64> = (0..n)
        .map(|i| {
            special
                .get(i % 40)
                .copied()
                .unwrap_or_else(|| rng.range_f64(-3000.0, 3000.0))
        })
        .collect();
    let y64: Vec<f64> = (0..n)
        .map(|i| {
            if i % 7 == 0 {
                f64::NAN
            } else {
                rng.range_f64(-3000.0, 3000.0)
            }
        })
        .collect();
    for dev in devices("float_methods_on_every_instance") {
        macro_rules! check {
            ($t:ty, $conv:expr) => {{
                let x: Vec<$t> = x64.iter().map($conv).collect();
                let y: Vec<$t> = y64.iter().map($conv).collect();
                let (dx, dy) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
                let mut out = dev.upload(&vec![<$t>::from_f32(7.0); 8 * n]).unwrap();
                float_methods::launch(&dev, cfg(n), &mut out, &dx, &dy).unwrap();
                same(&out.download().unwrap(), &float_methods_host(&x, &y));
            }};
        }
        check!(f16, |v: &f64| f16::from_f64(*v));
        check!(f32, |v: &f64| *v as f32);
        check!(f64, |v: &f64| *v);
    }
}

#[test]
fn conversions_stand_in_for_literals() {
    let n = 300;
    let mut rng = Rng::new(12);
    let x32: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let x64: Vec<f64> = (0..n).map(|_| rng.range_f64(-4.0, 4.0)).collect();
    let scale = 1.25f32;
    for dev in devices("conversions_stand_in_for_literals") {
        let x = dev.upload(&x32).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        affine::launch(&dev, cfg(n), &mut out, &x, scale).unwrap();
        let want: Vec<f32> = x32.iter().map(|x| (x * scale - 0.5 + 1.0).abs()).collect();
        assert_eq!(out.download().unwrap(), want);
        let x = dev.upload(&x64).unwrap();
        let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
        affine::launch::<f64>(&dev, cfg(n), &mut out, &x, scale).unwrap();
        let want: Vec<f64> = x64
            .iter()
            .map(|x| (x * scale as f64 - 0.5 + 1.0).abs())
            .collect();
        assert_eq!(out.download().unwrap(), want);
    }
}

fn mix_host<T>(x: T, y: T, k: u32) -> T
where
    T: Int
        + std::ops::BitXor<Output = T>
        + std::ops::BitAnd<Output = T>
        + std::ops::BitOr<Output = T>
        + std::ops::Not<Output = T>,
{
    let mut v = x.wrapping_mul(y).wrapping_add(x ^ y).wrapping_sub(x & !y);
    v = v.wrapping_add(x.rotate_left(k)) | y.wrapping_shr(k);
    v = v.wrapping_add(T::from_u32(x.count_ones() + y.leading_zeros()));
    if y != T::zero() {
        v = v ^ x.wrapping_div(y) ^ x.wrapping_rem(y);
    }
    v.wrapping_shl(y.to_u32()) ^ x.max(y).min(v).wrapping_mul(T::from_i32(-3))
}

fn check_mix<T>(dev: &Device, a: Vec<T>, b: Vec<T>, poison: T)
where
    T: Int
        + std::fmt::Debug
        + std::ops::BitXor<Output = T>
        + std::ops::BitAnd<Output = T>
        + std::ops::BitOr<Output = T>
        + std::ops::Not<Output = T>,
{
    let n = a.len();
    let k = 7;
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let mut out = dev.upload(&vec![poison; n]).unwrap();
    mix::launch(dev, cfg(n), &mut out, &da, &db, k).unwrap();
    let want: Vec<T> = a.iter().zip(&b).map(|(x, y)| mix_host(*x, *y, k)).collect();
    assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
}

#[test]
fn int_kernel_is_bit_exact_for_u32_i64_u8_i16() {
    let n = 777;
    let mut rng = Rng::new(13);
    let edge = |i: usize, r: u64| -> u64 {
        if i.is_multiple_of(17) {
            u64::MAX - (i as u64 % 3)
        } else if i.is_multiple_of(13) {
            0
        } else {
            r
        }
    };
    let raw: Vec<(u64, u64)> = (0..n)
        .map(|i| (edge(i, rng.next_u64()), edge(i + 5, rng.next_u64())))
        .collect();
    for dev in devices("int_kernel_is_bit_exact_for_u32_i64_u8_i16") {
        check_mix::<u32>(
            &dev,
            raw.iter().map(|p| p.0 as u32).collect(),
            raw.iter().map(|p| p.1 as u32).collect(),
            0xDEAD_BEEF,
        );
        check_mix::<i64>(
            &dev,
            raw.iter().map(|p| p.0 as i64).collect(),
            raw.iter().map(|p| p.1 as i64).collect(),
            i64::MIN + 1,
        );
        check_mix::<u8>(
            &dev,
            raw.iter().map(|p| p.0 as u8).collect(),
            raw.iter().map(|p| p.1 as u8).collect(),
            0xA5,
        );
        check_mix::<i16>(
            &dev,
            raw.iter().map(|p| p.0 as i16).collect(),
            raw.iter().map(|p| p.1 as i16).collect(),
            -12345,
        );
    }
}

#[test]
fn const_generic_block_sum_two_sizes_in_one_program() {
    let mut rng = Rng::new(14);
    let x: Vec<u32> = (0..4096).map(|_| rng.next_u32()).collect();
    let want = |b: usize| -> Vec<u32> {
        x.chunks(b)
            .map(|c| c.iter().fold(0u32, |s, v| s.wrapping_add(*v)))
            .collect()
    };
    for dev in devices("const_generic_block_sum_two_sizes_in_one_program") {
        let dx = dev.upload(&x).unwrap();
        let mut s256 = dev.upload(&[0xFFFF_FFFFu32; 16]).unwrap();
        block_sum::launch::<256>(&dev, LaunchConfig::new(16, 256), &mut s256, &dx).unwrap();
        let mut s64 = dev.upload(&vec![0xFFFF_FFFFu32; 64]).unwrap();
        block_sum::launch::<64>(&dev, LaunchConfig::new(64, 64), &mut s64, &dx).unwrap();
        assert_eq!(s256.download().unwrap(), want(256));
        assert_eq!(s64.download().unwrap(), want(64));
    }
}

#[test]
fn type_and_const_parameters_together() {
    let mut rng = Rng::new(15);
    let xi: Vec<i32> = (0..500).map(|_| rng.next_u32() as i32).collect();
    let xf: Vec<f64> = (0..500).map(|_| rng.range_f64(-1e3, 1e3)).collect();
    fn want<T: PartialOrd + Copy>(x: &[T], n: usize, poison: T) -> Vec<T> {
        (0..x.len())
            .map(|i| {
                if i + n > x.len() {
                    return poison;
                }
                x[i..i + n]
                    .iter()
                    .copied()
                    .fold(x[i], |m, v| if v > m { v } else { m })
            })
            .collect()
    }
    for dev in devices("type_and_const_parameters_together") {
        let dx = dev.upload(&xi).unwrap();
        let mut out = dev.upload(&vec![7i32; 500]).unwrap();
        window_max::launch::<i32, 5>(&dev, cfg(500), &mut out, &dx).unwrap();
        assert_eq!(out.download().unwrap(), want(&xi, 5, 7));
        let dx = dev.upload(&xf).unwrap();
        let mut out = dev.upload(&vec![0.5f64; 500]).unwrap();
        window_max::launch::<f64, 3>(&dev, cfg(500), &mut out, &dx).unwrap();
        assert_eq!(out.download().unwrap(), want(&xf, 3, 0.5));
    }
}

#[test]
fn generic_device_functions_from_generic_and_concrete_kernels() {
    let n = 400;
    let mut rng = Rng::new(16);
    let a64: Vec<f64> = (0..n).map(|_| rng.range_f64(-100.0, 100.0)).collect();
    let b64: Vec<f64> = (0..n).map(|_| rng.range_f64(-100.0, 100.0)).collect();
    let a32: Vec<f32> = a64.iter().map(|v| *v as f32).collect();
    let b32: Vec<f32> = b64.iter().map(|v| *v as f32).collect();
    let a16: Vec<f16> = a64.iter().map(|v| f16::from_f64(*v)).collect();
    let b16: Vec<f16> = b64.iter().map(|v| f16::from_f64(*v)).collect();
    let v16: Vec<u16> = (0..n).map(|_| rng.next_u32() as u16).collect();
    fn lerp_host<
        T: Copy + std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
    >(
        a: T,
        b: T,
        t: T,
    ) -> T {
        a + (b - a) * t
    }
    for dev in devices("generic_device_functions_from_generic_and_concrete_kernels") {
        let (da, db) = (dev.upload(&a64).unwrap(), dev.upload(&b64).unwrap());
        let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
        blend::launch(&dev, cfg(n), &mut out, &da, &db).unwrap();
        let want: Vec<f64> = a64
            .iter()
            .zip(&b64)
            .map(|(a, b)| lerp_host(lerp_host(*a, *b, 0.25), *b, 0.5))
            .collect();
        assert_eq!(out.download().unwrap(), want);

        let (da, db) = (dev.upload(&a16).unwrap(), dev.upload(&b16).unwrap());
        let mut out = dev.upload(&vec![f16::NAN; n]).unwrap();
        blend::launch(&dev, cfg(n), &mut out, &da, &db).unwrap();
        let (q, h) = (f16::from_f32(0.25), f16::from_f32(0.5));
        let want: Vec<f16> = a16
            .iter()
            .zip(&b16)
            .map(|(a, b)| lerp_host(lerp_host(*a, *b, q), *b, h))
            .collect();
        let got = out.download().unwrap();
        assert!(got
            .iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits()));

        let (da, db) = (dev.upload(&a32).unwrap(), dev.upload(&b32).unwrap());
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        blend_f32::launch(&dev, cfg(n), &mut out, &da, &db).unwrap();
        let want: Vec<f32> = a32
            .iter()
            .zip(&b32)
            .map(|(a, b)| lerp_host(lerp_host(*a, *b, 0.25), *b, 0.5))
            .collect();
        assert_eq!(out.download().unwrap(), want);

        let dv = dev.upload(&v16).unwrap();
        let mut out = dev.upload(&vec![0xBEEFu16; n]).unwrap();
        window_u16::launch(&dev, cfg(n), &mut out, &dv).unwrap();
        let want: Vec<u16> = (0..n)
            .map(|i| {
                if i + 2 < n {
                    v16[i].wrapping_add(v16[i + 1]).wrapping_add(v16[i + 2])
                } else {
                    0xBEEF
                }
            })
            .collect();
        assert_eq!(out.download().unwrap(), want);
    }
}

#[test]
fn nvrtc_compiles_every_instance() {
    common::nvrtc_compiles(&[
        ("float_methods::<f16>", float_methods::kernel::<f16>()),
        ("float_methods::<f32>", float_methods::kernel::<f32>()),
        ("float_methods::<f64>", float_methods::kernel::<f64>()),
        ("root::<f16>", root::kernel::<f16>()),
        ("root::<f64>", root::kernel::<f64>()),
        ("count_above::<i64>", count_above::kernel::<i64>()),
        ("count_above::<bool>", count_above::kernel::<bool>()),
        ("count_above::<f16>", count_above::kernel::<f16>()),
        ("show::<bool>", show::kernel::<bool>()),
        ("show_int::<i8>", show_int::kernel::<i8>()),
        ("show_int::<u64>", show_int::kernel::<u64>()),
        ("show::<f16>", show::kernel::<f16>()),
        ("show::<u64>", show::kernel::<u64>()),
        ("blend::<f16>", blend::kernel::<f16>()),
        ("blend::<f32>", blend::kernel::<f32>()),
        ("blend::<f64>", blend::kernel::<f64>()),
        ("blend_f32", &blend_f32::KERNEL),
        ("window_u16", &window_u16::KERNEL),
        ("axpy::<f16>", axpy::kernel::<f16>()),
        ("axpy::<f32>", axpy::kernel::<f32>()),
        ("axpy::<f64>", axpy::kernel::<f64>()),
        ("affine::<f16>", affine::kernel::<f16>()),
        ("affine::<f32>", affine::kernel::<f32>()),
        ("affine::<f64>", affine::kernel::<f64>()),
        ("mix::<i8>", mix::kernel::<i8>()),
        ("mix::<i16>", mix::kernel::<i16>()),
        ("mix::<i32>", mix::kernel::<i32>()),
        ("mix::<i64>", mix::kernel::<i64>()),
        ("mix::<isize>", mix::kernel::<isize>()),
        ("mix::<u8>", mix::kernel::<u8>()),
        ("mix::<u16>", mix::kernel::<u16>()),
        ("mix::<u32>", mix::kernel::<u32>()),
        ("mix::<u64>", mix::kernel::<u64>()),
        ("mix::<usize>", mix::kernel::<usize>()),
        ("block_sum::<64>", block_sum::kernel::<64>()),
        ("block_sum::<256>", block_sum::kernel::<256>()),
        ("window_max::<bool, 2>", window_max::kernel::<bool, 2>()),
        ("window_max::<i32, 5>", window_max::kernel::<i32, 5>()),
        ("window_max::<f16, 4>", window_max::kernel::<f16, 4>()),
        ("window_max::<f64, 3>", window_max::kernel::<f64, 3>()),
    ]);
}

#[test]
fn each_instance_is_its_own_definition_built_once() {
    // The same instance is the same definition (so the in-memory cache, keyed by its
    // source's address, finds it); another instance is another, with its own entry.
    assert!(std::ptr::eq(axpy::kernel::<f32>(), axpy::kernel::<f32>()));
    assert!(!std::ptr::eq(axpy::kernel::<f32>(), axpy::kernel::<f64>()));
    assert_ne!(axpy::kernel::<f32>().entry, axpy::kernel::<f64>().entry);
    assert!(std::ptr::eq(
        block_sum::kernel::<64>(),
        block_sum::kernel::<64>()
    ));
    assert!(!std::ptr::eq(
        block_sum::kernel::<64>(),
        block_sum::kernel::<256>()
    ));
    // Const parameters reach the C as the constants' values, so the sources differ.
    assert_ne!(
        block_sum::cuda_source::<64>(),
        block_sum::cuda_source::<256>()
    );
    assert!(axpy::cuda_source::<f64>().contains("double"));
    assert!(!axpy::cuda_source::<f32>().contains("double* __restrict__ y"));
}

#[test]
fn printing_a_type_parameter_prints_as_its_instance() {
    use warpspeed::__private::capture_sim_prints;
    let dev = Device::simulator();
    let f = dev.upload(&[1.5f32, 1e20, -0.0, 3.0]).unwrap();
    let b = dev.upload(&[true, false]).unwrap();
    let cfg1 = LaunchConfig::new(1, 1);
    let (_, generic) = capture_sim_prints(|| {
        show::launch(&dev, cfg1, &f).unwrap();
        show::launch(&dev, cfg1, &b).unwrap();
        dev.synchronize().unwrap();
    });
    let (_, concrete) = capture_sim_prints(|| {
        show_f32::launch(&dev, cfg1, &f).unwrap();
        show_bool::launch(&dev, cfg1, &b).unwrap();
        dev.synchronize().unwrap();
    });
    assert_eq!(generic, concrete);
    assert_eq!(generic, "[1.5] [    1.5]\n[true] [true   ]\n");
    let x = dev.upload(&[-42i32, 7]).unwrap();
    let cfg2 = LaunchConfig::new(1, 2);
    let (_, generic) = capture_sim_prints(|| {
        show_int::launch(&dev, cfg2, &x).unwrap();
        dev.synchronize().unwrap();
    });
    let (_, concrete) = capture_sim_prints(|| {
        show_i32::launch(&dev, cfg2, &x).unwrap();
        dev.synchronize().unwrap();
    });
    assert_eq!(generic, concrete);
    assert!(generic.contains("[-42] [   -42] [-00042]"), "{generic}");
}

#[test]
fn options_lengths_and_atomics_in_a_generic_kernel() {
    let n: usize = 1000;
    let mut rng = Rng::new(19);
    let xi: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
    let xb: Vec<bool> = (0..n).map(|_| rng.next_u32().is_multiple_of(3)).collect();
    let xh: Vec<f16> = (0..n)
        .map(|_| f16::from_f32(rng.range_f32(-5.0, 5.0)))
        .collect();
    let limit = f16::from_f32(1.25);
    for dev in devices("options_lengths_and_atomics_in_a_generic_kernel") {
        let launch = LaunchConfig::new(n.div_ceil(64) as u32, 64);
        let x = dev.upload(&xi).unwrap();
        let mut hits = dev.upload(&[0u32]).unwrap();
        count_above::launch(&dev, launch, &x, 12345i64, &mut hits, n).unwrap();
        let want = xi.iter().filter(|v| **v > 12345).count() as u32;
        assert_eq!(hits.download().unwrap(), vec![want]);

        let x = dev.upload(&xb).unwrap();
        let mut hits = dev.upload(&[0u32]).unwrap();
        count_above::launch(&dev, launch, &x, false, &mut hits, n).unwrap();
        assert_eq!(
            hits.download().unwrap(),
            vec![xb.iter().filter(|v| **v).count() as u32]
        );

        let x = dev.upload(&xh).unwrap();
        let mut hits = dev.upload(&[0u32]).unwrap();
        count_above::launch(&dev, launch, &x, limit, &mut hits, n).unwrap();
        assert_eq!(
            hits.download().unwrap(),
            vec![xh.iter().filter(|v| **v > limit).count() as u32]
        );

        // The declared length and the declared block shape are checked at launch.
        let err = count_above::launch(&dev, launch, &x, limit, &mut hits, n + 1).unwrap_err();
        assert!(err.to_string().contains("count_above"), "{err}");
        let wide = LaunchConfig::new(8, 128);
        assert!(count_above::launch(&dev, wide, &x, limit, &mut hits, n).is_err());
    }
}
