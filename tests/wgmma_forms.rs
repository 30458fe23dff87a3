//! `wgmma`'s other operand forms (issue 21; docs/tensor-cores.md, "Hopper: warpgroup MMA"):
//! A from registers (`acc.wgmma(a_frag, &b_tile, k)`, a `FragmentA<T, M64N{N}K16>` laid out
//! as `warpspeed::mma::wgmma_a_owner` says) and B MN-major (`acc.wgmma_trans_b(a, &b_tile,
//! k)`, a K x N tile of 64-wide column blocks), the two an attention kernel needs for
//! `O += P V`. The host lays the tiles out with `warpspeed::swizzle` and reads the
//! accumulators through `wgmma_owner`, so the GPU agrees with the CPU reference only if both
//! are the PTX ISA's. On the simulator, and on the GPU where it is an sm_90 one (elsewhere
//! the launch must be `Error::UnsupportedArch`); outputs poisoned before each run.

use warpspeed::mma::wgmma_a_owner;
use warpspeed::prelude::*;
use warpspeed::{bf16, f16, Backend, Device, Error, LaunchConfig};

mod common;
use common::wgmma::{expect_sm90a_refusal, gather, mn_major, runs_wgmma, small_ints, swizzled};
use common::{devices, expect_oob, line_of, Rng};

/// A (64 x 64, row-major in `a`) from registers, four slabs; B K-major, N = 64 (`b` the
/// swizzled tile). `out[t * 32 + i]` is thread t's `acc.x[i]`.
#[gpu_kernel]
fn rs_kmajor_n64(a: &[bf16], b: &[bf16], out: &mut [f32]) {
    let sb = SharedArray::<bf16, 4096>::new();
    let t = thread_idx().x as usize;
    for j in 0..32 {
        sb[t * 32 + j] = b[t * 32 + j];
    }
    fence_proxy_async();
    sync_threads();
    let (w, g, q) = (t / 32, (t % 32) / 4, t % 4);
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    for k in 0..4 {
        let mut p = FragmentA::<bf16, M64N64K16>::zeroed();
        for i in 0..8 {
            let r = 16 * w + g + 8 * ((i / 2) % 2);
            let c = 16 * k + 2 * q + i % 2 + 8 * (i / 4);
            p.x[i] = a[r * 64 + c];
        }
        wgmma_fence();
        acc.wgmma(p, &sb[0..4096], k);
    }
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..32 {
        out[t * 32 + i] = acc.x[i];
    }
}

/// A (64 x `kk`, row-major in `a`) from registers, `kk / 16` slabs; B MN-major, N = 128:
/// `b` holds two column blocks of `kk` rows, swizzled. `k0` is added to every slab index
/// (0 for the product; the error test passes `kk / 16`).
#[gpu_kernel]
fn rs_trans_b_n128(a: &[f16], b: &[f16], out: &mut [f32], kk: usize, k0: usize) {
    let sb = dynamic_shared::<f16>();
    let t = thread_idx().x as usize;
    let mut j = t;
    while j < b.len() {
        sb[j] = b[j];
        j += 128;
    }
    fence_proxy_async();
    sync_threads();
    let (w, g, q) = (t / 32, (t % 32) / 4, t % 4);
    let mut acc = FragmentAcc::<f32, M64N128K16>::zeroed();
    for k in 0..kk / 16 {
        let mut p = FragmentA::<f16, M64N128K16>::zeroed();
        for i in 0..8 {
            let r = 16 * w + g + 8 * ((i / 2) % 2);
            let c = 16 * k + 2 * q + i % 2 + 8 * (i / 4);
            p.x[i] = a[r * kk + c];
        }
        wgmma_fence();
        acc.wgmma_trans_b(p, &sb[0..b.len()], k + k0); // @rs_trans_b
    }
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..64 {
        out[t * 64 + i] = acc.x[i];
    }
}

/// A a K-major tile, B MN-major, N = 64, K = 64: `src` holds A (swizzled) then B (one
/// column block of 64 rows, swizzled).
#[gpu_kernel]
fn tile_trans_b_n64(src: &[bf16], out: &mut [f32]) {
    let sa = SharedArray::<bf16, 4096>::new();
    let sb = SharedArray::<bf16, 4096>::new();
    let t = thread_idx().x as usize;
    for j in 0..32 {
        sa[t * 32 + j] = src[t * 32 + j];
        sb[t * 32 + j] = src[4096 + t * 32 + j];
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    wgmma_fence();
    for k in 0..4 {
        acc.wgmma_trans_b(&sa[0..4096], &sb[0..4096], k);
    }
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..32 {
        out[t * 32 + i] = acc.x[i];
    }
}

/// `p.load_acc(acc, j)` for both slabs of a 64 x 32 accumulator whose elements come from
/// `src` (thread t's `acc.x[i]` is `src[t * 16 + i]`): `out[(t * 2 + j) * 8 + e]` is the
/// bits of `p.x[e]` of slab j.
#[gpu_kernel]
fn load_acc_bf16(src: &[f32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mut acc = FragmentAcc::<f32, M64N32K16>::zeroed();
    for i in 0..16 {
        acc.x[i] = src[t * 16 + i];
    }
    for j in 0..2 {
        let mut p = FragmentA::<bf16, M64N32K16>::zeroed();
        p.load_acc(acc, j);
        for e in 0..8 {
            out[(t * 2 + j) * 8 + e] = p.x[e].to_bits() as u32;
        }
    }
}

/// The same into `f16`, and a slab `j` from the host (past the accumulator's 2 slabs it is
/// an `OutOfBounds`).
#[gpu_kernel]
fn load_acc_f16(src: &[f32], out: &mut [u32], j: usize) {
    let t = thread_idx().x as usize;
    let mut acc = FragmentAcc::<f32, M64N32K16>::zeroed();
    for i in 0..16 {
        acc.x[i] = src[t * 16 + i];
    }
    let mut p = FragmentA::<f16, M64N32K16>::zeroed();
    p.load_acc(acc, j); // @load_acc_j
    for e in 0..8 {
        out[t * 8 + e] = p.x[e].to_bits() as u32;
    }
}

/// `D = A B`, A 64 x kk and B kk x n row-major, in f64 (exact for small integers).
fn product(a: &[f32], b: &[f32], kk: usize, n: usize) -> Vec<f32> {
    let mut d = vec![0.0; 64 * n];
    for r in 0..64 {
        for c in 0..n {
            let s: f64 = (0..kk)
                .map(|k| f64::from(a[r * kk + k]) * f64::from(b[k * n + c]))
                .sum();
            d[r * n + c] = s as f32;
        }
    }
    d
}

/// B^T of a row-major `kk x n` matrix: n x kk.
fn transpose(b: &[f32], kk: usize, n: usize) -> Vec<f32> {
    let mut t = vec![0.0; kk * n];
    for r in 0..kk {
        for c in 0..n {
            t[c * kk + r] = b[r * n + c];
        }
    }
    t
}

/// One warpgroup's 64 x n accumulator, from `out`.
fn gather1(out: &[f32], n: usize) -> Vec<f32> {
    gather(out, n, 1).remove(0)
}

/// Whether `dev` runs wgmma (and `r` succeeded); elsewhere `r` must be the sm_90a refusal.
fn runs(dev: &Device, r: warpspeed::Result<()>) -> bool {
    if !runs_wgmma(dev) {
        expect_sm90a_refusal(dev, r);
        return false;
    }
    r.unwrap();
    true
}

fn to_bf16(v: &[f32]) -> Vec<bf16> {
    v.iter().map(|&x| bf16::from_f32(x)).collect()
}

fn to_f16(v: &[f32]) -> Vec<f16> {
    v.iter().map(|&x| f16::from_f32(x)).collect()
}

/// The layout of `wgmma_a_owner` is the one the kernels above index by hand.
#[test]
fn register_a_layout_is_the_documented_one() {
    for t in 0..128u32 {
        let (w, g, q) = ((t / 32) as usize, ((t % 32) / 4) as usize, (t % 4) as usize);
        for i in 0..8 {
            let want = (16 * w + g + 8 * ((i / 2) % 2), 2 * q + i % 2 + 8 * (i / 4));
            assert_eq!(wgmma_a_owner(t, i), want);
        }
    }
}

/// A from registers times a K-major B: small integers, exact on both backends.
#[test]
fn register_a_times_k_major_b() {
    let mut rng = Rng::new(2111);
    for dev in devices("register_a_times_k_major_b") {
        let a = small_ints(&mut rng, 64 * 64);
        let bt = small_ints(&mut rng, 64 * 64); // B^T: N x K
        let ad = dev.upload(&to_bf16(&a)).unwrap();
        let bd = dev.upload(&to_bf16(&swizzled(&bt, 64))).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; 64 * 64]).unwrap();
        let r = rs_kmajor_n64::launch(&dev, LaunchConfig::new(1, 128), &ad, &bd, &mut out);
        if !runs(&dev, r) {
            continue;
        }
        let want = product(&a, &transpose(&bt, 64, 64), 64, 64);
        assert_eq!(
            gather1(&out.download().unwrap(), 64),
            want,
            "{:?}",
            dev.backend()
        );
    }
}

/// A from registers times an MN-major B of two column blocks, K = 32 and 128 (the column
/// blocks' distance is the tile's rows): exact on both backends.
#[test]
fn register_a_times_mn_major_b() {
    let mut rng = Rng::new(2112);
    for dev in devices("register_a_times_mn_major_b") {
        for kk in [32usize, 128] {
            let a = small_ints(&mut rng, 64 * kk);
            let b = small_ints(&mut rng, kk * 128);
            let ad = dev.upload(&to_f16(&a)).unwrap();
            let bd = dev.upload(&to_f16(&mn_major(&b, kk, 128))).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; 64 * 128]).unwrap();
            let cfg = LaunchConfig::new(1, 128).with_shared_mem(kk * 128 * 2);
            let r = rs_trans_b_n128::launch(&dev, cfg, &ad, &bd, &mut out, kk, 0);
            if !runs(&dev, r) {
                break;
            }
            let want = product(&a, &b, kk, 128);
            assert_eq!(
                gather1(&out.download().unwrap(), 128),
                want,
                "{:?}: K = {kk}",
                dev.backend()
            );
        }
    }
}

/// A tile times an MN-major B: exact on both backends.
#[test]
fn tile_a_times_mn_major_b() {
    let mut rng = Rng::new(2113);
    for dev in devices("tile_a_times_mn_major_b") {
        let a = small_ints(&mut rng, 64 * 64);
        let b = small_ints(&mut rng, 64 * 64);
        let mut src = swizzled(&a, 64);
        src.extend(mn_major(&b, 64, 64));
        let sd = dev.upload(&to_bf16(&src)).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; 64 * 64]).unwrap();
        let r = tile_trans_b_n64::launch(&dev, LaunchConfig::new(1, 128), &sd, &mut out);
        if !runs(&dev, r) {
            continue;
        }
        assert_eq!(
            gather1(&out.download().unwrap(), 64),
            product(&a, &b, 64, 64),
            "{:?}",
            dev.backend()
        );
    }
}

/// A slab past an MN-major B's rows (`k >= rows / 16`) is an `OutOfBounds` at the call,
/// index k, length rows / 16, on both backends.
#[test]
fn a_slab_past_the_rows_is_out_of_bounds() {
    let place = format!(
        "tests/wgmma_forms.rs:{}",
        line_of(include_str!("wgmma_forms.rs"), "rs_trans_b")
    );
    for dev in devices("a_slab_past_the_rows_is_out_of_bounds") {
        let kk = 32usize;
        let ad = dev.upload(&vec![f16::from_f32(1.0); 64 * kk]).unwrap();
        let bd = dev.upload(&vec![f16::from_f32(1.0); kk * 128]).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; 64 * 128]).unwrap();
        let cfg = LaunchConfig::new(1, 128).with_shared_mem(kk * 128 * 2);
        let r = rs_trans_b_n128::launch(&dev, cfg, &ad, &bd, &mut out, kk, 2);
        if dev.backend() != Backend::Simulator && dev.compute_capability() != Some((9, 0)) {
            assert!(matches!(r, Err(Error::UnsupportedArch { .. })), "{r:?}");
            continue;
        }
        expect_oob(&dev, r, "rs_trans_b_n128", &place, 2, 2);
    }
}

/// Values that expose a conversion: ties (even and odd kept parts), values just past a tie,
/// overflow, subnormals of both widths, infinities, NaNs with payloads and signs, and
/// random reals.
fn conversion_inputs(rng: &mut Rng) -> Vec<f32> {
    let special = [
        f32::from_bits(0x3f80_8000), // 1 + 2^-8: a bf16 tie, kept part even
        f32::from_bits(0x3f81_8000), // a bf16 tie, kept part odd
        f32::from_bits(0x3f80_8001),
        1.0 + 2f32.powi(-11), // an f16 tie
        1.0 + 3.0 * 2f32.powi(-11),
        3.4e38,
        -3.4e38,
        70000.0,
        f32::from_bits(0x0000_0001), // the smallest subnormal
        1e-39,
        6e-8, // an f16 subnormal
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0x7fc0_1234), // NaN with a payload
        f32::from_bits(0xffa0_0001), // a signalling NaN, negative
    ];
    let mut v: Vec<f32> = (0..128 * 16).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    // The specials in some slabs only, so that other slabs are NaN-free.
    for (i, x) in special.iter().enumerate() {
        v[i * 37 % 512] = *x;
    }
    v
}

/// `load_acc` rounds each element as `T::from_f32` does, bit for bit, and makes every NaN
/// the canonical `0x7fff` (as the GPU's `cvt.rn.*x2.f32` does), on both backends.
#[test]
fn load_acc_rounds_as_from_f32_nans_canonical() {
    let mut rng = Rng::new(2114);
    for dev in devices("load_acc_rounds_as_from_f32_nans_canonical") {
        let src = conversion_inputs(&mut rng);
        let sd = dev.upload(&src).unwrap();
        let mut out = dev.upload(&vec![u32::MAX; 128 * 16]).unwrap();
        load_acc_bf16::launch(&dev, LaunchConfig::new(1, 128), &sd, &mut out).unwrap();
        let got = out.download().unwrap();
        for t in 0..128 {
            for j in 0..2 {
                for e in 0..8 {
                    let x = src[t * 16 + 8 * j + e];
                    let want = if x.is_nan() {
                        0x7fff
                    } else {
                        u32::from(bf16::from_f32(x).to_bits())
                    };
                    assert_eq!(
                        got[(t * 2 + j) * 8 + e],
                        want,
                        "{:?}: bf16 of {x:e} ({:#x})",
                        dev.backend(),
                        x.to_bits()
                    );
                }
            }
        }
        for j in 0..2usize {
            let mut out = dev.upload(&vec![u32::MAX; 128 * 8]).unwrap();
            load_acc_f16::launch(&dev, LaunchConfig::new(1, 128), &sd, &mut out, j).unwrap();
            let got = out.download().unwrap();
            for t in 0..128 {
                for e in 0..8 {
                    let x = src[t * 16 + 8 * j + e];
                    let want = if x.is_nan() {
                        0x7fff
                    } else {
                        u32::from(f16::from_f32(x).to_bits())
                    };
                    assert_eq!(
                        got[t * 8 + e],
                        want,
                        "{:?}: f16 of {x:e} ({:#x})",
                        dev.backend(),
                        x.to_bits()
                    );
                }
            }
        }
    }
}

/// A slab past the accumulator's (`j >= N / 16`) is an `OutOfBounds` at the call.
#[test]
fn load_acc_past_the_slabs_is_out_of_bounds() {
    let place = format!(
        "tests/wgmma_forms.rs:{}",
        line_of(include_str!("wgmma_forms.rs"), "load_acc_j")
    );
    for dev in devices("load_acc_past_the_slabs_is_out_of_bounds") {
        let sd = dev.upload(&vec![1.0f32; 128 * 16]).unwrap();
        let mut out = dev.upload(&vec![0u32; 128 * 8]).unwrap();
        let r = load_acc_f16::launch(&dev, LaunchConfig::new(1, 128), &sd, &mut out, 2);
        expect_oob(&dev, r, "load_acc_f16", &place, 2, 2);
    }
}
