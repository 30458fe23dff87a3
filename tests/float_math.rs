//! Every `Float` method in a kernel generic over `T: Float` (issue 20, item 3), launched for
//! `f16`, `bf16`, `f32` and `f64` on random data, on the simulator and on the GPU where there is
//! one, outputs poisoned first.
//!
//! References: `f32`/`f64` are Rust's std methods. `f16` is CUDA's half math: the `f32`
//! function of the widened value rounded once to `f16` (docs/semantics.md, "Half
//! precision"), so its reference is the `f32` reference rounded with `f16::from_f32`; the
//! predicates, `next_up` and `next_down` are `f16`'s own (its subnormals, its next value).
//! `bf16` likewise, with `bf16::from_f32` and bf16's own bits.
//!
//! Exactness: the simulator is bit-exact for every instance (NaN payloads aside). On the GPU
//! the exact methods are bit-exact and the transcendentals are CUDA's: within CUDA's bound
//! plus the CPU library's own error for `f32`/`f64`, and within 1 `f16` ulp for `f16` (the
//! two `f32` results may straddle a halfway point between two `f16`s).

use warpspeed::prelude::*;
use warpspeed::{bf16, f16, Backend, LaunchConfig};

mod common;
use common::{devices, Rng};

/// Outputs per element; the first `TRANS` are the transcendentals.
const K: usize = 41;
const TRANS: usize = 26;
/// The output of `u.atanh()`.
const ATANH: usize = 25;
/// Flags per element (the predicates), one bit each.
const PREDICATES: usize = 7;

/// `a`, `b`: any value; `p`: positive; `u`: in (-1, 1); `q`: in [1.5, 5).
#[gpu_kernel]
fn float_math<T: Float>(
    out: &mut [T],
    flags: &mut [u32],
    a: &[T],
    b: &[T],
    p: &[T],
    u: &[T],
    q: &[T],
) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let (a, b, p, u, q) = (a[i], b[i], p[i], u[i], q[i]);
    let o = K * i;
    out[o] = a.exp();
    out[o + 1] = a.exp2();
    out[o + 2] = a.exp_m1();
    out[o + 3] = p.ln();
    out[o + 4] = p.log2();
    out[o + 5] = p.log10();
    out[o + 6] = p.ln_1p();
    out[o + 7] = p.log(q);
    out[o + 8] = p.powf(b);
    out[o + 9] = a.cbrt();
    out[o + 10] = a.hypot(b);
    out[o + 11] = a.sin();
    out[o + 12] = a.cos();
    let (s, c) = a.sin_cos();
    out[o + 13] = s;
    out[o + 14] = c;
    out[o + 15] = a.tan();
    out[o + 16] = u.asin();
    out[o + 17] = u.acos();
    out[o + 18] = a.atan();
    out[o + 19] = a.atan2(b);
    out[o + 20] = a.sinh();
    out[o + 21] = a.cosh();
    out[o + 22] = a.tanh();
    out[o + 23] = a.asinh();
    out[o + 24] = q.acosh();
    out[o + 25] = u.atanh();
    out[o + 26] = p.sqrt();
    out[o + 27] = a.mul_add(b, p);
    out[o + 28] = a.recip();
    out[o + 29] = a.powi(3);
    out[o + 30] = a.round_ties_even();
    out[o + 31] = a.fract();
    out[o + 32] = a.div_euclid(b);
    out[o + 33] = a.rem_euclid(b);
    out[o + 34] = a.to_degrees();
    out[o + 35] = a.to_radians();
    out[o + 36] = a.next_up();
    out[o + 37] = a.next_down();
    out[o + 38] = a.signum();
    out[o + 39] = p.copysign(b);
    out[o + 40] = a.clamp(T::from_f32(-1.5), T::from_f32(2.25));
    flags[i] = a.is_nan() as u32
        | (a.is_infinite() as u32) << 1
        | (a.is_finite() as u32) << 2
        | (a.is_normal() as u32) << 3
        | (a.is_subnormal() as u32) << 4
        | (a.is_sign_positive() as u32) << 5
        | (a.is_sign_negative() as u32) << 6;
}

/// The reference for `f32` or `f64`: std's methods, in the kernel's order.
macro_rules! reference {
    ($a:expr, $b:expr, $p:expr, $u:expr, $q:expr) => {{
        let (a, b, p, u, q) = ($a, $b, $p, $u, $q);
        let (s, c) = a.sin_cos();
        let out = [
            a.exp(),
            a.exp2(),
            a.exp_m1(),
            p.ln(),
            p.log2(),
            p.log10(),
            p.ln_1p(),
            p.log(q),
            p.powf(b),
            a.cbrt(),
            a.hypot(b),
            a.sin(),
            a.cos(),
            s,
            c,
            a.tan(),
            u.asin(),
            u.acos(),
            a.atan(),
            a.atan2(b),
            a.sinh(),
            a.cosh(),
            a.tanh(),
            a.asinh(),
            q.acosh(),
            u.atanh(),
            p.sqrt(),
            a.mul_add(b, p),
            a.recip(),
            a.powi(3),
            a.round_ties_even(),
            a.fract(),
            a.div_euclid(b),
            a.rem_euclid(b),
            a.to_degrees(),
            a.to_radians(),
            a.next_up(),
            a.next_down(),
            a.signum(),
            p.copysign(b),
            a.clamp(-1.5, 2.25),
        ];
        let flags = [
            a.is_nan(),
            a.is_infinite(),
            a.is_finite(),
            a.is_normal(),
            a.is_subnormal(),
            a.is_sign_positive(),
            a.is_sign_negative(),
        ];
        (out, flags)
    }};
}

fn pack(flags: [bool; PREDICATES]) -> u32 {
    flags
        .iter()
        .enumerate()
        .fold(0, |acc, (k, f)| acc | (*f as u32) << k)
}

/// A float as an integer that orders as the value does (adjacent floats differ by 1);
/// `None` for NaN.
trait Ordered: Copy {
    fn ordered(self) -> Option<i64>;
    fn bits(self) -> u64;
}
impl Ordered for f16 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn ordered(self) -> Option<i64> {
        let b = self.to_bits() as i64;
        (!self.is_nan()).then_some(if b & 0x8000 != 0 { -(b & 0x7fff) } else { b })
    }
}
impl Ordered for bf16 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn ordered(self) -> Option<i64> {
        let b = self.to_bits() as i64;
        (!self.is_nan()).then_some(if b & 0x8000 != 0 { -(b & 0x7fff) } else { b })
    }
}
impl Ordered for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn ordered(self) -> Option<i64> {
        let b = self.to_bits() as i64;
        (!self.is_nan()).then_some(if b & 0x8000_0000 != 0 {
            -(b & 0x7fff_ffff)
        } else {
            b
        })
    }
}
impl Ordered for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn ordered(self) -> Option<i64> {
        let b = self.to_bits();
        let m = (b & 0x7fff_ffff_ffff_ffff) as i64;
        (!self.is_nan()).then_some(if b >> 63 != 0 { -m } else { m })
    }
}

/// The ulps between `got` and `want` (0 for two NaNs, `u64::MAX` for a NaN and a number).
fn ulps<T: Ordered>(got: T, want: T) -> u64 {
    match (got.ordered(), want.ordered()) {
        (None, None) => 0,
        (Some(g), Some(w)) => g.abs_diff(w),
        _ => u64::MAX,
    }
}

/// Checks one instance's outputs: bit-exact (NaN payloads aside) except the
/// transcendentals on the GPU, within `gpu_ulps`.
fn check<T: Ordered + std::fmt::Debug>(
    what: &str,
    backend: Backend,
    got: &[T],
    want: &[T],
    gpu_ulps: u64,
) {
    let mut worst = 0;
    for (j, (g, w)) in got.iter().zip(want).enumerate() {
        let k = j % K;
        let allowed = if k < TRANS && backend == Backend::Cuda {
            gpu_ulps
        } else {
            0
        };
        // Exact: the same bits, or two NaNs (whose payloads may differ).
        let d = match ulps(*g, *w) {
            0 if allowed == 0 && g.ordered().is_some() && g.bits() != w.bits() => 1,
            d => d,
        };
        if k < TRANS {
            worst = worst.max(d);
        }
        assert!(
            d <= allowed,
            "{what} on {backend:?}: element {}, method #{k}: got {g:?}, want {w:?} ({d} ulps, {allowed} allowed)",
            j / K
        );
    }
    println!("{what} on {backend:?}: transcendentals at most {worst} ulps from the reference");
}

struct Inputs {
    a: Vec<f64>,
    b: Vec<f64>,
    p: Vec<f64>,
    u: Vec<f64>,
    q: Vec<f64>,
}

/// Random values, and at the front the edges: zeros, infinities, NaN, an `f16` subnormal,
/// values near `f16::MAX`, halves (for `round_ties_even`).
fn inputs(n: usize) -> Inputs {
    let mut rng = Rng::new(2026);
    let edges = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        3.0e-6,
        -3.0e-6,
        60000.0,
        -65504.0,
        2.5,
        -0.5,
        1.0,
    ];
    let mut a: Vec<f64> = edges.to_vec();
    a.extend((edges.len()..n).map(|_| rng.range_f64(-6.0, 6.0)));
    let b = (0..n)
        .map(|k| match k % 17 {
            0 => 0.0,
            1 => -2.0,
            _ => rng.range_f64(-4.0, 4.0),
        })
        .collect();
    Inputs {
        a,
        b,
        p: (0..n).map(|_| rng.range_f64(0.001, 8.0)).collect(),
        u: (0..n).map(|_| rng.range_f64(-0.999, 0.999)).collect(),
        q: (0..n).map(|_| rng.range_f64(1.5, 5.0)).collect(),
    }
}

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::new((n as u32).div_ceil(64), 64)
}

/// Uploads the inputs as `T`, runs the `T` instance, and gives back the outputs and flags.
fn run<T: Float>(dev: &warpspeed::Device, x: &Inputs, of: impl Fn(f64) -> T) -> (Vec<T>, Vec<u32>) {
    let n = x.a.len();
    let up = |v: &[f64]| {
        let v: Vec<T> = v.iter().map(|v| of(*v)).collect();
        dev.upload(&v).unwrap()
    };
    let (a, b, p, u, q) = (up(&x.a), up(&x.b), up(&x.p), up(&x.u), up(&x.q));
    let mut out = dev.upload(&vec![of(f64::NAN); K * n]).unwrap();
    let mut flags = dev.upload(&vec![0xdead_beef_u32; n]).unwrap();
    float_math::launch(dev, cfg(n), &mut out, &mut flags, &a, &b, &p, &u, &q).unwrap();
    (out.download().unwrap(), flags.download().unwrap())
}

#[test]
fn float_methods_on_f32_and_f64_are_std() {
    let x = inputs(512);
    let n = x.a.len();
    for dev in devices("float_methods_on_f32_and_f64_are_std") {
        let (got, flags) = run::<f32>(&dev, &x, |v| v as f32);
        let mut want = Vec::new();
        let mut want_flags = Vec::new();
        let gpu = dev.backend() == Backend::Cuda;
        for i in 0..n {
            let f = |v: &[f64]| v[i] as f32;
            let (mut o, fl) = reference!(f(&x.a), f(&x.b), f(&x.p), f(&x.u), f(&x.q));
            if gpu {
                // The GPU's transcendentals against the exact value (the same f32 inputs,
                // computed in f64 and rounded), not against std's f32 functions: some of
                // those are formulas whose own error is large (std's `f32::atanh` is
                // `0.5 * ln_1p(2x / (1 - x))`, off by tens of ulps near +-1; the H100 run
                // of 2026-11-27 found 7 ulps between it and CUDA's `atanhf`).
                let w = |v: &[f64]| v[i] as f32 as f64;
                let (exact, _) = reference!(w(&x.a), w(&x.b), w(&x.p), w(&x.u), w(&x.q));
                for k in 0..TRANS {
                    o[k] = exact[k] as f32;
                }
            }
            want.extend(o);
            want_flags.push(pack(fl));
        }
        // On the GPU: CUDA's largest f32 bound in the table is 4 ulps, plus the rounding
        // of the f64 value. The simulator calls std's own functions: exact.
        check("f32", dev.backend(), &got, &want, 5);
        assert_eq!(flags, want_flags, "f32 predicates on {:?}", dev.backend());

        let (got, flags) = run::<f64>(&dev, &x, |v| v);
        let mut want = Vec::new();
        let mut want_flags = Vec::new();
        for i in 0..n {
            let (mut o, fl) = reference!(x.a[i], x.b[i], x.p[i], x.u[i], x.q[i]);
            if gpu {
                // std's `f64::atanh` is the same ill-conditioned formula as its f32 one (the
                // H100 run of 2026-11-27: 8 ulps from CUDA's `atanh` near -1); the GPU is
                // checked against `(ln_1p(u) - ln_1p(-u)) / 2`, whose terms never cancel.
                let u = x.u[i];
                o[ATANH] = 0.5 * (u.ln_1p() - (-u).ln_1p());
            }
            want.extend(o);
            want_flags.push(pack(fl));
        }
        // CUDA's largest f64 bound is 3 ulps; std's own functions (atanh's stand-in
        // included) add up to 3.
        check("f64", dev.backend(), &got, &want, 6);
        assert_eq!(flags, want_flags, "f64 predicates on {:?}", dev.backend());
    }
}

/// Every non-NaN `f16` in value order (one zero), for the reference `next_up`/`next_down`.
fn all_f16() -> Vec<f16> {
    let mut v: Vec<f16> = (0..=0xffffu16)
        .map(f16::from_bits)
        .filter(|h| !h.is_nan() && h.to_bits() != 0x8000)
        .collect();
    v.sort_by(|a, b| a.to_f64().total_cmp(&b.to_f64()));
    v
}

#[test]
fn float_methods_on_f16_are_the_f32_function_rounded_once() {
    let x = inputs(512);
    let n = x.a.len();
    let table = all_f16();
    let next = |h: f16, up: bool| -> f16 {
        if h.is_nan() || (up && h == f16::INFINITY) || (!up && h == f16::NEG_INFINITY) {
            return h;
        }
        let at = table.partition_point(|v| v.to_f64() <= h.to_f64());
        if up {
            table[at]
        } else {
            let below = table.partition_point(|v| v.to_f64() < h.to_f64());
            table[below - 1]
        }
    };
    for dev in devices("float_methods_on_f16_are_the_f32_function_rounded_once") {
        let (got, flags) = run::<f16>(&dev, &x, f16::from_f64);
        let mut want = Vec::new();
        let mut want_flags = Vec::new();
        for i in 0..n {
            // The f16 inputs, widened: the f32 functions see exactly these.
            let h = |v: &[f64]| f16::from_f64(v[i]);
            let w = |v: &[f64]| h(v).to_f32();
            let (o, _) = reference!(w(&x.a), w(&x.b), w(&x.p), w(&x.u), w(&x.q));
            let mut o: Vec<f16> = o.iter().map(|v| f16::from_f32(*v)).collect();
            let a = h(&x.a);
            o[36] = next(a, true);
            o[37] = next(a, false);
            // -0.0 counts as 0.0's neighbour below, as std's next_down of 0.0 is negative.
            if a.to_f64() == 0.0 {
                o[36] = f16::from_bits(1);
                o[37] = f16::from_bits(0x8001);
            } else if a.to_bits() == 0x8001 {
                o[36] = f16::from_bits(0x8000);
            } else if a.to_bits() == 0x0001 {
                o[37] = f16::from_bits(0);
            }
            want.extend(o);
            let sub = a.classify() == std::num::FpCategory::Subnormal;
            want_flags.push(pack([
                a.is_nan(),
                a.is_infinite(),
                a.is_finite(),
                a.is_normal(),
                sub,
                a.is_sign_positive(),
                a.is_sign_negative(),
            ]));
        }
        // Exact on the simulator; the GPU's f32 functions may land across a halfway point.
        check("f16", dev.backend(), &got, &want, 1);
        assert_eq!(flags, want_flags, "f16 predicates on {:?}", dev.backend());
    }
}

/// `bf16` (one of `Float`'s types): as `f16`, the f32 function rounded once, with bf16's
/// own bits (f32's range) for the predicates and the neighbours.
#[test]
fn float_methods_on_bf16_are_the_f32_function_rounded_once() {
    let x = inputs(512);
    let n = x.a.len();
    // The neighbour in value order, by the ordered bits (std's: 0.0's neighbours are the
    // smallest subnormals, -2^-133 goes up to -0.0 and 2^-133 down to 0.0).
    let next = |h: bf16, up: bool| -> bf16 {
        if h.is_nan() || (up && h == bf16::INFINITY) || (!up && h == bf16::NEG_INFINITY) {
            return h;
        }
        let o = h.ordered().unwrap_or(0) + if up { 1 } else { -1 };
        match o {
            0 if up => bf16::from_bits(0x8000),
            0 => bf16::from_bits(0),
            o if o > 0 => bf16::from_bits(o as u16),
            o => bf16::from_bits(0x8000 | (-o) as u16),
        }
    };
    for dev in devices("float_methods_on_bf16_are_the_f32_function_rounded_once") {
        let (got, flags) = run::<bf16>(&dev, &x, warpspeed::bf16_from_f64);
        let mut want = Vec::new();
        let mut want_flags = Vec::new();
        for i in 0..n {
            let h = |v: &[f64]| warpspeed::bf16_from_f64(v[i]);
            let w = |v: &[f64]| h(v).to_f32();
            let (o, _) = reference!(w(&x.a), w(&x.b), w(&x.p), w(&x.u), w(&x.q));
            let mut o: Vec<bf16> = o.iter().map(|v| bf16::from_f32(*v)).collect();
            let a = h(&x.a);
            o[36] = next(a, true);
            o[37] = next(a, false);
            want.extend(o);
            let sub = a.to_bits() & 0x7fff != 0 && a.to_bits() & 0x7fff < 0x0080;
            want_flags.push(pack([
                a.is_nan(),
                a.is_infinite(),
                a.is_finite(),
                a.is_normal(),
                sub,
                a.is_sign_positive(),
                a.is_sign_negative(),
            ]));
        }
        // Exact on the simulator; the GPU's f32 functions may land across a halfway point.
        check("bf16", dev.backend(), &got, &want, 1);
        assert_eq!(flags, want_flags, "bf16 predicates on {:?}", dev.backend());
    }
}

/// NVRTC compiles each instance, whose C has no header: CUDA's f32 functions and the
/// prelude's f16 helpers only.
#[test]
fn nvrtc_compiles_every_float_instance() {
    let instances = [
        ("float_math::<f16>", float_math::kernel::<f16>()),
        ("float_math::<bf16>", float_math::kernel::<bf16>()),
        ("float_math::<f32>", float_math::kernel::<f32>()),
        ("float_math::<f64>", float_math::kernel::<f64>()),
        ("half_concrete", half_concrete::kernel()),
    ];
    for (name, k) in instances {
        assert!(!k.source.as_str().contains("#include"), "{name}");
    }
    common::nvrtc_compiles(&instances);
}

/// A concrete `f16` kernel calls the same methods (`sin_cos`, `mul_add`, `to_bits`, ...).
#[gpu_kernel]
fn half_concrete(out: &mut [f16], bits: &mut [u16], x: &[f16]) {
    let i = grid_1d();
    if i < x.len() {
        let v = x[i];
        let (s, c) = v.sin_cos();
        out[4 * i] = v.exp();
        out[4 * i + 1] = s;
        out[4 * i + 2] = c;
        out[4 * i + 3] = v.mul_add(v, v.recip());
        bits[i] = v.next_up().to_bits();
    }
}

#[test]
fn concrete_f16_kernels_have_the_methods_too() {
    let n = 300;
    let mut rng = Rng::new(7);
    let x: Vec<f16> = (0..n)
        .map(|_| f16::from_f64(rng.range_f64(-8.0, 8.0)))
        .collect();
    let r = |v: f32| f16::from_f32(v);
    let mut want = Vec::new();
    for v in &x {
        let w = v.to_f32();
        let (s, c) = (r(w.sin()), r(w.cos()));
        let m = r(w.mul_add(w, r(w.recip()).to_f32()));
        want.extend([r(w.exp()), s, c, m]);
    }
    for dev in devices("concrete_f16_kernels_have_the_methods_too") {
        let xs = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![f16::NAN; 4 * n]).unwrap();
        let mut bits = dev.upload(&vec![0xbeef_u16; n]).unwrap();
        half_concrete::launch(&dev, cfg(n), &mut out, &mut bits, &xs).unwrap();
        let got = out.download().unwrap();
        for (j, (g, w)) in got.iter().zip(&want).enumerate() {
            // exp, sin and cos are transcendentals; the fma is exact.
            let gpu = dev.backend() == Backend::Cuda && j % 4 != 3;
            let allowed = if gpu { 1 } else { 0 };
            assert!(
                ulps(*g, *w) <= allowed,
                "element {j} on {:?}: {g:?} vs {w:?}",
                dev.backend()
            );
        }
        let want_bits: Vec<u16> = x
            .iter()
            .map(|v| {
                let b = v.to_bits();
                match (b & 0x7fff, b & 0x8000) {
                    (0, _) => 1,
                    (_, 0) => b + 1,
                    _ => b - 1,
                }
            })
            .collect();
        assert_eq!(bits.download().unwrap(), want_bits, "{:?}", dev.backend());
    }
}

/// `asinh`/`acosh` of huge arguments: std's f32 (and f64) versions compute `|x| + |x| /
/// (..)`, infinite near the top of the range although the result is about 89 (710 for f64);
/// CUDA's do not overflow, and neither does the simulator (it takes `ln(2|x|)` from 2^64,
/// exact to the type's precision there).
#[gpu_kernel]
fn huge_hyperbolics(x: &[f32], y: &[f64], out: &mut [f32], out64: &mut [f64]) {
    let i = grid_1d();
    if i < x.len() {
        out[2 * i] = x[i].asinh();
        out[2 * i + 1] = x[i].abs().acosh();
        out64[2 * i] = y[i].asinh();
        out64[2 * i + 1] = y[i].abs().acosh();
    }
}

#[test]
fn asinh_and_acosh_of_huge_arguments_do_not_overflow() {
    let x = [3.0e38f32, -3.4e38, f32::MAX, 1.8e19, 1.0e10, -2.5];
    let y = [1.0e308f64, -f64::MAX, 1.0e200, 1.9e19, -2.5, 7.0];
    for dev in devices("asinh_and_acosh_of_huge_arguments_do_not_overflow") {
        let (dx, dy) = (dev.upload(&x).unwrap(), dev.upload(&y).unwrap());
        let mut out = dev.upload(&[f32::NAN; 12]).unwrap();
        let mut out64 = dev.upload(&[f64::NAN; 12]).unwrap();
        huge_hyperbolics::launch(&dev, cfg(6), &dx, &dy, &mut out, &mut out64).unwrap();
        let (out, out64) = (out.download().unwrap(), out64.download().unwrap());
        for i in 0..6 {
            // The reference in f64 (f32 cases) and by ln(2|x|) + 1/(4x^2) (f64 cases).
            let (a, c) = (f64::from(x[i]).asinh(), f64::from(x[i].abs()).acosh());
            for (got, want) in [(out[2 * i], a), (out[2 * i + 1], c)] {
                let err = (f64::from(got) - want).abs() / want.abs();
                assert!(
                    err < 1e-6,
                    "{:?}: f32 {} gave {got}, want {want}",
                    dev.backend(),
                    x[i]
                );
            }
            let big = y[i].abs();
            let want = if big > 1e10 {
                (big.ln() + std::f64::consts::LN_2).copysign(y[i])
            } else {
                y[i].asinh()
            };
            let err = (out64[2 * i] - want).abs() / want.abs();
            assert!(
                err < 1e-14,
                "{:?}: f64 asinh {} gave {}",
                dev.backend(),
                y[i],
                out64[2 * i]
            );
            assert!(out64[2 * i + 1].is_finite() && out64[2 * i + 1] > 0.0);
        }
    }
}
