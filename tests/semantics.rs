//! Targeted tests, one per trap in DESIGN.md's "Semantics: the CUDA C must compute what the
//! Rust says": each kernel runs on the simulator and, when one is found, on the GPU, and is
//! checked against the same operation computed by Rust on the host.
//! `WARPSPEED_REQUIRE_GPU=1` makes a missing GPU a failure instead of a printed notice.
#![allow(arithmetic_overflow, unused_parens)]

use warpspeed::prelude::*;
use warpspeed::{Device, DeviceBuffer, KernelScalar, LaunchConfig};

mod common;
use common::devices;

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

trait Same: Copy + std::fmt::Debug {
    fn same(self, o: Self) -> bool;
}
macro_rules! same_int {
    ($($t:ty),*) => {$(impl Same for $t { fn same(self, o: Self) -> bool { self == o } })*};
}
same_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool);
impl Same for f32 {
    fn same(self, o: Self) -> bool {
        self.to_bits() == o.to_bits() || (self.is_nan() && o.is_nan())
    }
}
impl Same for f64 {
    fn same(self, o: Self) -> bool {
        self.to_bits() == o.to_bits() || (self.is_nan() && o.is_nan())
    }
}

/// Downloads `buf` and checks it against `want` (bit for bit; all NaNs equal).
#[track_caller]
fn check<T: KernelScalar + Same, I: std::fmt::Debug>(
    dev: &Device,
    what: &str,
    inputs: &[I],
    buf: &DeviceBuffer<T>,
    want: impl Fn(&I) -> T,
) {
    let got = buf.download().unwrap();
    for (i, x) in inputs.iter().enumerate() {
        let w = want(x);
        assert!(
            got[i].same(w),
            "{what} on {:?}: input {x:?}: got {:?}, Rust says {w:?}",
            dev.backend(),
            got[i]
        );
    }
}

fn pairs<T: Copy>(vals: &[T]) -> (Vec<T>, Vec<T>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in vals {
        for &y in vals {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

// ---------------------------------------------------------------- small-int promotion

#[gpu_kernel]
fn small_u8(
    a: &[u8],
    b: &[u8],
    add: &mut [u8],
    mul: &mut [u8],
    not: &mut [u8],
    sub: &mut [u8],
    lt: &mut [bool],
    half: &mut [u8],
) {
    let i = grid_1d();
    if i < add.len() {
        add[i] = a[i] + b[i];
        mul[i] = a[i] * b[i];
        not[i] = !a[i];
        sub[i] = a[i] - b[i];
        lt[i] = a[i] + b[i] < a[i];
        half[i] = (a[i] + b[i]) >> 1;
    }
}

#[gpu_kernel]
fn small_i8(
    a: &[i8],
    b: &[i8],
    mul: &mut [i8],
    add: &mut [i8],
    not: &mut [i8],
    neg: &mut [i8],
    shr: &mut [i8],
) {
    let i = grid_1d();
    if i < mul.len() {
        mul[i] = a[i] * b[i];
        add[i] = a[i] + b[i];
        not[i] = !a[i];
        neg[i] = -a[i];
        shr[i] = (a[i] * b[i]) >> 1;
    }
}

#[gpu_kernel]
fn small_16(
    a: &[u16],
    b: &[u16],
    c: &[i16],
    d: &[i16],
    umul: &mut [u16],
    uadd: &mut [u16],
    imul: &mut [i16],
    isub: &mut [i16],
    unot_shr: &mut [u16],
) {
    let i = grid_1d();
    if i < umul.len() {
        umul[i] = a[i] * b[i];
        uadd[i] = a[i] + b[i];
        imul[i] = c[i] * d[i];
        isub[i] = c[i] - d[i];
        unot_shr[i] = !a[i] >> 4;
    }
}

#[test]
fn small_int_promotion() {
    let (a, b) = pairs(&[0u8, 1, 2, 15, 16, 100, 127, 128, 200, 254, 255]);
    let (c, d) = pairs(&[0i8, 1, -1, 2, 11, -12, 64, 127, -127, -128]);
    let (e, f) = pairs(&[0u16, 1, 2, 255, 256, 300, 32768, 65534, 65535]);
    let (g, h) = pairs(&[0i16, 1, -1, 181, 182, -300, 32767, -32767, -32768]);
    let ab: Vec<(u8, u8)> = a.iter().copied().zip(b.iter().copied()).collect();
    let cd: Vec<(i8, i8)> = c.iter().copied().zip(d.iter().copied()).collect();
    let ef: Vec<(u16, u16)> = e.iter().copied().zip(f.iter().copied()).collect();
    let gh: Vec<(i16, i16)> = g.iter().copied().zip(h.iter().copied()).collect();
    for dev in devices("small_int_promotion") {
        let n = a.len();
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut o: Vec<DeviceBuffer<u8>> = (0..5).map(|_| dev.zeros::<u8>(n).unwrap()).collect();
        let mut lt = dev.zeros::<bool>(n).unwrap();
        let [o0, o1, o2, o3, o4] = &mut o[..] else {
            unreachable!()
        };
        small_u8::launch(&dev, cfg(n), &da, &db, o0, o1, o2, o3, &mut lt, o4).unwrap();
        check(&dev, "u8 + u8", &ab, &o[0], |&(x, y)| x.wrapping_add(y));
        check(&dev, "u8 * u8", &ab, &o[1], |&(x, y)| x.wrapping_mul(y));
        check(&dev, "!u8", &ab, &o[2], |&(x, _)| !x);
        check(&dev, "u8 - u8", &ab, &o[3], |&(x, y)| x.wrapping_sub(y));
        check(&dev, "u8 + u8 < u8", &ab, &lt, |&(x, y)| {
            x.wrapping_add(y) < x
        });
        check(&dev, "(u8 + u8) >> 1", &ab, &o[4], |&(x, y)| {
            x.wrapping_add(y) >> 1
        });

        let n = c.len();
        let (dc, dd) = (dev.upload(&c).unwrap(), dev.upload(&d).unwrap());
        let mut o: Vec<DeviceBuffer<i8>> = (0..5).map(|_| dev.zeros::<i8>(n).unwrap()).collect();
        let [o0, o1, o2, o3, o4] = &mut o[..] else {
            unreachable!()
        };
        small_i8::launch(&dev, cfg(n), &dc, &dd, o0, o1, o2, o3, o4).unwrap();
        check(&dev, "i8 * i8", &cd, &o[0], |&(x, y)| x.wrapping_mul(y));
        check(&dev, "i8 + i8", &cd, &o[1], |&(x, y)| x.wrapping_add(y));
        check(&dev, "!i8", &cd, &o[2], |&(x, _)| !x);
        check(&dev, "-i8", &cd, &o[3], |&(x, _)| x.wrapping_neg());
        check(&dev, "(i8 * i8) >> 1", &cd, &o[4], |&(x, y)| {
            x.wrapping_mul(y) >> 1
        });

        let n = e.len();
        let (de, df) = (dev.upload(&e).unwrap(), dev.upload(&f).unwrap());
        let (dg, dh) = (dev.upload(&g).unwrap(), dev.upload(&h).unwrap());
        let (mut u0, mut u1, mut u2) = (
            dev.zeros::<u16>(n).unwrap(),
            dev.zeros::<u16>(n).unwrap(),
            dev.zeros::<u16>(n).unwrap(),
        );
        let (mut s0, mut s1) = (dev.zeros::<i16>(n).unwrap(), dev.zeros::<i16>(n).unwrap());
        small_16::launch(
            &dev,
            cfg(n),
            &de,
            &df,
            &dg,
            &dh,
            &mut u0,
            &mut u1,
            &mut s0,
            &mut s1,
            &mut u2,
        )
        .unwrap();
        check(&dev, "u16 * u16", &ef, &u0, |&(x, y)| x.wrapping_mul(y));
        check(&dev, "u16 + u16", &ef, &u1, |&(x, y)| x.wrapping_add(y));
        check(&dev, "!u16 >> 4", &ef, &u2, |&(x, _)| !x >> 4);
        check(&dev, "i16 * i16", &gh, &s0, |&(x, y)| x.wrapping_mul(y));
        check(&dev, "i16 - i16", &gh, &s1, |&(x, y)| x.wrapping_sub(y));
    }
}

// ---------------------------------------------------------------- wrapping 32/64-bit

#[gpu_kernel]
fn wrap32(
    a: &[i32],
    b: &[i32],
    add: &mut [i32],
    sub: &mut [i32],
    mul: &mut [i32],
    neg: &mut [i32],
    abs: &mut [i32],
    div: &mut [i32],
    rem: &mut [i32],
) {
    let i = grid_1d();
    if i < add.len() {
        add[i] = a[i] + b[i];
        sub[i] = a[i] - b[i];
        mul[i] = a[i] * b[i];
        neg[i] = -a[i];
        abs[i] = a[i].abs();
        if b[i] != 0 {
            div[i] = a[i] / b[i];
            rem[i] = a[i] % b[i];
        }
    }
}

#[gpu_kernel]
fn wrap64(
    a: &[i64],
    b: &[i64],
    add: &mut [i64],
    sub: &mut [i64],
    mul: &mut [i64],
    neg: &mut [i64],
    div: &mut [i64],
    rem: &mut [i64],
) {
    let i = grid_1d();
    if i < add.len() {
        add[i] = a[i].wrapping_add(b[i]);
        sub[i] = a[i] - b[i];
        mul[i] = a[i] * b[i];
        neg[i] = -a[i];
        if b[i] != 0 {
            div[i] = a[i] / b[i];
            rem[i] = a[i] % b[i];
        }
    }
}

#[gpu_kernel]
fn consts(out: &mut [i32], out64: &mut [i64], out8: &mut [i8]) {
    let i = grid_1d();
    if i < out.len() {
        let m = i32::MIN + (i as i32) * 0;
        out[i] = if i == 0 {
            -m
        } else if i == 1 {
            m / -1
        } else if i == 2 {
            m % -1
        } else {
            i32::MAX + 1
        };
        let m64 = i64::MIN + (i as i64) * 0;
        out64[i] = if i == 0 {
            -m64
        } else if i == 1 {
            m64 / -1
        } else if i == 2 {
            m64 % -1
        } else {
            i64::MAX + 1
        };
        let m8 = i8::MIN + (i as i8) * 0;
        out8[i] = if i == 0 {
            -m8
        } else if i == 1 {
            m8 / -1
        } else if i == 2 {
            m8 % -1
        } else {
            i8::MAX + 1
        };
    }
}

#[test]
fn wrapping_overflow_and_min_over_minus_one() {
    let (a, b) = pairs(&[
        0i32,
        1,
        -1,
        2,
        -2,
        46341,
        65536,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
        1 << 30,
    ]);
    let ab: Vec<(i32, i32)> = a.iter().copied().zip(b.iter().copied()).collect();
    let (c, d) = pairs(&[
        0i64,
        1,
        -1,
        3,
        1 << 32,
        3037000500,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        -(1 << 40),
    ]);
    let cd: Vec<(i64, i64)> = c.iter().copied().zip(d.iter().copied()).collect();
    for dev in devices("wrapping_overflow_and_min_over_minus_one") {
        let n = a.len();
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut o: Vec<DeviceBuffer<i32>> = (0..7).map(|_| dev.zeros::<i32>(n).unwrap()).collect();
        let [o0, o1, o2, o3, o4, o5, o6] = &mut o[..] else {
            unreachable!()
        };
        wrap32::launch(&dev, cfg(n), &da, &db, o0, o1, o2, o3, o4, o5, o6).unwrap();
        check(&dev, "i32 +", &ab, &o[0], |&(x, y)| x.wrapping_add(y));
        check(&dev, "i32 -", &ab, &o[1], |&(x, y)| x.wrapping_sub(y));
        check(&dev, "i32 *", &ab, &o[2], |&(x, y)| x.wrapping_mul(y));
        check(&dev, "-i32", &ab, &o[3], |&(x, _)| x.wrapping_neg());
        check(&dev, "i32.abs()", &ab, &o[4], |&(x, _)| x.wrapping_abs());
        check(&dev, "i32 /", &ab, &o[5], |&(x, y)| {
            if y != 0 {
                x.wrapping_div(y)
            } else {
                0
            }
        });
        check(&dev, "i32 %", &ab, &o[6], |&(x, y)| {
            if y != 0 {
                x.wrapping_rem(y)
            } else {
                0
            }
        });

        let n = c.len();
        let (dc, dd) = (dev.upload(&c).unwrap(), dev.upload(&d).unwrap());
        let mut o: Vec<DeviceBuffer<i64>> = (0..6).map(|_| dev.zeros::<i64>(n).unwrap()).collect();
        let [o0, o1, o2, o3, o4, o5] = &mut o[..] else {
            unreachable!()
        };
        wrap64::launch(&dev, cfg(n), &dc, &dd, o0, o1, o2, o3, o4, o5).unwrap();
        check(&dev, "i64 +", &cd, &o[0], |&(x, y)| x.wrapping_add(y));
        check(&dev, "i64 -", &cd, &o[1], |&(x, y)| x.wrapping_sub(y));
        check(&dev, "i64 *", &cd, &o[2], |&(x, y)| x.wrapping_mul(y));
        check(&dev, "-i64", &cd, &o[3], |&(x, _)| x.wrapping_neg());
        check(&dev, "i64 /", &cd, &o[4], |&(x, y)| {
            if y != 0 {
                x.wrapping_div(y)
            } else {
                0
            }
        });
        check(&dev, "i64 %", &cd, &o[5], |&(x, y)| {
            if y != 0 {
                x.wrapping_rem(y)
            } else {
                0
            }
        });

        let mut o32 = dev.zeros::<i32>(4).unwrap();
        let mut o64 = dev.zeros::<i64>(4).unwrap();
        let mut o8 = dev.zeros::<i8>(4).unwrap();
        consts::launch(&dev, cfg(4), &mut o32, &mut o64, &mut o8).unwrap();
        let idx = [0, 1, 2, 3];
        check(
            &dev,
            "-MIN, MIN / -1, MIN % -1, MAX + 1 (i32)",
            &idx,
            &o32,
            |&k| [i32::MIN, i32::MIN, 0, i32::MIN][k],
        );
        check(
            &dev,
            "-MIN, MIN / -1, MIN % -1, MAX + 1 (i64)",
            &idx,
            &o64,
            |&k| [i64::MIN, i64::MIN, 0, i64::MIN][k],
        );
        check(
            &dev,
            "-MIN, MIN / -1, MIN % -1, MAX + 1 (i8)",
            &idx,
            &o8,
            |&k| [i8::MIN, i8::MIN, 0, i8::MIN][k],
        );
    }
}

// ---------------------------------------------------------------- shifts

#[gpu_kernel]
fn shifts(
    x: &[i32],
    s: &[i32],
    b: &[u8],
    c: &[i8],
    w: &[u64],
    shl: &mut [i32],
    shr: &mut [i32],
    ushr: &mut [u32],
    bshl: &mut [u8],
    bshr: &mut [u8],
    cshr: &mut [i8],
    wshl: &mut [u64],
    lit: &mut [i32],
) {
    let i = grid_1d();
    if i < shl.len() {
        shl[i] = x[i] << s[i];
        shr[i] = x[i] >> s[i];
        ushr[i] = (x[i] as u32) >> s[i];
        bshl[i] = b[i] << s[i];
        bshr[i] = b[i] >> s[i];
        cshr[i] = c[i] >> s[i];
        wshl[i] = w[i] << (s[i] as u64);
        lit[i] = (x[i] << 33) ^ (x[i] >> 32) ^ ((x[i] as u8) << 9) as i32;
    }
}

#[test]
fn shift_amounts_are_masked() {
    let amounts = [
        0i32,
        1,
        4,
        7,
        8,
        9,
        15,
        16,
        31,
        32,
        33,
        63,
        64,
        65,
        100,
        -1,
        -31,
        -32,
        i32::MIN,
        i32::MAX,
    ];
    let xs = [1i32, -1, 0x1234_5678, i32::MIN, i32::MAX, -12345];
    let mut rows = Vec::new();
    for &x in &xs {
        for &s in &amounts {
            rows.push((x, s, x as u8, x as i8, (x as i64 as u64).rotate_left(17)));
        }
    }
    let n = rows.len();
    for dev in devices("shift_amounts_are_masked") {
        let dx = dev
            .upload(&rows.iter().map(|r| r.0).collect::<Vec<_>>())
            .unwrap();
        let ds = dev
            .upload(&rows.iter().map(|r| r.1).collect::<Vec<_>>())
            .unwrap();
        let db = dev
            .upload(&rows.iter().map(|r| r.2).collect::<Vec<_>>())
            .unwrap();
        let dc = dev
            .upload(&rows.iter().map(|r| r.3).collect::<Vec<_>>())
            .unwrap();
        let dw = dev
            .upload(&rows.iter().map(|r| r.4).collect::<Vec<_>>())
            .unwrap();
        let (mut shl, mut shr, mut lit) = (
            dev.zeros::<i32>(n).unwrap(),
            dev.zeros::<i32>(n).unwrap(),
            dev.zeros::<i32>(n).unwrap(),
        );
        let mut ushr = dev.zeros::<u32>(n).unwrap();
        let (mut bshl, mut bshr) = (dev.zeros::<u8>(n).unwrap(), dev.zeros::<u8>(n).unwrap());
        let mut cshr = dev.zeros::<i8>(n).unwrap();
        let mut wshl = dev.zeros::<u64>(n).unwrap();
        shifts::launch(
            &dev,
            cfg(n),
            &dx,
            &ds,
            &db,
            &dc,
            &dw,
            &mut shl,
            &mut shr,
            &mut ushr,
            &mut bshl,
            &mut bshr,
            &mut cshr,
            &mut wshl,
            &mut lit,
        )
        .unwrap();
        check(&dev, "i32 << s", &rows, &shl, |r| {
            r.0.wrapping_shl(r.1 as u32)
        });
        check(&dev, "i32 >> s", &rows, &shr, |r| {
            r.0.wrapping_shr(r.1 as u32)
        });
        check(&dev, "u32 >> s", &rows, &ushr, |r| {
            (r.0 as u32).wrapping_shr(r.1 as u32)
        });
        check(&dev, "u8 << s", &rows, &bshl, |r| {
            r.2.wrapping_shl(r.1 as u32)
        });
        check(&dev, "u8 >> s", &rows, &bshr, |r| {
            r.2.wrapping_shr(r.1 as u32)
        });
        check(&dev, "i8 >> s", &rows, &cshr, |r| {
            r.3.wrapping_shr(r.1 as u32)
        });
        check(&dev, "u64 << (s as u64)", &rows, &wshl, |r| {
            r.4.wrapping_shl(r.1 as u64 as u32)
        });
        // Rust (overflow checks off) masks constant amounts too: x << 33 is x << 1.
        check(&dev, "x << 33, x >> 32, u8 << 9", &rows, &lit, |r| {
            (r.0 << 1) ^ r.0 ^ ((r.0 as u8) << 1) as i32
        });
    }
}

// ---------------------------------------------------------------- float -> int casts

#[gpu_kernel]
fn f2i(
    f: &[f32],
    d: &[f64],
    a: &mut [u8],
    b: &mut [i8],
    c: &mut [u16],
    e: &mut [i16],
    g: &mut [i32],
    h: &mut [u32],
    j: &mut [i64],
    k: &mut [u64],
    l: &mut [usize],
    m: &mut [u8],
    o: &mut [i32],
    p: &mut [u64],
    q: &mut [i64],
    r: &mut [i16],
) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = f[i] as u8;
        b[i] = f[i] as i8;
        c[i] = f[i] as u16;
        e[i] = f[i] as i16;
        g[i] = f[i] as i32;
        h[i] = f[i] as u32;
        j[i] = f[i] as i64;
        k[i] = f[i] as u64;
        l[i] = d[i] as usize;
        m[i] = d[i] as u8;
        o[i] = d[i] as i32;
        p[i] = d[i] as u64;
        q[i] = d[i] as i64;
        r[i] = d[i] as i16;
    }
}

#[test]
fn float_to_int_casts_saturate() {
    let vals: Vec<f64> = vec![
        0.0,
        -0.0,
        0.9,
        -0.9,
        1.0,
        -1.0,
        -1.5,
        127.5,
        128.0,
        -128.9,
        -129.0,
        255.5,
        256.0,
        32767.9,
        -32768.5,
        65535.5,
        65536.0,
        2147483647.0,
        2147483648.0,
        -2147483648.0,
        -2147483649.0,
        4294967295.0,
        4294967296.0,
        9.2e18,
        9223372036854775807.0,
        9223372036854775808.0,
        -9223372036854775808.0,
        -1e19,
        18446744073709551615.0,
        1.9e19,
        1e30,
        -1e30,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        1e-40,
        2147483520.0,
        16777217.0,
    ];
    let fs: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
    let rows: Vec<(f32, f64)> = fs.iter().copied().zip(vals.iter().copied()).collect();
    let n = rows.len();
    for dev in devices("float_to_int_casts_saturate") {
        let (df, dd) = (dev.upload(&fs).unwrap(), dev.upload(&vals).unwrap());
        macro_rules! z {
            ($t:ty) => {
                dev.zeros::<$t>(n).unwrap()
            };
        }
        let (mut a, mut b, mut c, mut e, mut g, mut h) =
            (z!(u8), z!(i8), z!(u16), z!(i16), z!(i32), z!(u32));
        let (mut j, mut k, mut l, mut m, mut o, mut p, mut q, mut r) = (
            z!(i64),
            z!(u64),
            z!(usize),
            z!(u8),
            z!(i32),
            z!(u64),
            z!(i64),
            z!(i16),
        );
        f2i::launch(
            &dev,
            cfg(n),
            &df,
            &dd,
            &mut a,
            &mut b,
            &mut c,
            &mut e,
            &mut g,
            &mut h,
            &mut j,
            &mut k,
            &mut l,
            &mut m,
            &mut o,
            &mut p,
            &mut q,
            &mut r,
        )
        .unwrap();
        check(&dev, "f32 as u8", &rows, &a, |x| x.0 as u8);
        check(&dev, "f32 as i8", &rows, &b, |x| x.0 as i8);
        check(&dev, "f32 as u16", &rows, &c, |x| x.0 as u16);
        check(&dev, "f32 as i16", &rows, &e, |x| x.0 as i16);
        check(&dev, "f32 as i32", &rows, &g, |x| x.0 as i32);
        check(&dev, "f32 as u32", &rows, &h, |x| x.0 as u32);
        check(&dev, "f32 as i64", &rows, &j, |x| x.0 as i64);
        check(&dev, "f32 as u64", &rows, &k, |x| x.0 as u64);
        check(&dev, "f64 as usize", &rows, &l, |x| x.1 as usize);
        check(&dev, "f64 as u8", &rows, &m, |x| x.1 as u8);
        check(&dev, "f64 as i32", &rows, &o, |x| x.1 as i32);
        check(&dev, "f64 as u64", &rows, &p, |x| x.1 as u64);
        check(&dev, "f64 as i64", &rows, &q, |x| x.1 as i64);
        check(&dev, "f64 as i16", &rows, &r, |x| x.1 as i16);
    }
}

// ---------------------------------------------------------------- float %

#[gpu_kernel]
fn frem(a: &[f32], b: &[f32], c: &[f64], d: &[f64], r32: &mut [f32], r64: &mut [f64]) {
    let i = grid_1d();
    if i < r32.len() {
        r32[i] = a[i] % b[i];
        r64[i] = c[i] % d[i];
    }
}

#[test]
fn float_remainder_is_fmod() {
    let v = [
        0.0f64,
        -0.0,
        1.0,
        -1.0,
        2.0,
        5.5,
        -5.5,
        0.1,
        3.0,
        1e10,
        -7.25,
        1e-310,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
    ];
    let (c, d) = pairs(&v);
    let a: Vec<f32> = c.iter().map(|&x| x as f32).collect();
    let b: Vec<f32> = d.iter().map(|&x| x as f32).collect();
    let rows: Vec<(f32, f32, f64, f64)> = (0..c.len()).map(|i| (a[i], b[i], c[i], d[i])).collect();
    let n = rows.len();
    for dev in devices("float_remainder_is_fmod") {
        let (da, db, dc, dd) = (
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
            dev.upload(&c).unwrap(),
            dev.upload(&d).unwrap(),
        );
        let (mut r32, mut r64) = (dev.zeros::<f32>(n).unwrap(), dev.zeros::<f64>(n).unwrap());
        frem::launch(&dev, cfg(n), &da, &db, &dc, &dd, &mut r32, &mut r64).unwrap();
        check(&dev, "f32 %", &rows, &r32, |r| r.0 % r.1);
        check(&dev, "f64 %", &rows, &r64, |r| r.2 % r.3);
    }
}

// ---------------------------------------------------------------- 64-bit usize

#[gpu_kernel]
fn wide(
    a: &[usize],
    b: &[usize],
    s: &[isize],
    mul: &mut [usize],
    add: &mut [usize],
    div: &mut [usize],
    shl: &mut [usize],
    big: &mut [u64],
    sneg: &mut [isize],
    lit: &mut [u64],
) {
    let i = grid_1d();
    if i < mul.len() {
        mul[i] = a[i] * b[i];
        add[i] = a[i] + b[i];
        div[i] = a[i] / (b[i] | 1);
        shl[i] = a[i] << 33;
        big[i] = (i as u64) * 4_000_000_000 + (a[i] as u64);
        sneg[i] = s[i] * -3 - 1;
        lit[i] = 1 << (b[i] % 64);
    }
}

#[test]
fn usize_is_64_bit() {
    let (a, b) = pairs(&[
        0usize,
        1,
        3,
        65536,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        5_000_000_000,
        usize::MAX,
        usize::MAX / 3,
    ]);
    let s: Vec<isize> = a.iter().map(|&x| x as isize).collect();
    let rows: Vec<(usize, usize, usize, isize)> =
        (0..a.len()).map(|i| (i, a[i], b[i], s[i])).collect();
    let n = rows.len();
    for dev in devices("usize_is_64_bit") {
        let (da, db, ds) = (
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
            dev.upload(&s).unwrap(),
        );
        macro_rules! z {
            ($t:ty) => {
                dev.zeros::<$t>(n).unwrap()
            };
        }
        let (mut mul, mut add, mut div, mut shl) = (z!(usize), z!(usize), z!(usize), z!(usize));
        let (mut big, mut sneg, mut lit) = (z!(u64), z!(isize), z!(u64));
        wide::launch(
            &dev,
            cfg(n),
            &da,
            &db,
            &ds,
            &mut mul,
            &mut add,
            &mut div,
            &mut shl,
            &mut big,
            &mut sneg,
            &mut lit,
        )
        .unwrap();
        check(&dev, "usize *", &rows, &mul, |r| r.1.wrapping_mul(r.2));
        check(&dev, "usize +", &rows, &add, |r| r.1.wrapping_add(r.2));
        check(&dev, "usize /", &rows, &div, |r| r.1 / (r.2 | 1));
        check(&dev, "usize << 33", &rows, &shl, |r| r.1 << 33);
        check(&dev, "i as u64 * 4e9", &rows, &big, |r| {
            (r.0 as u64)
                .wrapping_mul(4_000_000_000)
                .wrapping_add(r.1 as u64)
        });
        check(&dev, "isize * -3 - 1", &rows, &sneg, |r| {
            r.3.wrapping_mul(-3).wrapping_sub(1)
        });
        check(&dev, "1 << (b % 64) as u64", &rows, &lit, |r| {
            1u64 << (r.2 % 64)
        });
    }
}

// ---------------------------------------------------------------- bit counting

#[gpu_kernel]
fn bitcount(a: &[u8], b: &[i16], c: &[u64], d: &[i8], e: &[u16], f: &[i32], out: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        let k = i * 18;
        out[k] = a[i].count_ones();
        out[k + 1] = a[i].leading_zeros();
        out[k + 2] = a[i].trailing_zeros();
        out[k + 3] = b[i].count_ones();
        out[k + 4] = b[i].leading_zeros();
        out[k + 5] = b[i].trailing_zeros();
        out[k + 6] = c[i].count_ones();
        out[k + 7] = c[i].leading_zeros();
        out[k + 8] = c[i].trailing_zeros();
        out[k + 9] = d[i].count_ones();
        out[k + 10] = d[i].leading_zeros();
        out[k + 11] = d[i].trailing_zeros();
        out[k + 12] = e[i].count_ones();
        out[k + 13] = e[i].leading_zeros();
        out[k + 14] = e[i].trailing_zeros();
        out[k + 15] = f[i].count_ones();
        out[k + 16] = f[i].leading_zeros();
        out[k + 17] = f[i].trailing_zeros();
    }
}

#[test]
fn bit_counting_on_every_width() {
    let seeds: Vec<u64> = vec![
        0,
        1,
        2,
        0x80,
        0xff,
        0x100,
        0x8000,
        0xffff,
        0x7fff,
        0x8000_0000,
        0xffff_ffff,
        1 << 63,
        u64::MAX,
        0x0123_4567_89ab_cdef,
        0x10,
        0x40_0000_0000,
    ];
    let n = seeds.len();
    let a: Vec<u8> = seeds.iter().map(|&x| x as u8).collect();
    let b: Vec<i16> = seeds.iter().map(|&x| x as i16).collect();
    let d: Vec<i8> = seeds.iter().map(|&x| (x >> 1) as i8).collect();
    let e: Vec<u16> = seeds.iter().map(|&x| (x >> 4) as u16).collect();
    let f: Vec<i32> = seeds.iter().map(|&x| (x >> 3) as i32).collect();
    let mut want = Vec::new();
    for i in 0..n {
        let c = seeds[i];
        want.extend([
            a[i].count_ones(),
            a[i].leading_zeros(),
            a[i].trailing_zeros(),
        ]);
        want.extend([
            b[i].count_ones(),
            b[i].leading_zeros(),
            b[i].trailing_zeros(),
        ]);
        want.extend([c.count_ones(), c.leading_zeros(), c.trailing_zeros()]);
        want.extend([
            d[i].count_ones(),
            d[i].leading_zeros(),
            d[i].trailing_zeros(),
        ]);
        want.extend([
            e[i].count_ones(),
            e[i].leading_zeros(),
            e[i].trailing_zeros(),
        ]);
        want.extend([
            f[i].count_ones(),
            f[i].leading_zeros(),
            f[i].trailing_zeros(),
        ]);
    }
    let names = ["count_ones", "leading_zeros", "trailing_zeros"];
    let tys = ["u8", "i16", "u64", "i8", "u16", "i32"];
    let idx: Vec<usize> = (0..want.len()).collect();
    for dev in devices("bit_counting_on_every_width") {
        let mut out = dev.zeros::<u32>(n * 18).unwrap();
        bitcount::launch(
            &dev,
            cfg(n),
            &dev.upload(&a).unwrap(),
            &dev.upload(&b).unwrap(),
            &dev.upload(&seeds).unwrap(),
            &dev.upload(&d).unwrap(),
            &dev.upload(&e).unwrap(),
            &dev.upload(&f).unwrap(),
            &mut out,
        )
        .unwrap();
        let got = out.download().unwrap();
        for &k in &idx {
            let (row, col) = (k / 18, k % 18);
            assert_eq!(
                got[k],
                want[k],
                "{}.{} on {:?}, seed {:#x}",
                tys[col / 3],
                names[col % 3],
                dev.backend(),
                seeds[row]
            );
        }
    }
}

// ---------------------------------------------------------------- literal inference

#[gpu_kernel]
fn literals(
    x: &[u8],
    s: &[u32],
    out8: &mut [u8],
    out32: &mut [u32],
    out64: &mut [u64],
    outi: &mut [i32],
) {
    let i = grid_1d();
    if i < out8.len() {
        out8[i] = x[i] + 200 + (250 as u8);
        out32[i] = (4_000_000_000 as u32) ^ (s[i] * 3_000_000_000);
        out64[i] = 1 << s[i];
        outi[i] = (x[i] as i32) - 1000 * 3_000_000;
    }
}

#[test]
fn unsuffixed_literals_infer_like_rustc() {
    let x: Vec<u8> = vec![0, 1, 55, 56, 100, 255];
    let s: Vec<u32> = vec![0, 1, 31, 32, 40, 63];
    let rows: Vec<(u8, u32)> = x.iter().copied().zip(s.iter().copied()).collect();
    let n = rows.len();
    for dev in devices("unsuffixed_literals_infer_like_rustc") {
        let (dx, ds) = (dev.upload(&x).unwrap(), dev.upload(&s).unwrap());
        let (mut o8, mut o32, mut o64, mut oi) = (
            dev.zeros::<u8>(n).unwrap(),
            dev.zeros::<u32>(n).unwrap(),
            dev.zeros::<u64>(n).unwrap(),
            dev.zeros::<i32>(n).unwrap(),
        );
        literals::launch(&dev, cfg(n), &dx, &ds, &mut o8, &mut o32, &mut o64, &mut oi).unwrap();
        // A literal cast takes the cast's type in rustc (`300 as u8` is an overflowing
        // literal, `4_000_000_000 as u32` is fine).
        check(&dev, "x + 200 + (250 as u8)", &rows, &o8, |r| {
            r.0.wrapping_add(200).wrapping_add(250)
        });
        check(&dev, "(4e9 as u32) ^ (s * 3e9)", &rows, &o32, |r| {
            4_000_000_000u32 ^ r.1.wrapping_mul(3_000_000_000)
        });
        // `1 << s` into a u64: the 1 is a u64, so 1 << 40 is 2^40.
        check(&dev, "1 << s (u64)", &rows, &o64, |r| 1u64 << r.1);
        check(&dev, "x as i32 - 1000 * 3000000", &rows, &oi, |r| {
            (r.0 as i32).wrapping_sub(1000i32.wrapping_mul(3_000_000))
        });
    }
}

// ---------------------------------------------------------------- float min/max, NaN

#[gpu_kernel]
fn fminmax(a: &[f32], b: &[f32], mn: &mut [f32], mx: &mut [f32], ab: &mut [f32]) {
    let i = grid_1d();
    if i < mn.len() {
        mn[i] = a[i].min(b[i]);
        mx[i] = a[i].max(b[i]);
        ab[i] = a[i].abs();
    }
}

#[test]
fn float_min_max_take_the_number_over_nan() {
    let snan = f32::from_bits(0x7fa0_0001);
    let (a, b) = pairs(&[
        0.0f32,
        1.0,
        -1.0,
        2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        snan,
        f32::MIN_POSITIVE,
        -f32::from_bits(1),
    ]);
    let rows: Vec<(f32, f32)> = a.iter().copied().zip(b.iter().copied()).collect();
    let n = rows.len();
    for dev in devices("float_min_max_take_the_number_over_nan") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let (mut mn, mut mx, mut ab) = (
            dev.zeros::<f32>(n).unwrap(),
            dev.zeros::<f32>(n).unwrap(),
            dev.zeros::<f32>(n).unwrap(),
        );
        fminmax::launch(&dev, cfg(n), &da, &db, &mut mn, &mut mx, &mut ab).unwrap();
        check(&dev, "f32::min", &rows, &mn, |r| r.0.min(r.1));
        check(&dev, "f32::max", &rows, &mx, |r| r.0.max(r.1));
        check(&dev, "f32::abs", &rows, &ab, |r| r.0.abs());
    }
}

/// Rust leaves the sign of `min`/`max` of +0.0 and -0.0 unspecified ("may return either");
/// x86 (the simulator) and the GPU may differ, so only "a zero" is checked. The property
/// test adds `+ 0.0` after float min/max for the same reason.
#[test]
fn float_min_max_of_signed_zeros_is_a_zero() {
    let (a, b) = pairs(&[0.0f32, -0.0]);
    let n = a.len();
    for dev in devices("float_min_max_of_signed_zeros_is_a_zero") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let (mut mn, mut mx, mut ab) = (
            dev.zeros::<f32>(n).unwrap(),
            dev.zeros::<f32>(n).unwrap(),
            dev.zeros::<f32>(n).unwrap(),
        );
        fminmax::launch(&dev, cfg(n), &da, &db, &mut mn, &mut mx, &mut ab).unwrap();
        let (mn, mx) = (mn.download().unwrap(), mx.download().unwrap());
        for i in 0..n {
            assert!(
                mn[i] == 0.0 && mx[i] == 0.0,
                "{:?}: min/max({}, {})",
                dev.backend(),
                a[i],
                b[i]
            );
        }
        println!(
            "{:?}: min over (a, b) in {:?}: {:?}; max: {:?}",
            dev.backend(),
            a.iter().zip(&b).collect::<Vec<_>>(),
            mn,
            mx
        );
    }
}
