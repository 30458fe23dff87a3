//! Warp-level matrix multiply (issue 21, item 2; docs/tensor-cores.md): typed fragments,
//! `frag.x[i]` per lane, `acc.mma_sync(a, b)`. Each kernel loads its fragments through
//! index tables the host builds from `warpspeed::mma::fragment_owner`, so the GPU's
//! results agree with the CPU reference only if that table is the PTX ISA's. On the
//! simulator and the GPU where there is one, outputs poisoned before each run.

use warpspeed::mma::{fragment_len, fragment_owner, FragmentRole, MmaShape};
use warpspeed::prelude::*;
use warpspeed::{bf16, f16, LaunchConfig};

mod common;
use common::{devices, expect_oob, line_of, Rng};

/// One m16n8k16 product, f16 x f16 + f32 -> f32: `d = a * b + c` (a 16 x 16, b 16 x 8,
/// both row major; `*_at[lane * len + i]` is the offset of element i of lane's fragment).
#[gpu_kernel]
fn mma_f32(
    a: &[f16],
    b: &[f16],
    c: &[f32],
    d: &mut [f32],
    a_at: &[u32],
    b_at: &[u32],
    c_at: &[u32],
) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<f16, M16N8K16>::zeroed();
    let mut fb = FragmentB::<f16, M16N8K16>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    for i in 0..8 {
        fa.x[i] = a[a_at[lane * 8 + i] as usize];
    }
    for i in 0..4 {
        fb.x[i] = b[b_at[lane * 4 + i] as usize];
        acc.x[i] = c[c_at[lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[c_at[lane * 4 + i] as usize] = acc.x[i];
    }
}

/// bf16 x bf16 + f32 -> f32, m16n8k16 and (with `k8`) m16n8k8, as `mma_f32` lays out.
#[gpu_kernel]
fn mma_bf16(a: &[bf16], b: &[bf16], c: &[f32], d: &mut [f32], d8: &mut [f32], at: &[u32]) {
    // `at`: the offsets of A (8 per lane), B (4), C (4) of m16n8k16, then A (4), B (2) of
    // m16n8k8, each block 32 lanes long.
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<bf16, M16N8K16>::zeroed();
    let mut fb = FragmentB::<bf16, M16N8K16>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    let mut fa8 = FragmentA::<bf16, M16N8K8>::zeroed();
    let mut fb8 = FragmentB::<bf16, M16N8K8>::zeroed();
    let mut acc8 = FragmentAcc::<f32, M16N8K8>::zeroed();
    for i in 0..8 {
        fa.x[i] = a[at[lane * 8 + i] as usize];
    }
    for i in 0..4 {
        fb.x[i] = b[at[256 + lane * 4 + i] as usize];
        acc.x[i] = c[at[384 + lane * 4 + i] as usize];
        acc8.x[i] = acc.x[i];
        fa8.x[i] = a[at[512 + lane * 4 + i] as usize];
    }
    for i in 0..2 {
        fb8.x[i] = b[at[640 + lane * 2 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    acc8.mma_sync(fa8, fb8);
    for i in 0..4 {
        d[at[384 + lane * 4 + i] as usize] = acc.x[i];
        d8[at[384 + lane * 4 + i] as usize] = acc8.x[i];
    }
}

/// The same with an f16 accumulator.
#[gpu_kernel]
fn mma_f16(
    a: &[f16],
    b: &[f16],
    c: &[f16],
    d: &mut [f16],
    a_at: &[u32],
    b_at: &[u32],
    c_at: &[u32],
) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<f16, M16N8K16>::zeroed();
    let mut fb = FragmentB::<f16, M16N8K16>::zeroed();
    let mut acc = FragmentAcc::<f16, M16N8K16>::zeroed();
    for i in 0..8 {
        fa.x[i] = a[a_at[lane * 8 + i] as usize];
    }
    for i in 0..4 {
        fb.x[i] = b[b_at[lane * 4 + i] as usize];
        acc.x[i] = c[c_at[lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[c_at[lane * 4 + i] as usize] = acc.x[i];
    }
}

/// m16n8k8, f16 x f16 + f32 -> f32 (a 16 x 8, b 8 x 8).
#[gpu_kernel]
fn mma_k8(
    a: &[f16],
    b: &[f16],
    c: &[f32],
    d: &mut [f32],
    a_at: &[u32],
    b_at: &[u32],
    c_at: &[u32],
) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<f16, M16N8K8>::zeroed();
    let mut fb = FragmentB::<f16, M16N8K8>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K8>::zeroed();
    for i in 0..4 {
        fa.x[i] = a[a_at[lane * 4 + i] as usize];
        acc.x[i] = c[c_at[lane * 4 + i] as usize];
    }
    for i in 0..2 {
        fb.x[i] = b[b_at[lane * 2 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[c_at[lane * 4 + i] as usize] = acc.x[i];
    }
}

/// Each lane writes its accumulator elements in lane order: `out[lane * 4 + i] = acc.x[i]`.
#[gpu_kernel]
fn owners(a: &[f16], b: &[f16], out: &mut [f32], a_at: &[u32], b_at: &[u32]) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<f16, M16N8K16>::zeroed();
    let mut fb = FragmentB::<f16, M16N8K16>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    for i in 0..8 {
        fa.x[i] = a[a_at[lane * 8 + i] as usize];
    }
    for i in 0..4 {
        fb.x[i] = b[b_at[lane * 4 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        out[lane * 4 + i] = acc.x[i];
    }
}

/// C = A * B (n x n, row major, n a multiple of 32) by blocks of 4 warps: each block a 32 x
/// 16 tile of C, each warp a 16 x 8 piece of it, A and B staged through shared tiles 16
/// deep in K. `*_at` as in `mma_f32`, with row strides 16 (A tile) and 16 (B tile, K x 16).
#[gpu_kernel(block = (128, 1, 1))]
fn gemm(
    a: &[f16],
    b: &[f16],
    c: &mut [f32],
    n: usize,
    a_at: &[u32],
    b_at: &[u32],
    c_row: &[u32],
    c_col: &[u32],
) {
    let ta = SharedArray::<f16, 512>::new(); // 32 x 16 of A
    let tb = SharedArray::<f16, 256>::new(); // 16 x 16 of B
    let t = thread_idx().x as usize;
    let warp = t / 32;
    let lane = t % 32;
    let row0 = block_idx().y as usize * 32;
    let col0 = block_idx().x as usize * 16;
    let (wr, wc) = ((warp / 2) * 16, (warp % 2) * 8);
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    let mut k0 = 0;
    while k0 < n {
        for e in 0..4 {
            let q = t * 4 + e; // 512 elements of A's tile
            ta[q] = a[(row0 + q / 16) * n + k0 + q % 16];
        }
        for e in 0..2 {
            let q = t * 2 + e; // 256 of B's
            tb[q] = b[(k0 + q / 16) * n + col0 + q % 16];
        }
        sync_threads();
        let mut fa = FragmentA::<f16, M16N8K16>::zeroed();
        let mut fb = FragmentB::<f16, M16N8K16>::zeroed();
        for i in 0..8 {
            fa.x[i] = ta[wr * 16 + a_at[lane * 8 + i] as usize];
        }
        for i in 0..4 {
            fb.x[i] = tb[wc + b_at[lane * 4 + i] as usize];
        }
        acc.mma_sync(fa, fb);
        sync_threads();
        k0 += 16;
    }
    for i in 0..4 {
        let r = row0 + wr + c_row[lane * 4 + i] as usize;
        let col = col0 + wc + c_col[lane * 4 + i] as usize;
        c[r * n + col] = acc.x[i];
    }
}

/// Every kind of `ldmatrix` from one 16 x 16 shared tile (row major, `tile[r * 16 + c] =
/// src[r * 16 + c]`), each lane's elements written out in lane order: A (x4), B from K x N
/// storage (x2, transposed), B from N x K storage (x2), an m16n8k8 B (x1, transposed).
#[gpu_kernel]
fn ldmatrix_all(
    src: &[f16],
    a_out: &mut [f16],
    bt_out: &mut [f16],
    bn_out: &mut [f16],
    b1_out: &mut [f16],
) {
    let tile = SharedArray::<f16, 256>::new();
    let lane = lane_id() as usize;
    for e in 0..8 {
        tile[lane * 8 + e] = src[lane * 8 + e];
    }
    sync_warp(u32::MAX);
    let mut a = FragmentA::<f16, M16N8K16>::zeroed();
    a.ldmatrix(&tile, (lane % 16) * 16 + (lane / 16) * 8);
    let mut bt = FragmentB::<f16, M16N8K16>::zeroed();
    bt.ldmatrix_trans(&tile, (lane % 16) * 16);
    let mut bn = FragmentB::<f16, M16N8K16>::zeroed();
    bn.ldmatrix(&tile, (lane % 8) * 16 + (lane / 8) % 2 * 8);
    let mut b1 = FragmentB::<f16, M16N8K8>::zeroed();
    b1.ldmatrix_trans(&tile, (lane % 8) * 16);
    for i in 0..8 {
        a_out[lane * 8 + i] = a.x[i];
    }
    for i in 0..4 {
        bt_out[lane * 4 + i] = bt.x[i];
        bn_out[lane * 4 + i] = bn.x[i];
    }
    for i in 0..2 {
        b1_out[lane * 2 + i] = b1.x[i];
    }
}

/// `gemm` with its fragments loaded by `ldmatrix` (A) and `ldmatrix_trans` (B, stored K x N).
#[gpu_kernel(block = (128, 1, 1))]
fn gemm_ldmatrix(a: &[f16], b: &[f16], c: &mut [f32], n: usize, c_row: &[u32], c_col: &[u32]) {
    let ta = SharedArray::<f16, 512>::new(); // 32 x 16 of A
    let tb = SharedArray::<f16, 256>::new(); // 16 x 16 of B
    let t = thread_idx().x as usize;
    let warp = t / 32;
    let lane = t % 32;
    let row0 = block_idx().y as usize * 32;
    let col0 = block_idx().x as usize * 16;
    let (wr, wc) = ((warp / 2) * 16, (warp % 2) * 8);
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    let mut k0 = 0;
    while k0 < n {
        for e in 0..4 {
            let q = t * 4 + e;
            ta[q] = a[(row0 + q / 16) * n + k0 + q % 16];
        }
        for e in 0..2 {
            let q = t * 2 + e;
            tb[q] = b[(k0 + q / 16) * n + col0 + q % 16];
        }
        sync_threads();
        let mut fa = FragmentA::<f16, M16N8K16>::zeroed();
        let mut fb = FragmentB::<f16, M16N8K16>::zeroed();
        fa.ldmatrix(&ta, (wr + lane % 16) * 16 + (lane / 16) * 8);
        fb.ldmatrix_trans(&tb, (lane % 16) * 16 + wc);
        acc.mma_sync(fa, fb);
        sync_threads();
        k0 += 16;
    }
    for i in 0..4 {
        let r = row0 + wr + c_row[lane * 4 + i] as usize;
        let col = col0 + wc + c_col[lane * 4 + i] as usize;
        c[r * n + col] = acc.x[i];
    }
}

/// Lane `bad` gives the row `start`; the others row 0.
#[gpu_kernel]
fn ldmatrix_row_past_the_end(out: &mut [f16], bad: u32, start: usize) {
    let tile = SharedArray::<f16, 64>::new();
    let lane = lane_id();
    tile[lane as usize] = out[0];
    tile[lane as usize + 32] = out[0];
    sync_warp(u32::MAX);
    let mut a = FragmentA::<f16, M16N8K16>::zeroed();
    let row = if lane == bad { start } else { 0 };
    a.ldmatrix(&tile, row); // @ldmatrix
    out[lane as usize] = a.x[0];
}

/// `stmatrix` (sm_90): an A fragment filled through `fragment_owner`'s offsets stored with
/// x4 into one tile, a B fragment (K x N) with x2.trans into another; both tiles copied out.
#[gpu_kernel]
fn stmatrix_all(src: &[f16], a_out: &mut [f16], b_out: &mut [f16], a_at: &[u32], b_at: &[u32]) {
    let ta = SharedArray::<f16, 256>::new();
    let tb = SharedArray::<f16, 256>::new();
    let lane = lane_id() as usize;
    for e in 0..8 {
        ta[lane * 8 + e] = f16::from_f32(-1.0);
        tb[lane * 8 + e] = f16::from_f32(-1.0);
    }
    sync_warp(u32::MAX);
    let mut a = FragmentA::<f16, M16N8K16>::zeroed();
    for i in 0..8 {
        a.x[i] = src[a_at[lane * 8 + i] as usize];
    }
    let mut b = FragmentB::<f16, M16N8K16>::zeroed();
    for i in 0..4 {
        b.x[i] = src[b_at[lane * 4 + i] as usize];
    }
    a.stmatrix(&mut ta, (lane % 16) * 16 + (lane / 16) * 8);
    b.stmatrix_trans(&mut tb, (lane % 16) * 16);
    sync_warp(u32::MAX);
    for e in 0..8 {
        a_out[lane * 8 + e] = ta[lane * 8 + e];
        b_out[lane * 8 + e] = tb[lane * 8 + e];
    }
}

/// `frag.x[k]` with `k` past the fragment's length.
#[gpu_kernel]
fn fragment_element_past_the_end(out: &mut [f32], k: usize) {
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    acc.x[k] = 1.0; // @frag_x
    out[lane_id() as usize] = acc.x[0];
}

/// m16n8k8 with tf32 operands (f32 fragments of `M16N8K8`), f32 accumulator.
#[gpu_kernel]
fn mma_tf32(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    d: &mut [f32],
    a_at: &[u32],
    b_at: &[u32],
    c_at: &[u32],
) {
    let lane = lane_id() as usize;
    let mut fa = FragmentA::<f32, M16N8K8>::zeroed();
    let mut fb = FragmentB::<f32, M16N8K8>::zeroed();
    let mut acc = FragmentAcc::<f32, M16N8K8>::zeroed();
    for i in 0..4 {
        fa.x[i] = a[a_at[lane * 4 + i] as usize];
        acc.x[i] = c[c_at[lane * 4 + i] as usize];
    }
    for i in 0..2 {
        fb.x[i] = b[b_at[lane * 2 + i] as usize];
    }
    acc.mma_sync(fa, fb);
    for i in 0..4 {
        d[c_at[lane * 4 + i] as usize] = acc.x[i];
    }
}

/// `fragment_owner`'s offsets `row * stride + col` of every (lane, i), lane-major.
fn offsets(role: FragmentRole, shape: MmaShape, stride: usize) -> Vec<u32> {
    let len = fragment_len(role, shape);
    (0..32u32)
        .flat_map(|lane| (0..len).map(move |i| fragment_owner(role, shape, lane, i)))
        .map(|(r, c)| (r * stride + c) as u32)
        .collect()
}

fn small_ints(rng: &mut Rng, n: usize, lo: i32, hi: i32) -> Vec<f32> {
    (0..n)
        .map(|_| (lo + (rng.next_u32() % (hi - lo + 1) as u32) as i32) as f32)
        .collect()
}

/// `a * b + c` in f64, with `sum |a_k b_k| + |c|` (the error bound's scale) beside it.
fn reference(a: &[f32], b: &[f32], c: &[f32], m: usize, n: usize, k: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(m * n);
    for r in 0..m {
        for col in 0..n {
            let (mut s, mut mag) = (f64::from(c[r * n + col]), f64::from(c[r * n + col]).abs());
            for kk in 0..k {
                let p = f64::from(a[r * k + kk]) * f64::from(b[kk * n + col]);
                s += p;
                mag += p.abs();
            }
            out.push((s, mag));
        }
    }
    out
}

fn halves(v: &[f32]) -> Vec<f16> {
    v.iter().map(|&x| f16::from_f32(x)).collect()
}

/// Runs `mma_f32` on (a, b, c) and returns d, on `dev`.
fn run_f32(dev: &Device, a: &[f32], b: &[f32], c: &[f32]) -> Vec<f32> {
    let s = MmaShape::M16N8K16;
    let a_at = dev.upload(&offsets(FragmentRole::A, s, 16)).unwrap();
    let b_at = dev.upload(&offsets(FragmentRole::B, s, 8)).unwrap();
    let c_at = dev.upload(&offsets(FragmentRole::Acc, s, 8)).unwrap();
    let (da, db, dc) = (
        dev.upload(&halves(a)).unwrap(),
        dev.upload(&halves(b)).unwrap(),
        dev.upload(c).unwrap(),
    );
    let mut d = dev.upload(&vec![f32::NAN; 128]).unwrap();
    mma_f32::launch(
        dev,
        LaunchConfig::new(1, 32),
        &da,
        &db,
        &dc,
        &mut d,
        &a_at,
        &b_at,
        &c_at,
    )
    .unwrap();
    d.download().unwrap()
}

#[test]
fn m16n8k16_small_integers_are_exact() {
    let mut rng = Rng::new(21);
    for dev in devices("m16n8k16_small_integers_are_exact") {
        for _ in 0..3 {
            let a = small_ints(&mut rng, 256, -8, 8);
            let b = small_ints(&mut rng, 128, -8, 8);
            let c = small_ints(&mut rng, 128, -1000, 1000);
            let got = run_f32(&dev, &a, &b, &c);
            let want: Vec<f32> = reference(&a, &b, &c, 16, 8, 16)
                .iter()
                .map(|&(s, _)| s as f32)
                .collect();
            assert_eq!(got, want, "{:?}", dev.backend());
        }
    }
}

#[test]
fn m16n8k16_random_within_the_documented_bound() {
    let mut rng = Rng::new(2121);
    for dev in devices("m16n8k16_random_within_the_documented_bound") {
        for _ in 0..4 {
            // f16 values (exactly representable), and an f32 accumulator.
            let r = |rng: &mut Rng, n| -> Vec<f32> {
                (0..n)
                    .map(|_| f16::from_f32(rng.range_f32(-2.0, 2.0)).to_f32())
                    .collect()
            };
            let a = r(&mut rng, 256);
            let b = r(&mut rng, 128);
            let c: Vec<f32> = (0..128).map(|_| rng.range_f32(-4.0, 4.0)).collect();
            let got = run_f32(&dev, &a, &b, &c);
            for (i, (&g, &(s, mag))) in got
                .iter()
                .zip(&reference(&a, &b, &c, 16, 8, 16))
                .enumerate()
            {
                let bound = mag * 2f64.powi(-19);
                assert!(
                    (f64::from(g) - s).abs() <= bound,
                    "{:?}: d[{i}] = {g}, exact {s}, bound {bound}",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn m16n8k16_f16_accumulator_is_exact_on_small_integers() {
    let s = MmaShape::M16N8K16;
    let mut rng = Rng::new(7);
    for dev in devices("m16n8k16_f16_accumulator_is_exact_on_small_integers") {
        let a = small_ints(&mut rng, 256, -4, 4);
        let b = small_ints(&mut rng, 128, -4, 4);
        let c = small_ints(&mut rng, 128, -100, 100);
        let a_at = dev.upload(&offsets(FragmentRole::A, s, 16)).unwrap();
        let b_at = dev.upload(&offsets(FragmentRole::B, s, 8)).unwrap();
        let c_at = dev.upload(&offsets(FragmentRole::Acc, s, 8)).unwrap();
        let (da, db, dc) = (
            dev.upload(&halves(&a)).unwrap(),
            dev.upload(&halves(&b)).unwrap(),
            dev.upload(&halves(&c)).unwrap(),
        );
        let mut d = dev.upload(&vec![f16::NAN; 128]).unwrap();
        mma_f16::launch(
            &dev,
            LaunchConfig::new(1, 32),
            &da,
            &db,
            &dc,
            &mut d,
            &a_at,
            &b_at,
            &c_at,
        )
        .unwrap();
        let got: Vec<f32> = d.download().unwrap().iter().map(|h| h.to_f32()).collect();
        let want: Vec<f32> = reference(&a, &b, &c, 16, 8, 16)
            .iter()
            .map(|&(s, _)| s as f32)
            .collect();
        assert_eq!(got, want, "{:?}", dev.backend());
    }
}

#[test]
fn m16n8k8_small_integers_are_exact() {
    let s = MmaShape::M16N8K8;
    let mut rng = Rng::new(8);
    for dev in devices("m16n8k8_small_integers_are_exact") {
        let a = small_ints(&mut rng, 128, -8, 8);
        let b = small_ints(&mut rng, 64, -8, 8);
        let c = small_ints(&mut rng, 128, -1000, 1000);
        let a_at = dev.upload(&offsets(FragmentRole::A, s, 8)).unwrap();
        let b_at = dev.upload(&offsets(FragmentRole::B, s, 8)).unwrap();
        let c_at = dev.upload(&offsets(FragmentRole::Acc, s, 8)).unwrap();
        let (da, db, dc) = (
            dev.upload(&halves(&a)).unwrap(),
            dev.upload(&halves(&b)).unwrap(),
            dev.upload(&c).unwrap(),
        );
        let mut d = dev.upload(&vec![f32::NAN; 128]).unwrap();
        mma_k8::launch(
            &dev,
            LaunchConfig::new(1, 32),
            &da,
            &db,
            &dc,
            &mut d,
            &a_at,
            &b_at,
            &c_at,
        )
        .unwrap();
        let want: Vec<f32> = reference(&a, &b, &c, 16, 8, 8)
            .iter()
            .map(|&(s, _)| s as f32)
            .collect();
        assert_eq!(d.download().unwrap(), want, "{:?}", dev.backend());
    }
}

/// A whose row r is (r, 1, 0, ...) and B whose rows are (16, 16, ...) and (0, 1, ..., 7):
/// D[r][c] = 16 r + c, so each lane's `acc.x[i]` names its own (row, col), which must be
/// `fragment_owner(Acc, lane, i)`.
#[test]
fn each_lane_holds_the_documented_elements() {
    let s = MmaShape::M16N8K16;
    let mut a = vec![0f32; 256];
    for r in 0..16 {
        a[r * 16] = r as f32;
        a[r * 16 + 1] = 1.0;
    }
    let mut b = vec![0f32; 128];
    for c in 0..8 {
        b[c] = 16.0;
        b[8 + c] = c as f32;
    }
    for dev in devices("each_lane_holds_the_documented_elements") {
        let a_at = dev.upload(&offsets(FragmentRole::A, s, 16)).unwrap();
        let b_at = dev.upload(&offsets(FragmentRole::B, s, 8)).unwrap();
        let (da, db) = (
            dev.upload(&halves(&a)).unwrap(),
            dev.upload(&halves(&b)).unwrap(),
        );
        let mut out = dev.upload(&vec![-1f32; 128]).unwrap();
        owners::launch(
            &dev,
            LaunchConfig::new(1, 32),
            &da,
            &db,
            &mut out,
            &a_at,
            &b_at,
        )
        .unwrap();
        let out = out.download().unwrap();
        for lane in 0..32u32 {
            for i in 0..4 {
                let (r, c) = fragment_owner(FragmentRole::Acc, s, lane, i);
                assert_eq!(
                    out[lane as usize * 4 + i],
                    (16 * r + c) as f32,
                    "{:?}: lane {lane} x[{i}]",
                    dev.backend()
                );
            }
        }
    }
}

/// A 64 x 64 x 64 product of small integers (exact in f16 and f32): A, B, the CPU's C,
/// and each accumulator element's row and column (per lane, per element).
struct GemmCase {
    n: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    want: Vec<f32>,
    c_row: Vec<u32>,
    c_col: Vec<u32>,
}

fn gemm_case(seed: u64) -> GemmCase {
    let s = MmaShape::M16N8K16;
    let n = 64;
    let mut rng = Rng::new(seed);
    let a = small_ints(&mut rng, n * n, -3, 3);
    let b = small_ints(&mut rng, n * n, -3, 3);
    let want = reference(&a, &b, &vec![0.0; n * n], n, n, n)
        .iter()
        .map(|&(s, _)| s as f32)
        .collect();
    let owner = |pick: fn((usize, usize)) -> usize| -> Vec<u32> {
        (0..32u32)
            .flat_map(|lane| (0..4).map(move |i| fragment_owner(FragmentRole::Acc, s, lane, i)))
            .map(|p| pick(p) as u32)
            .collect()
    };
    GemmCase {
        n,
        a,
        b,
        want,
        c_row: owner(|(r, _)| r),
        c_col: owner(|(_, c)| c),
    }
}

#[test]
fn tiled_gemm_64_matches_the_cpu() {
    let s = MmaShape::M16N8K16;
    let GemmCase {
        n,
        a,
        b,
        want,
        c_row,
        c_col,
    } = gemm_case(64);
    for dev in devices("tiled_gemm_64_matches_the_cpu") {
        let a_at = dev.upload(&offsets(FragmentRole::A, s, 16)).unwrap();
        let b_at = dev.upload(&offsets(FragmentRole::B, s, 16)).unwrap();
        let (c_row, c_col) = (dev.upload(&c_row).unwrap(), dev.upload(&c_col).unwrap());
        let (da, db) = (
            dev.upload(&halves(&a)).unwrap(),
            dev.upload(&halves(&b)).unwrap(),
        );
        let mut c = dev.upload(&vec![f32::NAN; n * n]).unwrap();
        let cfg = LaunchConfig::new((n as u32 / 16, n as u32 / 32, 1), 128);
        gemm::launch(&dev, cfg, &da, &db, &mut c, n, &a_at, &b_at, &c_row, &c_col).unwrap();
        assert_eq!(c.download().unwrap(), want, "{:?}", dev.backend());
    }
}

/// `mma.sync` is `.aligned`: the simulator refuses a warp that lacks lanes.
#[test]
fn partial_warp_is_reported_on_the_simulator() {
    let dev = Device::simulator();
    let s = MmaShape::M16N8K16;
    let a_at = dev.upload(&offsets(FragmentRole::A, s, 16)).unwrap();
    let b_at = dev.upload(&offsets(FragmentRole::B, s, 8)).unwrap();
    let da = dev.upload(&vec![f16::ONE; 256]).unwrap();
    let db = dev.upload(&vec![f16::ONE; 128]).unwrap();
    let mut out = dev.upload(&vec![0f32; 128]).unwrap();
    let err = owners::launch(
        &dev,
        LaunchConfig::new(1, 16),
        &da,
        &db,
        &mut out,
        &a_at,
        &b_at,
    )
    .and_then(|()| dev.synchronize())
    .unwrap_err();
    assert!(
        err.to_string().contains("mma_sync needs all 32 lanes"),
        "{err}"
    );
}

/// The C compiles with NVRTC for sm_80 (the first with `mma.sync.m16n8k16`) and sm_90.
#[test]
fn nvrtc_compiles_for_sm80_and_sm90() {
    let kernels = [
        ("mma_f32", &mma_f32::KERNEL),
        ("mma_f16", &mma_f16::KERNEL),
        ("mma_k8", &mma_k8::KERNEL),
        ("mma_bf16", &mma_bf16::KERNEL),
        ("owners", &owners::KERNEL),
        ("gemm", &gemm::KERNEL),
        ("mma_tf32", &mma_tf32::KERNEL),
        ("ldmatrix_all", &ldmatrix_all::KERNEL),
        ("gemm_ldmatrix", &gemm_ldmatrix::KERNEL),
        (
            "ldmatrix_row_past_the_end",
            &ldmatrix_row_past_the_end::KERNEL,
        ),
    ];
    common::nvrtc_compiles_for(&kernels, &[(8, 0), (9, 0)]);
}

/// Each lane's `ldmatrix` elements are the tile's at `fragment_owner`'s (row, col).
#[test]
fn ldmatrix_gives_the_documented_elements() {
    let (s16, s8) = (MmaShape::M16N8K16, MmaShape::M16N8K8);
    // Distinct values, exact in f16.
    let src: Vec<f16> = (0..256).map(|v| f16::from_f32(v as f32)).collect();
    for dev in devices("ldmatrix_gives_the_documented_elements") {
        let d_src = dev.upload(&src).unwrap();
        let poison = |n| dev.upload(&vec![f16::NAN; n]).unwrap();
        let (mut a, mut bt, mut bn, mut b1) = (poison(256), poison(128), poison(128), poison(64));
        ldmatrix_all::launch(
            &dev,
            LaunchConfig::new(1, 32),
            &d_src,
            &mut a,
            &mut bt,
            &mut bn,
            &mut b1,
        )
        .unwrap();
        let (a, bt, bn, b1) = (
            a.download().unwrap(),
            bt.download().unwrap(),
            bn.download().unwrap(),
            b1.download().unwrap(),
        );
        let at = |r: usize, c: usize| f16::from_f32((r * 16 + c) as f32);
        for lane in 0..32u32 {
            let l = lane as usize;
            for i in 0..8 {
                let (r, c) = fragment_owner(FragmentRole::A, s16, lane, i);
                assert_eq!(
                    a[l * 8 + i],
                    at(r, c),
                    "{:?}: A lane {lane} x[{i}]",
                    dev.backend()
                );
            }
            for i in 0..4 {
                let (k, n) = fragment_owner(FragmentRole::B, s16, lane, i);
                assert_eq!(
                    bt[l * 4 + i],
                    at(k, n),
                    "{:?}: B (trans) lane {lane} x[{i}]",
                    dev.backend()
                );
                assert_eq!(
                    bn[l * 4 + i],
                    at(n, k),
                    "{:?}: B lane {lane} x[{i}]",
                    dev.backend()
                );
            }
            for i in 0..2 {
                let (k, n) = fragment_owner(FragmentRole::B, s8, lane, i);
                assert_eq!(
                    b1[l * 2 + i],
                    at(k, n),
                    "{:?}: B x1 lane {lane} x[{i}]",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn tiled_gemm_with_ldmatrix_matches_the_cpu() {
    let GemmCase {
        n,
        a,
        b,
        want,
        c_row,
        c_col,
    } = gemm_case(65);
    for dev in devices("tiled_gemm_with_ldmatrix_matches_the_cpu") {
        let (c_row, c_col) = (dev.upload(&c_row).unwrap(), dev.upload(&c_col).unwrap());
        let (da, db) = (
            dev.upload(&halves(&a)).unwrap(),
            dev.upload(&halves(&b)).unwrap(),
        );
        let mut c = dev.upload(&vec![f32::NAN; n * n]).unwrap();
        let cfg = LaunchConfig::new((n as u32 / 16, n as u32 / 32, 1), 128);
        gemm_ldmatrix::launch(&dev, cfg, &da, &db, &mut c, n, &c_row, &c_col).unwrap();
        assert_eq!(c.download().unwrap(), want, "{:?}", dev.backend());
    }
}

/// A row reaching past the shared array is an `OutOfBounds` of the sub-slice
/// `&tile[row..row + 8]` (index `row + 8`, the array's length) on both backends.
#[test]
fn ldmatrix_row_past_the_end_is_out_of_bounds() {
    let line = line_of(include_str!("mma.rs"), "ldmatrix");
    for dev in devices("ldmatrix_row_past_the_end_is_out_of_bounds") {
        let mut out = dev.upload(&[f16::ONE; 32]).unwrap();
        let r = ldmatrix_row_past_the_end::launch(&dev, LaunchConfig::new(1, 32), &mut out, 3, 64);
        expect_oob(
            &dev,
            r,
            "ldmatrix_row_past_the_end",
            &format!("tests/mma.rs:{line}"),
            72,
            64,
        );
        // The lanes whose rows were in range loaded them; the device stays usable.
        let mut out = dev.upload(&[f16::ONE; 32]).unwrap();
        ldmatrix_row_past_the_end::launch(&dev, LaunchConfig::new(1, 32), &mut out, 3, 56).unwrap();
        assert_eq!(
            out.download().unwrap(),
            vec![f16::ONE; 32],
            "{:?}",
            dev.backend()
        );
    }
}

/// What `stmatrix` stores is the matrix the fragments hold, by `fragment_owner`.
#[test]
fn stmatrix_stores_the_documented_elements() {
    let s16 = MmaShape::M16N8K16;
    let src: Vec<f16> = (0..256).map(|v| f16::from_f32(v as f32)).collect();
    for dev in devices("stmatrix_stores_the_documented_elements") {
        if dev.compute_capability().is_some_and(|(major, _)| major < 9) {
            println!("SKIPPED stmatrix on the GPU: it needs sm_90");
            continue;
        }
        let a_at = dev.upload(&offsets(FragmentRole::A, s16, 16)).unwrap();
        let b_at = dev.upload(&offsets(FragmentRole::B, s16, 16)).unwrap();
        let d_src = dev.upload(&src).unwrap();
        let mut a = dev.upload(&vec![f16::NAN; 256]).unwrap();
        let mut b = dev.upload(&vec![f16::NAN; 256]).unwrap();
        stmatrix_all::launch(
            &dev,
            LaunchConfig::new(1, 32),
            &d_src,
            &mut a,
            &mut b,
            &a_at,
            &b_at,
        )
        .unwrap();
        assert_eq!(a.download().unwrap(), src, "{:?}: A", dev.backend());
        // B is K x N = 16 x 8 at columns 0..8 of a 16-wide tile; the rest stays -1.
        let want: Vec<f16> = (0..256)
            .map(|q| {
                if q % 16 < 8 {
                    src[q]
                } else {
                    f16::from_f32(-1.0)
                }
            })
            .collect();
        assert_eq!(b.download().unwrap(), want, "{:?}: B", dev.backend());
    }
}

/// stmatrix is sm_90's: its kernel compiles for sm_90.
#[test]
fn nvrtc_compiles_stmatrix_for_sm90() {
    common::nvrtc_compiles_for(&[("stmatrix_all", &stmatrix_all::KERNEL)], &[(9, 0)]);
}

/// A fragment's elements are bounds-checked as a local array's: `Error::OutOfBounds` on
/// both backends.
#[test]
fn fragment_element_past_the_end_is_out_of_bounds() {
    let line = line_of(include_str!("mma.rs"), "frag_x");
    for dev in devices("fragment_element_past_the_end_is_out_of_bounds") {
        let mut out = dev.upload(&[0f32; 32]).unwrap();
        let r = fragment_element_past_the_end::launch(&dev, LaunchConfig::new(1, 32), &mut out, 4);
        expect_oob(
            &dev,
            r,
            "fragment_element_past_the_end",
            &format!("tests/mma.rs:{line}"),
            4,
            4,
        );
        fragment_element_past_the_end::launch(&dev, LaunchConfig::new(1, 32), &mut out, 0).unwrap();
        assert_eq!(out.download().unwrap(), [1f32; 32], "{:?}", dev.backend());
    }
}

/// tf32: the value of `x` with its low 13 mantissa bits cleared (exactly a tf32).
fn tf32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !0x1fff)
}

/// m16n8k8 tf32 through its own layout (`MmaShape::M16N8K8Tf32`): exact on small integers,
/// within the documented bound on random tf32 values.
#[test]
fn m16n8k8_tf32_matches_the_cpu() {
    let s = MmaShape::M16N8K8Tf32;
    let mut rng = Rng::new(32);
    for dev in devices("m16n8k8_tf32_matches_the_cpu") {
        let a_at = dev.upload(&offsets(FragmentRole::A, s, 8)).unwrap();
        let b_at = dev.upload(&offsets(FragmentRole::B, s, 8)).unwrap();
        let c_at = dev.upload(&offsets(FragmentRole::Acc, s, 8)).unwrap();
        for exact in [true, false] {
            let (a, b, c) = if exact {
                (
                    small_ints(&mut rng, 128, -8, 8),
                    small_ints(&mut rng, 64, -8, 8),
                    small_ints(&mut rng, 128, -1000, 1000),
                )
            } else {
                let mut r =
                    |n| -> Vec<f32> { (0..n).map(|_| tf32(rng.range_f32(-2.0, 2.0))).collect() };
                (r(128), r(64), r(128))
            };
            let (da, db, dc) = (
                dev.upload(&a).unwrap(),
                dev.upload(&b).unwrap(),
                dev.upload(&c).unwrap(),
            );
            let mut d = dev.upload(&vec![f32::NAN; 128]).unwrap();
            mma_tf32::launch(
                &dev,
                LaunchConfig::new(1, 32),
                &da,
                &db,
                &dc,
                &mut d,
                &a_at,
                &b_at,
                &c_at,
            )
            .unwrap();
            let got = d.download().unwrap();
            for (i, (&g, &(want, mag))) in
                got.iter().zip(&reference(&a, &b, &c, 16, 8, 8)).enumerate()
            {
                if exact {
                    assert_eq!(g, want as f32, "{:?}: d[{i}]", dev.backend());
                } else {
                    let bound = mag * 2f64.powi(-19);
                    assert!(
                        (f64::from(g) - want).abs() <= bound,
                        "{:?}: d[{i}] = {g}, exact {want}, bound {bound}",
                        dev.backend()
                    );
                }
            }
        }
    }
}

/// bf16 fragments, m16n8k16 and m16n8k8: small integers give the exact product; random
/// bf16 values stay within the documented bound. A is 16 x 16 row major (the k8 product
/// uses its first 8 columns, read with a row stride of 16), B 16 x 8.
#[test]
fn bf16_fragments_multiply() {
    let (s16, s8) = (MmaShape::M16N8K16, MmaShape::M16N8K8);
    let mut at = offsets(FragmentRole::A, s16, 16);
    at.extend(offsets(FragmentRole::B, s16, 8));
    at.extend(offsets(FragmentRole::Acc, s16, 8));
    at.extend(offsets(FragmentRole::A, s8, 16));
    at.extend(offsets(FragmentRole::B, s8, 8));
    let mut rng = Rng::new(1616);
    for dev in devices("bf16_fragments_multiply") {
        for round in 0..4 {
            let (a, b, c) = if round < 2 {
                (
                    small_ints(&mut rng, 256, -16, 16),
                    small_ints(&mut rng, 128, -16, 16),
                    small_ints(&mut rng, 128, -1000, 1000),
                )
            } else {
                let r = |rng: &mut Rng, n| -> Vec<f32> {
                    (0..n)
                        .map(|_| bf16::from_f32(rng.range_f32(-3.0, 3.0)).to_f32())
                        .collect()
                };
                let c = (0..128).map(|_| rng.range_f32(-4.0, 4.0)).collect();
                (r(&mut rng, 256), r(&mut rng, 128), c)
            };
            let to_bf16 =
                |v: &[f32]| -> Vec<bf16> { v.iter().map(|&x| bf16::from_f32(x)).collect() };
            let (da, db, dc) = (
                dev.upload(&to_bf16(&a)).unwrap(),
                dev.upload(&to_bf16(&b)).unwrap(),
                dev.upload(&c).unwrap(),
            );
            let dat = dev.upload(&at).unwrap();
            let mut d = dev.upload(&vec![f32::NAN; 128]).unwrap();
            let mut d8 = dev.upload(&vec![f32::NAN; 128]).unwrap();
            let cfg = LaunchConfig::new(1, 32);
            mma_bf16::launch(&dev, cfg, &da, &db, &dc, &mut d, &mut d8, &dat).unwrap();
            let (d, d8) = (d.download().unwrap(), d8.download().unwrap());
            // The k8 product: A's first 8 columns, B's first 8 rows.
            let a8: Vec<f32> = (0..16)
                .flat_map(|r| a[r * 16..r * 16 + 8].to_vec())
                .collect();
            let want16 = reference(&a, &b, &c, 16, 8, 16);
            let want8 = reference(&a8, &b[..64], &c, 16, 8, 8);
            for (what, got, want) in [("k16", &d, &want16), ("k8", &d8, &want8)] {
                for (i, (&g, &(s, mag))) in got.iter().zip(want.iter()).enumerate() {
                    let bound = if round < 2 { 0.0 } else { mag * 2f64.powi(-19) };
                    assert!(
                        (f64::from(g) - s).abs() <= bound,
                        "{:?} {what} round {round}: d[{i}] = {g}, exact {s}, bound {bound}",
                        dev.backend()
                    );
                }
            }
        }
    }
}
