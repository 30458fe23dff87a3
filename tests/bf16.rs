//! bfloat16 (`warpspeed::bf16`, `bf16x2`, CUDA's `__nv_bfloat16`/`__nv_bfloat162`):
//! conversions, arithmetic and comparisons bit for bit as the `half` crate computes them
//! (and as the correctly rounded bf16 operation, which the f32-then-round helpers equal),
//! every float method within the documented bound, the bf16 atomics with many threads on
//! few addresses, and a generic kernel's `bf16` instance; on the simulator and on the GPU
//! where there is one, outputs poisoned first. The NVRTC checks compile every kernel for
//! sm_75 (no bf16 instructions: the compare-and-swap atomics), sm_80 and sm_90 (the
//! native `atom.add.noftz.bf16`).

mod common;

use common::{devices, Rng};
use core::sync::atomic::Ordering;
use warpspeed::prelude::*;
use warpspeed::{bf16, bf16_from_f64, bf16x2, AtomicBf16, AtomicBf16x2, Backend, LaunchConfig};

/// Outputs per element of `bf16_ops`.
const OPS: usize = 7;

/// Per element: `+ - * / %`, negation, a compound chain, and the six comparisons as bits.
#[gpu_kernel]
fn bf16_ops(a: &[bf16], b: &[bf16], out: &mut [bf16], flags: &mut [u32]) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let x = a[i];
    let y = b[i];
    out[OPS * i] = x + y;
    out[OPS * i + 1] = x - y;
    out[OPS * i + 2] = x * y;
    out[OPS * i + 3] = x / y;
    out[OPS * i + 4] = x % y;
    out[OPS * i + 5] = -x;
    let mut acc = x;
    acc += y;
    acc *= y;
    acc -= x;
    acc /= y;
    out[OPS * i + 6] = acc;
    flags[i] = (x < y) as u32
        | ((x == y) as u32) << 1
        | ((x >= y) as u32) << 2
        | ((x != y) as u32) << 3
        | ((x <= y) as u32) << 4
        | ((x > y) as u32) << 5;
}

#[gpu_kernel]
fn bf16_convert(
    xs: &[f32],
    ds: &[f64],
    out: &mut [bf16],
    back: &mut [f32],
    back64: &mut [f64],
    bits: &mut [u16],
) {
    let i = grid_1d();
    if i >= xs.len() {
        return;
    }
    let h = bf16::from_f32(xs[i]);
    let d = bf16::from_f64(ds[i]);
    out[2 * i] = h;
    out[2 * i + 1] = d;
    back[i] = h.to_f32();
    back64[i] = d.to_f64();
    bits[i] = h.to_bits();
}

/// The conversions under `fast_math` (ftz): integer code and asm, so subnormals stay.
#[gpu_kernel(fast_math)]
fn bf16_convert_fast(xs: &[f32], ds: &[f64], out: &mut [bf16], back64: &mut [f64]) {
    let i = grid_1d();
    if i >= xs.len() {
        return;
    }
    out[2 * i] = bf16::from_f32(xs[i]);
    out[2 * i + 1] = bf16::from_f64(ds[i]);
    back64[i] = out[2 * i].to_f64();
}

/// Every bf16 bit pattern widened, and narrowed back from f32.
#[gpu_kernel]
fn bf16_widen(h: &[bf16], out: &mut [f32], out64: &mut [f64], back: &mut [bf16]) {
    let i = grid_1d();
    if i < h.len() {
        out[i] = h[i].to_f32();
        out64[i] = h[i].to_f64();
        back[i] = bf16::from_f32(out[i]);
    }
}

/// `bf16x2::new`, `lo`, `hi` and `+ - *` on each half.
#[gpu_kernel]
fn bf16x2_ops(a: &[bf16], b: &[bf16], out: &mut [bf16x2], halves: &mut [bf16]) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let p = bf16x2::new(a[i], b[i]);
    let q = bf16x2::new(b[i], a[i]);
    out[3 * i] = p + q;
    out[3 * i + 1] = p - q;
    out[3 * i + 2] = p * q;
    let mut r = p;
    r *= q;
    halves[2 * i] = r.lo();
    halves[2 * i + 1] = r.hi();
}

/// Outputs per element of `bf16_math`; the first `TRANS` are the transcendentals.
const K: usize = 48;
const TRANS: usize = 26;

/// Every float method on `bf16` (the concrete rows: `a.exp()` is `ws_bf16_exp` in C and
/// `Float::exp` on the simulator). `a`, `b`: any value; `p`: positive; `u`: in (-1, 1);
/// `q`: in [1.5, 5).
#[gpu_kernel]
fn bf16_math(
    out: &mut [bf16],
    flags: &mut [u32],
    a: &[bf16],
    b: &[bf16],
    p: &[bf16],
    u: &[bf16],
    q: &[bf16],
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
    out[o + 40] = a.clamp(bf16::from_f32(-1.5), bf16::from_f32(2.25));
    out[o + 41] = a.abs();
    out[o + 42] = a.min(b);
    out[o + 43] = a.max(b);
    out[o + 44] = a.floor();
    out[o + 45] = a.ceil();
    out[o + 46] = a.round();
    out[o + 47] = a.trunc();
    flags[i] = a.is_nan() as u32
        | (a.is_infinite() as u32) << 1
        | (a.is_finite() as u32) << 2
        | (a.is_normal() as u32) << 3
        | (a.is_subnormal() as u32) << 4
        | (a.is_sign_positive() as u32) << 5
        | (a.is_sign_negative() as u32) << 6;
}

/// Many threads on few addresses: `acc[i % 8]`, `acc2[i % 8]`, a shared `local[i % 8]`
/// folded into `acc[8 + t]`, and swaps on `acc[16]`/`acc[17]`.
#[gpu_kernel]
fn bf16_atomics(vals: &[bf16], acc: &[AtomicBf16], acc2: &[AtomicBf16x2], olds: &mut [bf16]) {
    let local = SharedArray::<AtomicBf16, 8>::new();
    let t = thread_idx().x as usize;
    if t < 8 {
        local[t].store(bf16::from_f32(0.0), Ordering::Relaxed);
    }
    sync_threads();
    let i = grid_1d();
    if i < vals.len() {
        let v = vals[i];
        acc[i % 8].fetch_add(v, Ordering::Relaxed);
        acc2[i % 8].fetch_add(bf16x2::new(v, -v), Ordering::AcqRel);
        local[i % 8].fetch_add(v, Ordering::Relaxed);
        olds[i] = acc[16 + i % 2].swap(v, Ordering::AcqRel);
    }
    sync_threads();
    if t < 8 {
        acc[8 + t].fetch_add(local[t].load(Ordering::Relaxed), Ordering::SeqCst);
    }
}

/// One thread adds `vals` in order (each sum rounded: ties, subnormals), keeping the old
/// values, and tries two compare-and-swaps.
#[gpu_kernel]
fn bf16_atomic_rounding(
    vals: &[bf16],
    acc: &[AtomicBf16],
    acc2: &[AtomicBf16x2],
    olds: &mut [bf16],
    cas: &mut [u32],
) {
    if grid_1d() != 0 {
        return;
    }
    for j in 0..vals.len() {
        olds[j] = acc[0].fetch_add(vals[j], Ordering::Relaxed);
        acc2[0].fetch_add(bf16x2::new(vals[j], vals[j]), Ordering::SeqCst);
    }
    let one = bf16::from_f32(1.0);
    let two = bf16::from_f32(2.0);
    let first = acc[1]
        .compare_exchange(one, two, Ordering::SeqCst, Ordering::Relaxed)
        .is_ok();
    let second = acc[1]
        .compare_exchange(one, two, Ordering::SeqCst, Ordering::Relaxed)
        .is_ok();
    cas[0] = first as u32 | (second as u32) << 1;
}

/// A generic kernel: its `bf16` instance (`Float` covers bf16).
#[gpu_kernel]
fn axpy<T: Float>(y: &mut [T], a: T, x: &[T]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] = a * x[i] + y[i] - T::from_f32(0.5);
    }
}

/// The same bits, or two NaNs (whose payloads the GPU's float arithmetic does not keep).
fn same(a: bf16, b: bf16) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Random bits: every class (normals, subnormals, zeros, infinities, NaNs).
fn random_bf16(rng: &mut Rng) -> bf16 {
    bf16::from_bits(rng.next_u32() as u16)
}

fn b(x: f32) -> bf16 {
    bf16::from_f32(x)
}

/// The correctly rounded bf16 result of an operation computed in f64: `+ - * /` of two
/// bf16s in f64 are exact or rounded once with 53 >= 2 * 8 + 2 bits, so rounding that to
/// bf16 is the correctly rounded bf16 operation.
fn exact_op(x: bf16, y: bf16, op: fn(f64, f64) -> f64) -> bf16 {
    bf16_from_f64(op(x.to_f64(), y.to_f64()))
}

#[test]
fn arithmetic_and_comparisons_are_the_correctly_rounded_bf16_ops() {
    let mut rng = Rng::new(0xbf16);
    // Ties: 256 + 1 (to even, 256), 258 + 1 (to 260), 1 + 2^-8 (to 1), subnormal sums,
    // overflow, MAX, NaN and infinities against numbers; then random bits.
    let mut a = vec![
        b(256.0),
        b(258.0),
        b(1.0),
        bf16::from_bits(0x0001),
        bf16::from_bits(0x007f),
        bf16::MAX,
        bf16::MAX,
        bf16::INFINITY,
        bf16::NAN,
        b(-0.0),
        b(3.0),
        b(1e-38),
    ];
    let mut bs = vec![
        b(1.0),
        b(1.0),
        b(0.00390625),
        bf16::from_bits(0x0001),
        bf16::from_bits(0x0001),
        bf16::MAX,
        b(0.5),
        bf16::NEG_INFINITY,
        b(1.0),
        b(0.0),
        b(7.0),
        b(1e-2),
    ];
    while a.len() < 8192 {
        a.push(random_bf16(&mut rng));
        bs.push(random_bf16(&mut rng));
    }
    let n = a.len();
    for dev in devices("bf16_arithmetic") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&bs).unwrap());
        let mut out = dev.upload(&vec![bf16::from_bits(0x7fa1); OPS * n]).unwrap();
        let mut flags = dev.upload(&vec![u32::MAX; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        bf16_ops::launch(&dev, cfg, &da, &db, &mut out, &mut flags).unwrap();
        let (out, flags) = (out.download().unwrap(), flags.download().unwrap());
        for i in 0..n {
            let (x, y) = (a[i], bs[i]);
            let want = [
                x + y,
                x - y,
                x * y,
                x / y,
                x % y,
                -x,
                (((x + y) * y) - x) / y,
            ];
            // The half crate's f32-then-round is the correctly rounded operation.
            let exact = [
                exact_op(x, y, |p, q| p + q),
                exact_op(x, y, |p, q| p - q),
                exact_op(x, y, |p, q| p * q),
                exact_op(x, y, |p, q| p / q),
            ];
            for (k, e) in exact.iter().enumerate() {
                assert!(
                    same(want[k], *e),
                    "op {k} of {x:?}, {y:?}: half {:?}, exact {e:?}",
                    want[k]
                );
            }
            for (k, w) in want.iter().enumerate() {
                let got = out[OPS * i + k];
                assert!(
                    same(got, *w),
                    "{:?}: op {k} of {x:?} ({:#06x}), {y:?} ({:#06x}): got {got:?}, half says {w:?}",
                    dev.backend(),
                    x.to_bits(),
                    y.to_bits()
                );
            }
            // Negation flips the sign bit, NaN included.
            assert_eq!(out[OPS * i + 5].to_bits(), x.to_bits() ^ 0x8000);
            let bits = u32::from(x < y)
                | u32::from(x == y) << 1
                | u32::from(x >= y) << 2
                | u32::from(x != y) << 3
                | u32::from(x <= y) << 4
                | u32::from(x > y) << 5;
            assert_eq!(
                flags[i],
                bits,
                "{:?}: comparisons of {x:?}, {y:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn conversions_round_to_nearest_even_and_keep_nan_quiet() {
    let mut rng = Rng::new(0xbf17);
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        f32::from_bits(0x3f80_8000), // 1 + 2^-8: a tie, to even (1.0)
        f32::from_bits(0x3f81_8000), // 1 + 3 * 2^-8: a tie, to even (1 + 2^-6)
        f32::from_bits(0x3f80_8001), // just above the tie: up
        f32::MAX,                    // rounds to infinity
        3.389_531_4e38,              // bf16::MAX
        f32::from_bits(0x7f7f_7fff), // just below the tie between MAX and infinity
        f32::from_bits(0x7f7f_8000), // the tie between MAX and infinity: to infinity
        f32::from_bits(0x0000_8000), // subnormal tie, to even (0)
        f32::from_bits(0x0001_8000), // subnormal tie, to even (2 * 2^-133)
        f32::from_bits(0x0000_0001), // smallest f32 subnormal: to 0
        f32::from_bits(0x0080_0000), // smallest normal
        f32::from_bits(0x007f_ffff), // largest subnormal: rounds to the smallest normal
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0x7f80_0001), // signalling NaN, low payload: quiet 0x7fc0
        f32::from_bits(0xff81_2345), // negative signalling NaN: quiet, payload kept
        f32::from_bits(0x7fff_ffff),
    ];
    while xs.len() < 4000 {
        xs.push(f32::from_bits(rng.next_u32()));
    }
    let near_tie = f64::from_bits(1.003_906_25f64.to_bits() + 1);
    let ds: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| match i {
            0 => near_tie,
            1 => -near_tie,
            2 => f64::MAX,
            3 => 1e-300,
            _ if i % 3 == 0 => f64::from(x),
            // A few f64 ulps from a bf16 tie (the low bits decide).
            _ if i % 3 == 1 => {
                let t = f64::from(x).to_bits() & !0x0000_1fff_ffff_ffff | 0x0000_1000_0000_0000;
                f64::from_bits(t.wrapping_add(rng.next_u64() % 5).wrapping_sub(2))
            }
            _ => f64::from_bits(rng.next_u64()),
        })
        .collect();
    let n = xs.len();
    for dev in devices("bf16_conversions") {
        let (dx, dd) = (dev.upload(&xs).unwrap(), dev.upload(&ds).unwrap());
        let mut out = dev.upload(&vec![bf16::from_bits(0x7fa1); 2 * n]).unwrap();
        let mut back = dev.upload(&vec![-1.0f32; n]).unwrap();
        let mut back64 = dev.upload(&vec![-1.0f64; n]).unwrap();
        let mut bits = dev.upload(&vec![0xdeadu16; n]).unwrap();
        bf16_convert::launch(
            &dev,
            LaunchConfig::for_num_elems(n as u32),
            &dx,
            &dd,
            &mut out,
            &mut back,
            &mut back64,
            &mut bits,
        )
        .unwrap();
        let (out, back, back64, bits) = (
            out.download().unwrap(),
            back.download().unwrap(),
            back64.download().unwrap(),
            bits.download().unwrap(),
        );
        for i in 0..n {
            // Bit for bit, NaN payloads included (the conversions are integer code).
            let h = bf16::from_f32(xs[i]);
            assert_eq!(
                out[2 * i].to_bits(),
                h.to_bits(),
                "{:?}: from_f32({:e} = {:#010x})",
                dev.backend(),
                xs[i],
                xs[i].to_bits()
            );
            let d = bf16_from_f64(ds[i]);
            assert_eq!(
                out[2 * i + 1].to_bits(),
                d.to_bits(),
                "{:?}: from_f64({:e} = {:#018x})",
                dev.backend(),
                ds[i],
                ds[i].to_bits()
            );
            assert_eq!(
                back[i].to_bits(),
                h.to_f32().to_bits(),
                "{:?}: to_f32",
                dev.backend()
            );
            assert_eq!(
                back64[i].to_bits(),
                d.to_f64().to_bits(),
                "{:?}: to_f64",
                dev.backend()
            );
            assert_eq!(bits[i], h.to_bits());
        }
        // The rounding cases, by value.
        assert_eq!(out[6].to_bits(), 0x3f80, "1 + 2^-8 ties to even");
        assert_eq!(out[8].to_bits(), 0x3f82, "1 + 3 * 2^-8 ties to even");
        assert_eq!(out[10].to_bits(), 0x3f81);
        assert_eq!(out[12], bf16::INFINITY);
        assert_eq!(out[14], bf16::MAX);
        assert_eq!(out[18], bf16::INFINITY);
        assert_eq!(out[20].to_bits(), 0x0000);
        assert_eq!(out[22].to_bits(), 0x0002);
        assert_eq!(out[28].to_bits(), 0x0080);
        assert_eq!(out[16], bf16::MAX);
        assert_eq!(out[36].to_bits(), 0x7fc0);
        assert_eq!(out[38].to_bits(), 0xffc1);
        assert_eq!(
            out[1].to_bits(),
            0x3f81,
            "from_f64 just above a tie rounds up"
        );
    }
}

#[test]
fn conversions_keep_subnormals_under_fast_math() {
    // bf16 subnormals are f32 subnormals, which `--use_fast_math` flushes in float code.
    let xs: Vec<f32> = (0..512u32)
        .map(|k| f32::from_bits(((k * 0x9e37) & 0x7fff) | (k & 1) << 31))
        .collect();
    let ds: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(k, x)| f64::from(*x) * if k % 3 == 0 { 1.000_000_000_1 } else { 1.0 })
        .collect();
    let n = xs.len();
    for dev in devices("bf16_convert_fast") {
        let (dx, dd) = (dev.upload(&xs).unwrap(), dev.upload(&ds).unwrap());
        let mut out = dev.upload(&vec![bf16::from_bits(0x7fa1); 2 * n]).unwrap();
        let mut back64 = dev.upload(&vec![-1.0f64; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        bf16_convert_fast::launch(&dev, cfg, &dx, &dd, &mut out, &mut back64).unwrap();
        let (out, back64) = (out.download().unwrap(), back64.download().unwrap());
        for i in 0..n {
            let h = bf16::from_f32(xs[i]);
            assert_eq!(
                out[2 * i].to_bits(),
                h.to_bits(),
                "{:?}: from_f32 {i}",
                dev.backend()
            );
            let d = bf16_from_f64(ds[i]);
            assert_eq!(
                out[2 * i + 1].to_bits(),
                d.to_bits(),
                "{:?}: from_f64 {i}",
                dev.backend()
            );
            assert_eq!(
                back64[i].to_bits(),
                h.to_f64().to_bits(),
                "{:?}: to_f64 {i}",
                dev.backend()
            );
        }
    }
}

#[test]
fn every_bit_pattern_widens_exactly_and_back() {
    let all: Vec<bf16> = (0..=u16::MAX).map(bf16::from_bits).collect();
    let n = all.len();
    for dev in devices("bf16_widen") {
        let dh = dev.upload(&all).unwrap();
        let mut out = dev.upload(&vec![-1.0f32; n]).unwrap();
        let mut out64 = dev.upload(&vec![-1.0f64; n]).unwrap();
        let mut back = dev.upload(&vec![bf16::from_bits(0x7fa1); n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        bf16_widen::launch(&dev, cfg, &dh, &mut out, &mut out64, &mut back).unwrap();
        let (out, out64, back) = (
            out.download().unwrap(),
            out64.download().unwrap(),
            back.download().unwrap(),
        );
        for (i, h) in all.iter().enumerate() {
            // `half`'s bits, NaN payloads included; a NaN comes back quiet.
            assert_eq!(
                out[i].to_bits(),
                h.to_f32().to_bits(),
                "{:?}: {i:#06x}",
                dev.backend()
            );
            assert_eq!(
                out64[i].to_bits(),
                h.to_f64().to_bits(),
                "{:?}: {i:#06x}",
                dev.backend()
            );
            let want = if h.is_nan() {
                h.to_bits() | 0x40
            } else {
                h.to_bits()
            };
            assert_eq!(
                back[i].to_bits(),
                want,
                "{:?}: {i:#06x} round trip",
                dev.backend()
            );
        }
    }
}

#[test]
fn bf16x2_works_on_each_half() {
    let mut rng = Rng::new(0xbf18);
    let n = 3000;
    let a: Vec<bf16> = (0..n).map(|_| random_bf16(&mut rng)).collect();
    let bs: Vec<bf16> = (0..n).map(|_| random_bf16(&mut rng)).collect();
    for dev in devices("bf16x2_ops") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&bs).unwrap());
        let mut out = dev
            .upload(&vec![bf16x2::from_bits(0x7fa1_7fa1); 3 * n])
            .unwrap();
        let mut halves = dev.upload(&vec![bf16::from_bits(0x7fa1); 2 * n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        bf16x2_ops::launch(&dev, cfg, &da, &db, &mut out, &mut halves).unwrap();
        let (out, halves) = (out.download().unwrap(), halves.download().unwrap());
        for i in 0..n {
            let (x, y) = (a[i], bs[i]);
            let want = [(x + y, y + x), (x - y, y - x), (x * y, y * x)];
            for (k, (lo, hi)) in want.iter().enumerate() {
                let got = out[3 * i + k];
                assert!(
                    same(got.lo(), *lo) && same(got.hi(), *hi),
                    "{:?}: op {k} of ({x:?}, {y:?}): got {got:?}",
                    dev.backend()
                );
            }
            assert!(same(halves[2 * i], x * y) && same(halves[2 * i + 1], y * x));
        }
    }
}

/// std's f32 `asinh` overflows above about 1.7e38 (it computes `|x| + |x| / (..)`); the
/// simulator's bf16 `asinh` takes `ln(2|x|)` there (runtime/src/half_math.rs), as CUDA's
/// `asinhf` does not overflow either.
fn asinh_f32(x: f32) -> f32 {
    if x.abs() >= 2f32.powi(64) {
        (x.abs().ln() + std::f32::consts::LN_2).copysign(x)
    } else {
        x.asinh()
    }
}

/// A bf16 as an integer that orders as the value does (adjacent values differ by 1).
fn ordered(h: bf16) -> i32 {
    let m = i32::from(h.to_bits() & 0x7fff);
    if h.to_bits() & 0x8000 != 0 {
        -m
    } else {
        m
    }
}

/// The ulps between two bf16s (0 for two NaNs, `u32::MAX` for a NaN and a number).
fn ulps(got: bf16, want: bf16) -> u32 {
    match (got.is_nan(), want.is_nan()) {
        (true, true) => 0,
        (false, false) => ordered(got).abs_diff(ordered(want)),
        _ => u32::MAX,
    }
}

/// The neighbour of a non-NaN bf16 in value order, as Rust's `next_up`/`next_down`.
fn next(h: bf16, up: bool) -> bf16 {
    if h.is_nan() || (up && h == bf16::INFINITY) || (!up && h == bf16::NEG_INFINITY) {
        return h;
    }
    let o = ordered(h) + if up { 1 } else { -1 };
    match o {
        // From -2^-133 up: -0.0; from 2^-133 down: +0.0.
        0 if up => bf16::from_bits(0x8000),
        0 => bf16::from_bits(0),
        o if o > 0 => bf16::from_bits(o as u16),
        o => bf16::from_bits(0x8000 | (-o) as u16),
    }
}

#[test]
fn float_methods_within_one_ulp_of_the_correctly_rounded_result() {
    let mut rng = Rng::new(0xbf19);
    let n = 4096;
    let edges = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-39, // subnormal
        -1e-39,
        3.0e38,
        -3.3e38,
        2.5,
        -0.5,
        1.0,
        100.0,
        -90.0,
    ];
    let bf = |v: f64| bf16_from_f64(v);
    let mut a: Vec<bf16> = edges.iter().map(|v| bf(*v)).collect();
    a.extend((a.len()..n).map(|k| {
        if k % 5 == 0 {
            random_bf16(&mut rng)
        } else {
            bf(rng.range_f64(-8.0, 8.0))
        }
    }));
    let bs: Vec<bf16> = (0..n)
        .map(|k| match k % 17 {
            0 => bf(0.0),
            1 => bf(-2.0),
            _ => bf(rng.range_f64(-4.0, 4.0)),
        })
        .collect();
    let p: Vec<bf16> = (0..n).map(|_| bf(rng.range_f64(0.001, 8.0))).collect();
    let u: Vec<bf16> = (0..n).map(|_| bf(rng.range_f64(-0.99, 0.99))).collect();
    let q: Vec<bf16> = (0..n).map(|_| bf(rng.range_f64(1.5, 5.0))).collect();
    for dev in devices("bf16_float_methods") {
        let up = |v: &[bf16]| dev.upload(v).unwrap();
        let (da, db, dp, du, dq) = (up(&a), up(&bs), up(&p), up(&u), up(&q));
        let mut out = dev.upload(&vec![bf16::from_bits(0x7fa1); K * n]).unwrap();
        let mut flags = dev.upload(&vec![u32::MAX; n]).unwrap();
        let cfg = LaunchConfig::new((n as u32).div_ceil(64), 64);
        bf16_math::launch(&dev, cfg, &mut out, &mut flags, &da, &db, &dp, &du, &dq).unwrap();
        let (out, flags) = (out.download().unwrap(), flags.download().unwrap());
        let mut worst = [0u32; TRANS];
        for i in 0..n {
            let (x, y, pp, uu, qq) = (
                a[i].to_f64(),
                bs[i].to_f64(),
                p[i].to_f64(),
                u[i].to_f64(),
                q[i].to_f64(),
            );
            // The transcendentals: f64's function, rounded once to bf16.
            let exact = [
                x.exp(),
                x.exp2(),
                x.exp_m1(),
                pp.ln(),
                pp.log2(),
                pp.log10(),
                pp.ln_1p(),
                pp.ln() / qq.ln(),
                pp.powf(y),
                x.cbrt(),
                x.hypot(y),
                x.sin(),
                x.cos(),
                x.sin(),
                x.cos(),
                x.tan(),
                uu.asin(),
                uu.acos(),
                x.atan(),
                x.atan2(y),
                x.sinh(),
                x.cosh(),
                x.tanh(),
                x.asinh(),
                qq.acosh(),
                uu.atanh(),
            ];
            // What the simulator computes: the f32 function, rounded once.
            let (xf, yf, pf, uf, qf) = (x as f32, y as f32, pp as f32, uu as f32, qq as f32);
            let via_f32 = [
                xf.exp(),
                xf.exp2(),
                xf.exp_m1(),
                pf.ln(),
                pf.log2(),
                pf.log10(),
                pf.ln_1p(),
                pf.log(qf),
                pf.powf(yf),
                xf.cbrt(),
                xf.hypot(yf),
                xf.sin(),
                xf.cos(),
                xf.sin_cos().0,
                xf.sin_cos().1,
                xf.tan(),
                uf.asin(),
                uf.acos(),
                xf.atan(),
                xf.atan2(yf),
                xf.sinh(),
                xf.cosh(),
                xf.tanh(),
                asinh_f32(xf),
                qf.acosh(),
                uf.atanh(),
            ];
            for k in 0..TRANS {
                let got = out[K * i + k];
                let d = ulps(got, bf(exact[k]));
                worst[k] = worst[k].max(d);
                assert!(
                    d <= 1,
                    "{:?}: method #{k} of {x:e}, {y:e}, {pp:e}, {uu:e}, {qq:e}: got {got:?}, correctly rounded {:?}",
                    dev.backend(),
                    bf(exact[k])
                );
                if dev.backend() == Backend::Simulator {
                    assert!(same(got, b(via_f32[k])), "simulator: method #{k}");
                }
            }
            // The exact methods: the f32 operation rounded once, on both backends.
            let clamp = xf.clamp(-1.5, 2.25);
            let rest = [
                b(pf.sqrt()),
                b(xf.mul_add(yf, pf)),
                b(xf.recip()),
                b(xf.powi(3)),
                b(xf.round_ties_even()),
                b(xf.fract()),
                b(xf.div_euclid(yf)),
                b(xf.rem_euclid(yf)),
                b(xf.to_degrees()),
                b(xf.to_radians()),
                next(a[i], true),
                next(a[i], false),
                if a[i].is_nan() {
                    a[i]
                } else {
                    b(1.0).copysign(a[i])
                },
                p[i].copysign(bs[i]),
                b(clamp),
                bf16::from_bits(a[i].to_bits() & 0x7fff),
                b(xf.min(yf)),
                b(xf.max(yf)),
                b(xf.floor()),
                b(xf.ceil()),
                b(xf.round()),
                b(xf.trunc()),
            ];
            for (j, w) in rest.iter().enumerate() {
                let got = out[K * i + TRANS + j];
                assert!(
                    same(got, *w),
                    "{:?}: method #{} of {:?}, {:?}, {:?}: got {got:?}, want {w:?}",
                    dev.backend(),
                    TRANS + j,
                    a[i],
                    bs[i],
                    p[i]
                );
            }
            // sqrt through f32 is the correctly rounded bf16 square root.
            assert!(same(rest[0], bf(pp.sqrt())));
            let h = a[i];
            let want_flags = u32::from(h.is_nan())
                | u32::from(h.is_infinite()) << 1
                | u32::from(h.is_finite()) << 2
                | u32::from(h.is_normal()) << 3
                | u32::from(h.to_bits() & 0x7fff != 0 && h.to_bits() & 0x7fff < 0x80) << 4
                | u32::from(h.is_sign_positive()) << 5
                | u32::from(h.is_sign_negative()) << 6;
            assert_eq!(
                flags[i],
                want_flags,
                "{:?}: predicates of {h:?}",
                dev.backend()
            );
        }
        println!(
            "bf16 transcendentals on {:?}: ulps from the correctly rounded result, worst per method: {worst:?}",
            dev.backend()
        );
    }
}

#[test]
fn atomics_from_many_threads_on_few_addresses() {
    let mut rng = Rng::new(0xbf1a);
    let blocks = 3;
    let n = blocks * 256;
    // Integers 0..=2: every partial sum stays an integer <= 256 (exact in bf16), so the
    // order of the additions does not matter.
    let vals: Vec<bf16> = (0..n).map(|_| b((rng.next_u32() % 3) as f32)).collect();
    let sum = |pick: &dyn Fn(usize) -> bool| -> f32 {
        (0..n).filter(|i| pick(*i)).map(|i| vals[i].to_f32()).sum()
    };
    for dev in devices("bf16_atomics") {
        let input = dev.upload(&vals).unwrap();
        let mut init = vec![b(0.0); 18];
        init[0] = b(0.5);
        init[16] = b(-1.0);
        init[17] = b(-2.0);
        let mut acc = dev.upload(&init).unwrap();
        let mut acc2 = dev.upload(&[bf16x2::new(b(1.0), b(-1.0)); 8]).unwrap();
        let mut olds = dev.upload(&vec![bf16::from_bits(0x7fa1); n]).unwrap();
        bf16_atomics::launch(
            &dev,
            LaunchConfig::new(blocks as u32, 256),
            &input,
            &mut acc,
            &mut acc2,
            &mut olds,
        )
        .unwrap();
        let (acc, acc2, olds) = (
            acc.download().unwrap(),
            acc2.download().unwrap(),
            olds.download().unwrap(),
        );
        for r in 0..8 {
            let s = sum(&|i| i % 8 == r);
            let base = if r == 0 { 0.5 } else { 0.0 };
            assert_eq!(
                acc[r].to_f32(),
                s + base,
                "{:?}: global acc[{r}]",
                dev.backend()
            );
            assert_eq!(
                acc[8 + r].to_f32(),
                s,
                "{:?}: shared, then global [{r}]",
                dev.backend()
            );
            assert_eq!(
                (acc2[r].lo().to_f32(), acc2[r].hi().to_f32()),
                (s + 1.0, -s - 1.0),
                "{:?}: bf16x2 acc2[{r}]",
                dev.backend()
            );
        }
        // The swaps: every value went in once and came out once (as an old value or the
        // final one).
        for r in 0..2 {
            let mut went: Vec<u16> = (0..n)
                .filter(|i| i % 2 == r)
                .map(|i| vals[i].to_bits())
                .collect();
            went.push(init[16 + r].to_bits());
            let mut came: Vec<u16> = (0..n)
                .filter(|i| i % 2 == r)
                .map(|i| olds[i].to_bits())
                .collect();
            came.push(acc[16 + r].to_bits());
            went.sort_unstable();
            came.sort_unstable();
            assert_eq!(went, came, "{:?}: swaps on acc[{}]", dev.backend(), 16 + r);
        }
    }
}

#[test]
fn atomic_add_rounds_as_bf16_addition() {
    let mut rng = Rng::new(0xbf1b);
    // Ties (256 + 1), subnormals (which the noftz instruction keeps), and random values.
    let mut vals = vec![
        b(255.0),
        b(1.0),
        b(1.0),
        b(3.0),
        b(-514.0),
        bf16::from_bits(0x0001),
        bf16::from_bits(0x8001),
        bf16::from_bits(0x0003),
    ];
    vals.extend((0..56).map(|_| bf16_from_f64(rng.range_f64(-40.0, 40.0))));
    let n = vals.len();
    let mut want = Vec::new();
    let mut s = bf16::from_bits(0x0001);
    for v in &vals {
        want.push(s);
        s += *v;
    }
    let mut s2 = (b(1.0), b(-1.0));
    for v in &vals {
        s2 = (s2.0 + *v, s2.1 + *v);
    }
    for dev in devices("bf16_atomic_rounding") {
        let input = dev.upload(&vals).unwrap();
        let mut acc = dev.upload(&[bf16::from_bits(0x0001), b(1.0)]).unwrap();
        let mut acc2 = dev.upload(&[bf16x2::new(b(1.0), b(-1.0))]).unwrap();
        let mut olds = dev.upload(&vec![bf16::from_bits(0x7fa1); n]).unwrap();
        let mut cas = dev.upload(&[u32::MAX]).unwrap();
        bf16_atomic_rounding::launch(
            &dev,
            LaunchConfig::new(1, 32),
            &input,
            &mut acc,
            &mut acc2,
            &mut olds,
            &mut cas,
        )
        .unwrap();
        let (acc, acc2, olds, cas) = (
            acc.download().unwrap(),
            acc2.download().unwrap(),
            olds.download().unwrap(),
            cas.download().unwrap(),
        );
        for j in 0..n {
            assert_eq!(
                olds[j].to_bits(),
                want[j].to_bits(),
                "{:?}: old value {j}",
                dev.backend()
            );
        }
        assert_eq!(
            acc[0].to_bits(),
            s.to_bits(),
            "{:?}: final sum",
            dev.backend()
        );
        assert_eq!(
            (acc2[0].lo().to_bits(), acc2[0].hi().to_bits()),
            (s2.0.to_bits(), s2.1.to_bits()),
            "{:?}: bf16x2 sums",
            dev.backend()
        );
        assert_eq!(
            cas[0],
            1,
            "{:?}: the first CAS succeeds, the second fails",
            dev.backend()
        );
        assert_eq!(acc[1], b(2.0));
    }
}

#[test]
fn generic_kernel_bf16_instance() {
    let mut rng = Rng::new(0xbf1c);
    let n = 1000;
    let x: Vec<bf16> = (0..n).map(|_| b(rng.range_f32(-10.0, 10.0))).collect();
    let y: Vec<bf16> = (0..n).map(|_| b(rng.range_f32(-10.0, 10.0))).collect();
    let a = b(1.5);
    let want: Vec<bf16> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| a * *x + *y - b(0.5))
        .collect();
    for dev in devices("bf16_generic") {
        let dx = dev.upload(&x).unwrap();
        let mut dy = dev.upload(&y).unwrap();
        axpy::launch::<bf16>(&dev, LaunchConfig::for_num_elems(n as u32), &mut dy, a, &dx).unwrap();
        let got = dy.download().unwrap();
        for i in 0..n {
            assert_eq!(
                got[i].to_bits(),
                want[i].to_bits(),
                "{:?}: element {i}",
                dev.backend()
            );
        }
    }
}

/// A `#[gpu_struct]` with bf16 fields (2-byte aligned, as in C).
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled {
    pub scale: bf16,
    pub pair: bf16x2,
    pub n: u32,
    pub tag: bf16,
}

/// Shuffles exchange bf16 and bf16x2 by their bits; a struct's bf16 fields read and written.
#[gpu_kernel]
fn bf16_shuffle_struct(
    a: &[bf16],
    s: Scaled,
    out: &mut [bf16],
    pairs: &mut [bf16x2],
    st: &mut [Scaled],
) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let v = shfl_xor_sync(u32::MAX, a[i], 1);
    out[i] = v * s.scale;
    pairs[i] = shfl_xor_sync(u32::MAX, bf16x2::new(a[i], v), 2) + s.pair;
    if i == 0 {
        let mut t = s;
        t.tag = s.scale + s.tag;
        t.n = s.n + 1;
        st[0] = t;
    }
}

#[gpu_kernel]
fn bf16_print(a: &[bf16]) {
    let i = grid_1d();
    if i < a.len() {
        gpu_println!("{} {:8} {}", i, a[i], bf16x2::new(a[i], -a[i]).hi());
    }
}

#[test]
fn shuffles_and_struct_fields() {
    let mut rng = Rng::new(0xbf1d);
    let n = 128;
    let a: Vec<bf16> = (0..n).map(|_| random_bf16(&mut rng)).collect();
    let s = Scaled {
        scale: b(1.5),
        pair: bf16x2::new(b(0.25), b(-8.0)),
        n: 41,
        tag: b(3.0),
    };
    assert_eq!(std::mem::size_of::<Scaled>(), 16);
    for dev in devices("bf16_shuffle_struct") {
        let da = dev.upload(&a).unwrap();
        let mut out = dev.upload(&vec![bf16::from_bits(0x7fa1); n]).unwrap();
        let mut pairs = dev
            .upload(&vec![bf16x2::from_bits(0x7fa1_7fa1); n])
            .unwrap();
        let poison = Scaled {
            scale: bf16::NAN,
            pair: bf16x2::default(),
            n: 0,
            tag: bf16::NAN,
        };
        let mut st = dev.upload(&[poison]).unwrap();
        let cfg = LaunchConfig::new(2, 64);
        bf16_shuffle_struct::launch(&dev, cfg, &da, s, &mut out, &mut pairs, &mut st).unwrap();
        let (out, pairs, st) = (
            out.download().unwrap(),
            pairs.download().unwrap(),
            st.download().unwrap(),
        );
        for i in 0..n {
            let v = a[i ^ 1];
            assert!(same(out[i], v * s.scale), "{:?}: lane {i}", dev.backend());
            let j = i ^ 2;
            let (lo, hi) = (a[j] + s.pair.lo(), a[j ^ 1] + s.pair.hi());
            assert!(
                same(pairs[i].lo(), lo) && same(pairs[i].hi(), hi),
                "{:?}: pair lane {i}",
                dev.backend()
            );
        }
        assert_eq!(
            st[0],
            Scaled {
                tag: b(4.5),
                n: 42,
                ..s
            },
            "{:?}",
            dev.backend()
        );
    }
}

#[test]
fn simulator_prints_bf16_as_c_g() {
    let a = [b(1.5), b(-0.0), b(3.0e38), bf16::INFINITY, b(1e-3)];
    let dev = warpspeed::Device::simulator();
    let da = dev.upload(&a).unwrap();
    let ((), text) = warpspeed::__private::capture_sim_prints(|| {
        bf16_print::launch(&dev, LaunchConfig::new(1, 32), &da).unwrap();
        dev.synchronize().unwrap();
    });
    let mut got: Vec<&str> = text.lines().collect();
    got.sort();
    let g = |v: bf16| warpspeed::__private::format_g(v.to_f64());
    let mut want: Vec<String> = a
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{i} {:>8} {}", g(*v), g(-*v)))
        .collect();
    want.sort();
    assert_eq!(got, want);
}

fn kernels() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![
        ("bf16_ops", &bf16_ops::KERNEL),
        ("bf16_convert", &bf16_convert::KERNEL),
        ("bf16_widen", &bf16_widen::KERNEL),
        ("bf16_convert_fast", &bf16_convert_fast::KERNEL),
        ("bf16x2_ops", &bf16x2_ops::KERNEL),
        ("bf16_math", &bf16_math::KERNEL),
        ("bf16_atomics", &bf16_atomics::KERNEL),
        ("bf16_atomic_rounding", &bf16_atomic_rounding::KERNEL),
        ("axpy::<bf16>", axpy::kernel::<bf16>()),
        ("bf16_shuffle_struct", &bf16_shuffle_struct::KERNEL),
        ("bf16_print", &bf16_print::KERNEL),
    ]
}

/// sm_75 (no bf16 instructions: integer conversions, compare-and-swap atomics), sm_90.
#[test]
fn nvrtc_compiles_for_sm75_and_sm90() {
    common::nvrtc_compiles(&kernels());
}

/// sm_80 too, and the atomic add is the native instruction from sm_90 only.
#[test]
fn nvrtc_compiles_for_sm80_and_picks_the_atomic_by_architecture() {
    if !common::nvrtc_here() {
        return;
    }
    for (name, k) in kernels() {
        warpspeed::compile::compile_cubin(k.source.as_str(), (8, 0), k.options)
            .unwrap_or_else(|e| panic!("{name} does not compile for sm_80: {e}"));
    }
    let k = &bf16_atomics::KERNEL;
    let ptx = |arch| warpspeed::compile::compile_ptx(k.source.as_str(), arch, k.options).unwrap();
    let (p80, p90) = (ptx((8, 0)), ptx((9, 0)));
    assert!(
        p90.contains("add.noftz.bf16 "),
        "sm_90: the native bf16 atomic add"
    );
    assert!(
        p90.contains("add.noftz.bf16x2 "),
        "sm_90: the native bf16x2 atomic add"
    );
    assert!(
        !p80.contains("add.noftz.bf16"),
        "sm_80: a compare-and-swap loop"
    );
    assert!(
        p80.contains("atom.global.cas.b16")
            || p80.contains("atom.cas.b16")
            || p80.contains("cas.b16")
    );
}
