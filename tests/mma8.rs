//! `mma.sync` m16n8k32 with 8-bit operands (issue 21, item 2; docs/tensor-cores.md): `i8`
//! and `u8` into an `i32` accumulator (exact, wrapping modulo 2^32), `e4m3` and `e5m2`
//! into `f32` (sm_89 and later). Each kernel loads its fragments through index tables the
//! host builds from `warpspeed::mma::fragment_owner`, so the GPU agrees with the CPU
//! reference only if that table is the PTX ISA's. On the simulator and the GPU where there
//! is one, outputs poisoned before each run.

use warpspeed::mma::{fragment_len, fragment_owner, FragmentRole, MmaShape};
use warpspeed::prelude::*;
use warpspeed::{e4m3, e5m2, Backend, Error, LaunchConfig};

mod common;
use common::{devices, Rng};

const S: MmaShape = MmaShape::M16N8K32;

/// `d = a * b + c`, s8 x s8 + s32 -> s32 (a 16 x 32, b 32 x 8, both row major;
/// `at` holds A's, then B's, then C's offsets, lane-major, as `offsets` lays them out).
#[gpu_kernel]
fn mma_s8(a: &[i8], b: &[i8], c: &[i32], d: &mut [i32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<i8, M16N8K32>::zeroed();
    let mut fb = FragmentB::<i8, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_s8` with u8 operands.
#[gpu_kernel]
fn mma_u8(a: &[u8], b: &[u8], c: &[i32], d: &mut [i32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<u8, M16N8K32>::zeroed();
    let mut fb = FragmentB::<u8, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_s8` with e4m3 operands into an f32 accumulator.
#[gpu_kernel]
fn mma_e4m3(a: &[e4m3], b: &[e4m3], c: &[f32], d: &mut [f32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<e4m3, M16N8K32>::zeroed();
    let mut fb = FragmentB::<e4m3, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_e4m3` with e5m2 operands.
#[gpu_kernel]
fn mma_e5m2(a: &[e5m2], b: &[e5m2], c: &[f32], d: &mut [f32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<e5m2, M16N8K32>::zeroed();
    let mut fb = FragmentB::<e5m2, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_s8`'s product with s8 A, u8 B (a mixed form).
#[gpu_kernel]
fn mma_s8_u8(a: &[i8], b: &[u8], c: &[i32], d: &mut [i32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<i8, M16N8K32>::zeroed();
    let mut fb = FragmentB::<u8, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_s8`'s product with u8 A, s8 B (a mixed form).
#[gpu_kernel]
fn mma_u8_s8(a: &[u8], b: &[i8], c: &[i32], d: &mut [i32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<u8, M16N8K32>::zeroed();
    let mut fb = FragmentB::<i8, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_s8`'s product with e4m3 A, e5m2 B (a mixed form).
#[gpu_kernel]
fn mma_e4m3_e5m2(a: &[e4m3], b: &[e5m2], c: &[f32], d: &mut [f32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<e4m3, M16N8K32>::zeroed();
    let mut fb = FragmentB::<e5m2, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `mma_s8`'s product with e5m2 A, e4m3 B (a mixed form).
#[gpu_kernel]
fn mma_e5m2_e4m3(a: &[e5m2], b: &[e4m3], c: &[f32], d: &mut [f32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<e5m2, M16N8K32>::zeroed();
    let mut fb = FragmentB::<e4m3, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    for i in 0..4 {
        acc.x[i] = c[at[768 + lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[at[768 + lane * 4 + i] as usize] = acc.x[i];
    }
}

/// Each lane writes its accumulator elements in lane order: `out[lane * 4 + i] = acc.x[i]`,
/// A and B loaded as `mma_s8` does.
#[gpu_kernel]
fn owners_s8(a: &[i8], b: &[i8], out: &mut [i32], at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<i8, M16N8K32>::zeroed();
    let mut fb = FragmentB::<i8, M16N8K32>::zeroed();
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    for i in 0..16 {
        fa.x[i] = a[at[lane * 16 + i] as usize];
    }
    for i in 0..8 {
        fb.x[i] = b[at[512 + lane * 8 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        out[lane * 4 + i] = acc.x[i];
    }
}

/// `fragment_owner`'s offsets `row * cols + col` of A (16 x 32), B (32 x 8) and C (16 x 8),
/// each lane-major, one after the other (512 + 256 + 128 entries).
fn offsets() -> Vec<u32> {
    let mut v = Vec::new();
    for (role, cols) in [
        (FragmentRole::A, 32),
        (FragmentRole::B, 8),
        (FragmentRole::Acc, 8),
    ] {
        let len = fragment_len(role, S);
        for lane in 0..32u32 {
            for i in 0..len {
                let (r, c) = fragment_owner(role, S, lane, i);
                v.push((r * cols + c) as u32);
            }
        }
    }
    v
}

/// `a * b + c` (16 x 32 times 32 x 8) in i64, wrapped to i32 as PTX's `.s32` without
/// `.satfinite` does.
fn int_reference(a: &[i64], b: &[i64], c: &[i32]) -> Vec<i32> {
    (0..128)
        .map(|e| {
            let (r, col) = (e / 8, e % 8);
            let s: i64 = (0..32).map(|k| a[r * 32 + k] * b[k * 8 + col]).sum();
            (s + i64::from(c[e])) as i32
        })
        .collect()
}

/// `a * b + c` in f64, with `|c| + sum |a_k b_k|` (the error bound's scale) beside it.
fn float_reference(a: &[f32], b: &[f32], c: &[f32]) -> Vec<(f64, f64)> {
    (0..128)
        .map(|e| {
            let (r, col) = (e / 8, e % 8);
            let (mut s, mut mag) = (f64::from(c[e]), f64::from(c[e]).abs());
            for k in 0..32 {
                let p = f64::from(a[r * 32 + k]) * f64::from(b[k * 8 + col]);
                s += p;
                mag += p.abs();
            }
            (s, mag)
        })
        .collect()
}

fn random_c(rng: &mut Rng, lo: i32, hi: i32) -> Vec<i32> {
    (0..128)
        .map(|_| {
            lo.wrapping_add((rng.next_u64() % (i64::from(hi) - i64::from(lo) + 1) as u64) as i32)
        })
        .collect()
}

/// Runs the integer kernel whose A is signed (`sa`) or not and B likewise (`sb`) on the
/// bytes `a` and `b` (read as i8 where signed), on `dev`.
fn run_int(dev: &Device, (sa, sb): (bool, bool), a: &[u8], b: &[u8], c: &[i32]) -> Vec<i32> {
    let at = dev.upload(&offsets()).unwrap();
    let dc = dev.upload(c).unwrap();
    let mut d = dev.upload(&vec![i32::MIN + 7; 128]).unwrap();
    let cfg = LaunchConfig::new(1, 32);
    let signed = |v: &[u8]| v.iter().map(|&x| x as i8).collect::<Vec<i8>>();
    let (ia, ib) = (
        dev.upload(&signed(a)).unwrap(),
        dev.upload(&signed(b)).unwrap(),
    );
    let (ua, ub) = (dev.upload(a).unwrap(), dev.upload(b).unwrap());
    match (sa, sb) {
        (true, true) => mma_s8::launch(dev, cfg, &ia, &ib, &dc, &mut d, &at),
        (false, false) => mma_u8::launch(dev, cfg, &ua, &ub, &dc, &mut d, &at),
        (true, false) => mma_s8_u8::launch(dev, cfg, &ia, &ub, &dc, &mut d, &at),
        (false, true) => mma_u8_s8::launch(dev, cfg, &ua, &ib, &dc, &mut d, &at),
    }
    .unwrap();
    d.download().unwrap()
}

/// Random s8 and u8 matrices over their whole ranges, in all four pairings, give the exact
/// integer product on both backends.
#[test]
fn m16n8k32_s8_and_u8_are_exact() {
    let mut rng = Rng::new(832);
    for dev in devices("m16n8k32_s8_and_u8_are_exact") {
        for signs in [(true, true), (false, false), (true, false), (false, true)] {
            for _ in 0..2 {
                let a: Vec<u8> = (0..512).map(|_| rng.next_u32() as u8).collect();
                let b: Vec<u8> = (0..256).map(|_| rng.next_u32() as u8).collect();
                let c = random_c(&mut rng, -1 << 30, 1 << 30);
                let wide = |signed: bool| {
                    move |x: &u8| match signed {
                        true => i64::from(*x as i8),
                        false => i64::from(*x),
                    }
                };
                let wa: Vec<i64> = a.iter().map(wide(signs.0)).collect();
                let wb: Vec<i64> = b.iter().map(wide(signs.1)).collect();
                let got = run_int(&dev, signs, &a, &b, &c);
                assert_eq!(
                    got,
                    int_reference(&wa, &wb, &c),
                    "{:?}, signed (A, B) {signs:?}",
                    dev.backend()
                );
            }
        }
    }
}

/// The `.s32` accumulator wraps modulo 2^32 (no `.satfinite`): u8 255 everywhere adds
/// 32 * 255 * 255 to C near `i32::MAX`, and s8 -128 * 127 near `i32::MIN`.
#[test]
fn m16n8k32_s32_accumulator_wraps() {
    for dev in devices("m16n8k32_s32_accumulator_wraps") {
        let c: Vec<i32> = (0..128).map(|e| i32::MAX - e * 1000).collect();
        let got = run_int(&dev, (false, false), &[255; 512], &[255; 256], &c);
        let want: Vec<i32> = c.iter().map(|&x| x.wrapping_add(32 * 255 * 255)).collect();
        assert_eq!(got, want, "{:?}", dev.backend());
        assert!(got.iter().all(|&x| x < 0), "{:?}: wrapped", dev.backend());
        let c: Vec<i32> = (0..128).map(|e| i32::MIN + e * 1000).collect();
        let got = run_int(&dev, (true, true), &[0x80; 512], &[127; 256], &c);
        let want: Vec<i32> = c.iter().map(|&x| x.wrapping_add(32 * -128 * 127)).collect();
        assert_eq!(got, want, "{:?}", dev.backend());
    }
}

/// A whose row r is (r, 1, 0, ...) and B whose rows are (16, 16, ...) and (0, 1, ..., 7):
/// D[r][c] = 16 r + c, so each lane's `acc.x[i]` names its own (row, col), which must be
/// `fragment_owner(Acc, M16N8K32, lane, i)`.
#[test]
fn each_lane_holds_the_documented_elements() {
    let mut a = vec![0i8; 512];
    for r in 0..16 {
        a[r * 32] = r as i8;
        a[r * 32 + 1] = 1;
    }
    let mut b = vec![0i8; 256];
    for c in 0..8 {
        b[c] = 16;
        b[8 + c] = c as i8;
    }
    for dev in devices("m16n8k32 each_lane_holds_the_documented_elements") {
        let at = dev.upload(&offsets()).unwrap();
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut out = dev.upload(&vec![-1i32; 128]).unwrap();
        owners_s8::launch(&dev, LaunchConfig::new(1, 32), &da, &db, &mut out, &at).unwrap();
        let out = out.download().unwrap();
        for lane in 0..32u32 {
            for i in 0..4 {
                let (r, c) = fragment_owner(FragmentRole::Acc, S, lane, i);
                assert_eq!(
                    out[lane as usize * 4 + i],
                    (16 * r + c) as i32,
                    "{:?}: lane {lane} x[{i}]",
                    dev.backend()
                );
            }
        }
    }
}

/// Whether `dev` runs fp8 `mma.sync`; on a GPU before sm_89, `r` must be the refusal
/// naming sm_89.
fn runs_fp8(dev: &Device, r: &warpspeed::Result<()>) -> bool {
    if dev.backend() == Backend::Simulator || dev.compute_capability() >= Some((8, 9)) {
        return true;
    }
    match r {
        Err(Error::UnsupportedArch { reason, .. }) => {
            assert!(reason.contains("sm_89"), "{reason}");
            println!("SKIPPED fp8 mma on this GPU: it needs sm_89; checked the refusal");
            false
        }
        other => panic!(
            "{:?}: expected UnsupportedArch, got {other:?}",
            dev.backend()
        ),
    }
}

/// Runs the fp8 kernel whose A is e5m2 (`e5.0`) or e4m3, and B likewise (`e5.1`), on f32
/// values already exact in those formats; `None` where the GPU cannot (after checking its
/// refusal).
fn run_fp8(dev: &Device, e5: (bool, bool), a: &[f32], b: &[f32], c: &[f32]) -> Option<Vec<f32>> {
    let at = dev.upload(&offsets()).unwrap();
    let dc = dev.upload(c).unwrap();
    let mut d = dev.upload(&vec![f32::NAN; 128]).unwrap();
    let cfg = LaunchConfig::new(1, 32);
    let e4 = |v: &[f32]| v.iter().map(|&x| e4m3::from_f32(x)).collect::<Vec<_>>();
    let e5f = |v: &[f32]| v.iter().map(|&x| e5m2::from_f32(x)).collect::<Vec<_>>();
    let (a4, b4) = (dev.upload(&e4(a)).unwrap(), dev.upload(&e4(b)).unwrap());
    let (a5, b5) = (dev.upload(&e5f(a)).unwrap(), dev.upload(&e5f(b)).unwrap());
    let r = match e5 {
        (false, false) => mma_e4m3::launch(dev, cfg, &a4, &b4, &dc, &mut d, &at),
        (true, true) => mma_e5m2::launch(dev, cfg, &a5, &b5, &dc, &mut d, &at),
        (false, true) => mma_e4m3_e5m2::launch(dev, cfg, &a4, &b5, &dc, &mut d, &at),
        (true, false) => mma_e5m2_e4m3::launch(dev, cfg, &a5, &b4, &dc, &mut d, &at),
    };
    if !runs_fp8(dev, &r) {
        return None;
    }
    r.unwrap();
    Some(d.download().unwrap())
}

/// (A is e5m2, B is e5m2): the four fp8 rows.
const FP8_FORMATS: [(bool, bool); 4] = [(false, false), (true, true), (false, true), (true, false)];

/// `x` rounded to e5m2 (`e5`) or e4m3 and back.
fn fp8(e5: bool, x: f32) -> f32 {
    match e5 {
        true => e5m2::from_f32(x).to_f32(),
        false => e4m3::from_f32(x).to_f32(),
    }
}

fn small_ints(rng: &mut Rng, n: usize, lo: i32, hi: i32) -> Vec<f32> {
    (0..n)
        .map(|_| (lo + (rng.next_u32() % (hi - lo + 1) as u32) as i32) as f32)
        .collect()
}

/// e4m3 and e5m2 small integers (exact in both formats, products and sums exact in f32)
/// give the exact product on both backends.
#[test]
fn m16n8k32_fp8_small_values_are_exact() {
    let mut rng = Rng::new(89);
    for dev in devices("m16n8k32_fp8_small_values_are_exact") {
        for e5 in FP8_FORMATS {
            let a = small_ints(&mut rng, 512, -4, 4);
            let b = small_ints(&mut rng, 256, -4, 4);
            let c = small_ints(&mut rng, 128, -100, 100);
            let Some(got) = run_fp8(&dev, e5, &a, &b, &c) else {
                continue;
            };
            let want: Vec<f32> = float_reference(&a, &b, &c)
                .iter()
                .map(|&(s, _)| s as f32)
                .collect();
            assert_eq!(got, want, "{:?}, e5m2 (A, B) {e5:?}", dev.backend());
        }
    }
}

/// Random fp8 reals (every finite value in [-8, 8] of the format, subnormals included):
/// the simulator's correctly rounded sum, and the GPU within the documented bound
/// `2^-7 * (|c| + sum_k |a_k b_k|)` of it.
#[test]
fn m16n8k32_fp8_random_within_the_documented_bound() {
    let mut rng = Rng::new(8989);
    for dev in devices("m16n8k32_fp8_random_within_the_documented_bound") {
        for e5 in FP8_FORMATS {
            let mut r =
                |n, e| -> Vec<f32> { (0..n).map(|_| fp8(e, rng.range_f32(-8.0, 8.0))).collect() };
            let (a, b, c) = (r(512, e5.0), r(256, e5.1), r(128, false));
            let Some(got) = run_fp8(&dev, e5, &a, &b, &c) else {
                continue;
            };
            for (i, (&g, &(want, mag))) in got.iter().zip(&float_reference(&a, &b, &c)).enumerate()
            {
                if dev.backend() == Backend::Simulator {
                    assert_eq!(g, want as f32, "simulator: d[{i}], {e5:?}");
                } else {
                    let bound = mag * 2f64.powi(-7);
                    assert!(
                        (f64::from(g) - want).abs() <= bound,
                        "{:?}: d[{i}] = {g}, exact {want}, bound {bound}, {e5:?}",
                        dev.backend()
                    );
                }
            }
        }
    }
}

/// The C compiles with NVRTC: the integer kernels for sm_80, sm_89 and sm_90, the fp8
/// ones for sm_89 and sm_90 (for sm_80 they are refused before compiling,
/// `fp8_kernels_need_sm89`).
#[test]
fn nvrtc_compiles_for_sm80_sm89_and_sm90() {
    let ints = [
        ("mma_s8", &mma_s8::KERNEL),
        ("mma_u8", &mma_u8::KERNEL),
        ("owners_s8", &owners_s8::KERNEL),
        ("mma_s8_u8", &mma_s8_u8::KERNEL),
        ("mma_u8_s8", &mma_u8_s8::KERNEL),
    ];
    common::nvrtc_compiles_for(&ints, &[(8, 0), (8, 9), (9, 0)]);
    let fp8 = [
        ("mma_e4m3", &mma_e4m3::KERNEL),
        ("mma_e5m2", &mma_e5m2::KERNEL),
        ("mma_e4m3_e5m2", &mma_e4m3_e5m2::KERNEL),
        ("mma_e5m2_e4m3", &mma_e5m2_e4m3::KERNEL),
    ];
    common::nvrtc_compiles_for(&fp8, &[(8, 9), (9, 0)]);
}

/// The fp8 kernels need sm_89 (by their C), the integer ones nothing beyond sm_80.
#[test]
fn fp8_kernels_need_sm89() {
    for (k, fp8) in [
        (&mma_e4m3::KERNEL, true),
        (&mma_e5m2::KERNEL, true),
        (&mma_e4m3_e5m2::KERNEL, true),
        (&mma_e5m2_e4m3::KERNEL, true),
        (&mma_s8::KERNEL, false),
        (&mma_u8_s8::KERNEL, false),
        (&mma_u8::KERNEL, false),
    ] {
        let on_80 = warpspeed::compile::arch::gpu_architecture(k.source.as_str(), (8, 0));
        assert_eq!(on_80.is_err(), fp8, "{on_80:?}");
        if fp8 {
            assert!(on_80.unwrap_err().contains("sm_89"));
            assert_eq!(
                warpspeed::compile::arch::gpu_architecture(k.source.as_str(), (8, 9)).unwrap(),
                "sm_89"
            );
        }
    }
}
