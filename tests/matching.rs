//! `match` on integers of every width and on bools (docs/language.md, "match"): literals,
//! ranges (closed, exclusive, open), `|`, `_`, bindings (`n`, `n @ ..`) and guards, as a
//! value and as a statement, on the simulator and on the GPU where there is one, checked
//! against the same `match` run by Rust on the host over random and edge inputs; and NVRTC
//! compiles every kernel here.

// The host twins are the kernels' own matches, overlapping arms (first wins) included.
#![allow(clippy::manual_range_patterns, clippy::match_overlapping_arm)]

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, Rng};

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

/// The host twins of the kernels' matches: the very same Rust.
macro_rules! twin {
    ($(fn $name:ident($x:ident: $t:ty) -> $r:ty $body:block)*) => {
        $(fn $name($x: $t) -> $r $body)*
    };
}

twin! {
    fn classify_i32(x: i32) -> i32 {
        match x {
            i32::MIN..=-1000 => 1,
            -999..=-1 => 2,
            0 => 3,
            1 | 2 | 3 => 4,
            4..10 => 5,
            10..=99 if x % 2 == 0 => 6,
            n @ 10..=99 => n * 3,
            100.. => 7,
        }
    }
    fn classify_u8(x: u8) -> u32 {
        match x {
            0 => 10,
            1..=9 | 250..=u8::MAX => 20,
            b'a'..=b'z' => 30,
            n if n.count_ones() == 4 => 40 + n as u32,
            _ => 50,
        }
    }
    fn classify_i8(x: i8) -> i8 {
        match x {
            ..=-100 => -1,
            -99..=99 => x / 2,
            100.. => 1,
        }
    }
    fn classify_u16(x: u16) -> u16 {
        match x {
            0..=255 => x,
            256..1024 => 1,
            1024 | 2048 | 4096 => 2,
            mut y => {
                y ^= 0x5555;
                y
            }
        }
    }
    fn classify_i16(x: i16) -> i16 {
        match x {
            i16::MIN => 0,
            -5..=5 => 1,
            _ => 2,
        }
    }
    fn classify_u64(x: u64) -> u64 {
        match x {
            0 => 1,
            1..=0xffff_ffff => 2,
            0x1_0000_0000..=0xffff_ffff_ffff_fffe => 3,
            u64::MAX => 4,
        }
    }
    fn classify_i64(x: i64) -> i64 {
        match x {
            i64::MIN => -7,
            ..0 => -1,
            0 => 0,
            1.. => 1,
        }
    }
    fn classify_usize(x: usize) -> usize {
        match x {
            0..=7 => x,
            8 | 16 | 32 => 100,
            33.. => 200,
            _ => 300,
        }
    }
    fn classify_isize(x: isize) -> isize {
        match x {
            ..=-1 => -1,
            0 => 0,
            1.. => 1,
        }
    }
    fn classify_u32(x: u32) -> u32 {
        match x % 7 {
            0 | 6 => 70,
            1..=3 => x / 3,
            _ => 99,
        }
    }
    fn classify_bool(b: bool) -> u32 {
        match b {
            true => 1,
            false => 2,
        }
    }
}

#[gpu_kernel]
fn match_ints(
    a: &[i32],
    b: &[u8],
    c: &[i8],
    d: &[u16],
    e: &[i16],
    f: &[u64],
    g: &[i64],
    h: &[usize],
    k: &[isize],
    m: &[u32],
    oa: &mut [i32],
    ob: &mut [u32],
    oc: &mut [i8],
    od: &mut [u16],
    oe: &mut [i16],
    of: &mut [u64],
    og: &mut [i64],
    oh: &mut [usize],
    ok: &mut [isize],
    om: &mut [u32],
) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        oa[i] = match x {
            i32::MIN..=-1000 => 1,
            -999..=-1 => 2,
            0 => 3,
            1 | 2 | 3 => 4,
            4..10 => 5,
            10..=99 if x % 2 == 0 => 6,
            n @ 10..=99 => n * 3,
            100.. => 7,
        };
        ob[i] = match b[i] {
            0 => 10,
            1..=9 | 250..=u8::MAX => 20,
            97..=122 => 30,
            n if n.count_ones() == 4 => 40 + n as u32,
            _ => 50,
        };
        let x = c[i];
        oc[i] = match x {
            ..=-100 => -1,
            -99..=99 => x / 2,
            100.. => 1,
        };
        let x = d[i];
        od[i] = match x {
            0..=255 => x,
            256..1024 => 1,
            1024 | 2048 | 4096 => 2,
            mut y => {
                y ^= 0x5555;
                y
            }
        };
        oe[i] = match e[i] {
            i16::MIN => 0,
            -5..=5 => 1,
            _ => 2,
        };
        of[i] = match f[i] {
            0 => 1,
            1..=0xffff_ffff => 2,
            0x1_0000_0000..=0xffff_ffff_ffff_fffe => 3,
            u64::MAX => 4,
        };
        og[i] = match g[i] {
            i64::MIN => -7,
            ..0 => -1,
            0 => 0,
            1.. => 1,
        };
        let x = h[i];
        oh[i] = match x {
            0..=7 => x,
            8 | 16 | 32 => 100,
            33.. => 200,
            _ => 300,
        };
        ok[i] = match k[i] {
            ..=-1 => -1,
            0 => 0,
            1.. => 1,
        };
        let x = m[i];
        om[i] = match x % 7 {
            0 | 6 => 70,
            1..=3 => x / 3,
            _ => 99,
        };
    }
}

/// Random values of a type with its edges mixed in.
fn values<T: Copy>(rng: &mut Rng, n: usize, edges: &[T], random: impl Fn(u64) -> T) -> Vec<T> {
    (0..n)
        .map(|i| {
            if i < edges.len() {
                edges[i]
            } else if rng.next_u32().is_multiple_of(4) {
                edges[rng.next_u32() as usize % edges.len()]
            } else {
                random(rng.next_u64())
            }
        })
        .collect()
}

#[test]
fn match_on_every_integer_width() {
    let mut rng = Rng::new(7);
    let n = 4096;
    let a = values(
        &mut rng,
        n,
        &[
            i32::MIN,
            -1000,
            -999,
            -1,
            0,
            1,
            3,
            4,
            9,
            10,
            11,
            98,
            99,
            100,
            i32::MAX,
        ],
        |r| match r % 3 {
            0 => (r >> 8) as i32,
            1 => (r >> 8) as i32 % 200,
            _ => (r >> 8) as i32 % 2000,
        },
    );
    let b = values(
        &mut rng,
        n,
        &[0u8, 1, 9, 10, 96, 97, 122, 123, 249, 250, 255, 15, 0xf0],
        |r| r as u8,
    );
    let c = values(
        &mut rng,
        n,
        &[i8::MIN, -100, -99, 0, 99, 100, i8::MAX],
        |r| r as i8,
    );
    let d = values(
        &mut rng,
        n,
        &[0u16, 255, 256, 1023, 1024, 2048, 4096, u16::MAX],
        |r| r as u16,
    );
    let e = values(&mut rng, n, &[i16::MIN, -6, -5, 5, 6, i16::MAX], |r| {
        (r as i16) % 10
    });
    let f = values(
        &mut rng,
        n,
        &[0u64, 1, 0xffff_ffff, 0x1_0000_0000, u64::MAX - 1, u64::MAX],
        |r| r >> (r % 64),
    );
    let g = values(
        &mut rng,
        n,
        &[i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX],
        |r| r as i64,
    );
    let h = values(&mut rng, n, &[0usize, 7, 8, 16, 32, 33, usize::MAX], |r| {
        (r % 40) as usize
    });
    let k = values(&mut rng, n, &[isize::MIN, -1, 0, 1, isize::MAX], |r| {
        r as isize
    });
    let m = values(&mut rng, n, &[0u32, 6, 7, u32::MAX], |r| r as u32);
    for dev in devices("match_on_every_integer_width") {
        let up = |v| v;
        let _ = up(0);
        let (da, db, dc, dd, de) = (
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
            dev.upload(&c).unwrap(),
            dev.upload(&d).unwrap(),
            dev.upload(&e).unwrap(),
        );
        let (df, dg, dh, dk, dm) = (
            dev.upload(&f).unwrap(),
            dev.upload(&g).unwrap(),
            dev.upload(&h).unwrap(),
            dev.upload(&k).unwrap(),
            dev.upload(&m).unwrap(),
        );
        // Poisoned outputs: an element no arm wrote shows.
        let mut oa = dev.upload(&vec![-55i32; n]).unwrap();
        let mut ob = dev.upload(&vec![55u32; n]).unwrap();
        let mut oc = dev.upload(&vec![55i8; n]).unwrap();
        let mut od = dev.upload(&vec![55u16; n]).unwrap();
        let mut oe = dev.upload(&vec![55i16; n]).unwrap();
        let mut of = dev.upload(&vec![55u64; n]).unwrap();
        let mut og = dev.upload(&vec![55i64; n]).unwrap();
        let mut oh = dev.upload(&vec![55usize; n]).unwrap();
        let mut ok = dev.upload(&vec![55isize; n]).unwrap();
        let mut om = dev.upload(&vec![55u32; n]).unwrap();
        match_ints::launch(
            &dev,
            cfg(n),
            &da,
            &db,
            &dc,
            &dd,
            &de,
            &df,
            &dg,
            &dh,
            &dk,
            &dm,
            &mut oa,
            &mut ob,
            &mut oc,
            &mut od,
            &mut oe,
            &mut of,
            &mut og,
            &mut oh,
            &mut ok,
            &mut om,
        )
        .unwrap();
        let be = dev.backend();
        macro_rules! check {
            ($out:ident, $inp:ident, $f:ident) => {
                let got = $out.download().unwrap();
                for i in 0..n {
                    assert_eq!(
                        got[i],
                        $f($inp[i]),
                        "{} on {be:?}: input {:?}",
                        stringify!($f),
                        $inp[i]
                    );
                }
            };
        }
        check!(oa, a, classify_i32);
        check!(ob, b, classify_u8);
        check!(oc, c, classify_i8);
        check!(od, d, classify_u16);
        check!(oe, e, classify_i16);
        check!(of, f, classify_u64);
        check!(og, g, classify_i64);
        check!(oh, h, classify_usize);
        check!(ok, k, classify_isize);
        check!(om, m, classify_u32);
    }
}

#[gpu_device]
fn sign_word(x: i32) -> u32 {
    // A device function whose value is the match (its tail).
    match x {
        ..0 => 0xaaaa,
        0 => 0,
        _ => 0x5555,
    }
}

#[gpu_device]
fn weight(x: i32) -> i32 {
    x * 2 + 1
}

#[gpu_kernel]
fn match_statements(flags: &[bool], xs: &[i32], out: &mut [u32], acc: &mut [i32]) {
    let i = grid_1d();
    if i < flags.len() {
        // A statement whose arms assign and return.
        let mut v = 0u32;
        match flags[i] {
            true => v += 1,
            false => {
                v += 2;
            }
        }
        let x = xs[i];
        match x & 3 {
            0 => {}
            1 => v += 10,
            2 => {
                out[i] = 777;
                return;
            }
            _ => v += 30,
        }
        // A guard that calls a device function (the guard needs statements only when
        // it has them; this one is an expression), and one with a block.
        let w = match x {
            n if {
                let w: i32 = weight(n);
                w > 100
            } =>
            {
                1
            }
            n if {
                let t = n - 3;
                t * t < 50
            } =>
            {
                2
            }
            _ => 3,
        };
        // In a loop: `continue` and `break` from arms.
        let mut s = 0i32;
        for k in 0..8i32 {
            match k {
                3 => continue,
                6 => break,
                _ => s += k * x,
            }
        }
        // Arms of unsuffixed literals: typed by where the value goes.
        let bw = match flags[i] {
            true => 1,
            false => 2,
        };
        out[i] = v + w * 100 + sign_word(x) + bw * 1000;
        acc[i] = s;
    }
}

fn host_statements(flag: bool, x: i32) -> (u32, i32) {
    let mut v = 0u32;
    match flag {
        true => v += 1,
        false => v += 2,
    }
    match x & 3 {
        0 => {}
        1 => v += 10,
        2 => return (777, 55),
        _ => v += 30,
    }
    let w = match x {
        n if n.wrapping_mul(2).wrapping_add(1) > 100 => 1,
        n if {
            let t = n.wrapping_sub(3);
            t.wrapping_mul(t) < 50
        } =>
        {
            2
        }
        _ => 3,
    };
    let mut s = 0i32;
    for k in 0..8i32 {
        match k {
            3 => continue,
            6 => break,
            _ => s = s.wrapping_add(k.wrapping_mul(x)),
        }
    }
    let sign = match x {
        ..0 => 0xaaaa,
        0 => 0,
        _ => 0x5555,
    };
    (v + w * 100 + sign + classify_bool(flag) * 1000, s)
}

#[test]
fn match_as_statement_with_guards_and_jumps() {
    let mut rng = Rng::new(3);
    let n = 2000;
    let flags: Vec<bool> = (0..n).map(|_| rng.next_u32().is_multiple_of(2)).collect();
    let xs: Vec<i32> = (0..n)
        .map(|i| match i % 3 {
            0 => (rng.next_u32() % 120) as i32 - 60,
            1 => rng.next_u32() as i32,
            _ => (rng.next_u32() % 20) as i32 - 3,
        })
        .collect();
    for dev in devices("match_as_statement_with_guards_and_jumps") {
        let (df, dx) = (dev.upload(&flags).unwrap(), dev.upload(&xs).unwrap());
        let mut out = dev.upload(&vec![1u32; n]).unwrap();
        let mut acc = dev.upload(&vec![55i32; n]).unwrap();
        match_statements::launch(&dev, cfg(n), &df, &dx, &mut out, &mut acc).unwrap();
        let (out, acc) = (out.download().unwrap(), acc.download().unwrap());
        for i in 0..n {
            let (w_out, w_acc) = host_statements(flags[i], xs[i]);
            assert_eq!(
                out[i],
                w_out,
                "{:?}: flag {} x {}",
                dev.backend(),
                flags[i],
                xs[i]
            );
            if w_out != 777 {
                assert_eq!(acc[i], w_acc, "{:?}: x {}", dev.backend(), xs[i]);
            }
        }
    }
}

const OP_ADD: u8 = 1;
const OP_SUB: u8 = 2;
const OP_LAST: u8 = 6;
mod ops {
    pub const MUL: u8 = 7;
}

/// Opcode dispatch on module-level constants (by name, by path, in alternatives).
#[gpu_kernel]
fn dispatch(code: &[u8], a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < code.len() {
        out[i] = match code[i] {
            OP_ADD => a[i] + b[i],
            OP_SUB | 3 => a[i] - b[i],
            ops::MUL => a[i] * b[i],
            0 => 0,
            4..OP_LAST => a[i] ^ b[i],
            OP_LAST..=9 => 100,
            _ => -1,
        };
    }
}

#[test]
fn match_on_module_constants() {
    let mut rng = Rng::new(13);
    let n = 1000;
    let code: Vec<u8> = (0..n).map(|_| (rng.next_u32() % 12) as u8).collect();
    let a: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
    let b: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32).collect();
    let want: Vec<i32> = (0..n)
        .map(|i| match code[i] {
            OP_ADD => a[i].wrapping_add(b[i]),
            OP_SUB | 3 => a[i].wrapping_sub(b[i]),
            ops::MUL => a[i].wrapping_mul(b[i]),
            0 => 0,
            4..OP_LAST => a[i] ^ b[i],
            OP_LAST..=9 => 100,
            _ => -1,
        })
        .collect();
    for dev in devices("match_on_module_constants") {
        let (dc, da, db) = (
            dev.upload(&code).unwrap(),
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
        );
        let mut out = dev.upload(&vec![55i32; n]).unwrap();
        dispatch::launch(&dev, cfg(n), &dc, &da, &db, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

/// Every kernel of this file, for the NVRTC check.
fn kernels() -> Vec<(&'static str, &'static warpspeed::__private::KernelDef)> {
    vec![
        ("match_ints", &match_ints::KERNEL),
        ("match_statements", &match_statements::KERNEL),
        ("dispatch", &dispatch::KERNEL),
    ]
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&kernels());
}
