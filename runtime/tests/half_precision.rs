//! Half precision (`f16`, `f16x2`: CUDA's `__half`, `__half2`) with hand-made kernels (CUDA
//! C plus a simulator body, as `#[gpu_kernel]` emits them), on the simulator and on the GPU
//! where there is one: the prelude's conversions and arithmetic against the `half` crate
//! bit for bit, f16/f16x2 scalar arguments, shuffles and matches by bits, and the half
//! atomics (add, swap, compare-and-swap, load, store) from many threads in global and
//! shared memory.

mod common;

use std::collections::HashMap;
use std::sync::LazyLock;

use common::Rng;
use warpspeed_runtime::__private::{
    collect_source, launch, AtomicSlice, KernelArgs, KernelDef, KernelOptions, SimFuture, Slice,
    SliceMut, SourceItem, SrcLoc, ThreadCtx,
};
use warpspeed_runtime::{f16, f16_from_f64, f16x2, Device, LaunchConfig};

/// A site, as generated code passes it.
macro_rules! at {
    () => {{
        static AT: SrcLoc = SrcLoc::new(file!(), line!(), column!());
        &AT
    }};
}

/// `static NAME: KernelDef` for a hand-made kernel with C `definition`.
macro_rules! kernel_def {
    ($name:ident, $item:ident, $source:ident, $rust:literal, [$($p:literal),*], $entry:path, $c:expr) => {
        static $item: SourceItem = SourceItem {
            rust_name: $rust,
            prototype: "",
            definition: $c,
            deps: &[],
            consts: None,
        };
        static $source: LazyLock<String> = LazyLock::new(|| collect_source(&$item));
        static $name: KernelDef = KernelDef {
            rust_name: $rust,
            entry: $rust,
            source: &$source,
            options: KernelOptions { fast_math: false },
            params: &[$($p),*],
            grid_sync: false,
            block: None,
            sim: $entry,
            provable: &[],
        };
    };
}

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

/// The simulator, and GPU 0 where there is one (and NVRTC).
fn devices(test: &str) -> Vec<Device> {
    let mut devs = vec![Device::simulator()];
    if let Some(gpu) = common::gpu_or_skip(test) {
        if common::nvrtc_or_skip(test) {
            devs.push(gpu);
        }
    }
    devs
}

fn blocks(n: usize, block: usize) -> u32 {
    n.div_ceil(block) as u32
}

// ---- half_convert(xs: &[f32], ds: &[f64], hs: &[f16], out: &mut [f16], backf: &mut [f32],
// backd: &mut [f64]): f16::from_f32, f16::from_f64, to_f32, to_f64

kernel_def!(
    CONVERT,
    CONVERT_ITEM,
    CONVERT_SOURCE,
    "half_convert",
    ["xs", "ds", "hs", "out", "backf", "backd"],
    convert_entry,
    r#"extern "C" __global__ void half_convert(const float* __restrict__ xs, unsigned long long xs_len, const double* __restrict__ ds, unsigned long long ds_len, const ws_f16* __restrict__ hs, unsigned long long hs_len, ws_f16* __restrict__ out, unsigned long long out_len, float* __restrict__ backf, unsigned long long backf_len, double* __restrict__ backd, unsigned long long backd_len) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < xs_len) { out[2ull * i] = ws_f16_from_f32(xs[i]); out[2ull * i + 1ull] = ws_f16_from_f64(ds[i]); }
    if (i < hs_len) { backf[i] = ws_f16_to_f32(hs[i]); backd[i] = ws_f16_to_f64(hs[i]); }
}"#
);

fn convert_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(convert_sim(
        ctx,
        ctx.arg_slice::<f32>(0),
        ctx.arg_slice::<f64>(1),
        ctx.arg_slice::<f16>(2),
        ctx.arg_slice_mut::<f16>(3),
        ctx.arg_slice_mut::<f32>(4),
        ctx.arg_slice_mut::<f64>(5),
    ))
}

async fn convert_sim(
    ctx: &ThreadCtx<'_>,
    xs: Slice<f32>,
    ds: Slice<f64>,
    hs: Slice<f16>,
    out: SliceMut<f16>,
    backf: SliceMut<f32>,
    backd: SliceMut<f64>,
) {
    let i = ctx.grid_1d();
    if i < xs.len() {
        out.store(ctx, 2 * i, f16::from_f32(xs.load(ctx, i, at!())), at!());
        out.store(ctx, 2 * i + 1, f16_from_f64(ds.load(ctx, i, at!())), at!());
    }
    if i < hs.len() {
        let v = hs.load(ctx, i, at!());
        backf.store(ctx, i, v.to_f32(), at!());
        backd.store(ctx, i, v.to_f64(), at!());
    }
}

/// f32 values of every kind: the table of the brief, every f16 and every halfway point
/// between two (nudged by an f32 ulp either way), and random bits.
fn convert_inputs() -> (Vec<f32>, Vec<f64>) {
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        65504.0,
        65519.996,
        65520.0,
        -65520.0,
        1e9,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        6.0e-8,
        5.9604645e-8, // 2^-24, the smallest f16 subnormal
        2.9802322e-8, // 2^-25: a tie, rounds to 0
        2.9802326e-8, // just above: rounds up to 2^-24
        8.940697e-8,  // 1.5 * 2^-24: a tie, rounds to 2 * 2^-24
        6.097555e-5,  // the largest f16 subnormal
        6.1035156e-5, // the smallest f16 normal
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0009766, // 1 + 2^-10
        1.0004883, // 1 + 2^-11: a tie, rounds to 1
        1.0014648, // 1 + 3 * 2^-11: a tie, rounds to 1 + 2^-9
        2049.0,
        2051.0,
        0.1,
        -0.33333334,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001), // signalling NaN, lowest payload
        f32::from_bits(0xffbf_e000), // signalling NaN with payload bits kept
        f32::from_bits(0x7fc1_2345),
    ];
    for bits in 0..0x7c00u16 {
        let v = f16::from_bits(bits).to_f32();
        let next = f16::from_bits(bits + 1).to_f32();
        // The halfway point is exact in f32 for every pair (and 65520 above 65504).
        let mid = if bits == 0x7bff {
            65520.0
        } else {
            (v + next) / 2.0
        };
        if bits % 3 == 0 {
            xs.extend([v, -mid, mid.next_up(), mid.next_down()]);
        }
    }
    let mut rng = Rng::new(0x05ee_df16);
    for _ in 0..20_000 {
        xs.push(f32::from_bits(rng.next_u64() as u32));
    }
    // f64: the f32 values (exact), then values between f32s near the halfway points (where
    // half's own from_f64 may round twice), and random bits of every exponent.
    let ds = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| match i % 4 {
            0 | 1 => f64::from(x),
            2 => f64::from(x) * (1.0 + 2f64.powi(-40)),
            _ => {
                let r = rng.next_u64();
                // Exponents around f16's range half the time, any exponent otherwise.
                if r & 1 == 0 {
                    let e = (r >> 1) % 60;
                    f64::from_bits((r & 0x800f_ffff_ffff_ffff) | ((1023 + e - 30) << 52))
                } else {
                    f64::from_bits(r)
                }
            }
        })
        .collect();
    (xs, ds)
}

/// Whether `half`'s `f16::from_f64` rounds to f32 first (x86 with F16C).
fn half_goes_through_f32() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[test]
fn conversions_are_correctly_rounded_and_match_half() {
    let (xs, ds) = convert_inputs();
    let hs: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let n = xs.len().max(hs.len());
    for dev in devices("conversions_are_correctly_rounded_and_match_half") {
        let (dx, dd, dh) = (
            dev.upload(&xs).unwrap(),
            dev.upload(&ds).unwrap(),
            dev.upload(&hs).unwrap(),
        );
        let mut out = dev.upload(&vec![h(7.0); 2 * xs.len()]).unwrap();
        let mut backf = dev.zeros::<f32>(hs.len()).unwrap();
        let mut backd = dev.zeros::<f64>(hs.len()).unwrap();
        let mut args = KernelArgs::new();
        args.slice(&dx)
            .slice(&dd)
            .slice(&dh)
            .slice_mut(&mut out)
            .slice_mut(&mut backf)
            .slice_mut(&mut backd);
        launch(&dev, &CONVERT, LaunchConfig::new(blocks(n, 256), 256), args).unwrap();
        let (out, backf, backd) = (
            out.download().unwrap(),
            backf.download().unwrap(),
            backd.download().unwrap(),
        );
        let b = dev.backend();
        // Bit for bit, NaNs included (the prelude gives half's NaN bits).
        for (i, &x) in xs.iter().enumerate() {
            let want = f16::from_f32(x);
            assert_eq!(
                out[2 * i].to_bits(),
                want.to_bits(),
                "{b:?}: f16::from_f32({x:e} = {:#x})",
                x.to_bits()
            );
            let d = ds[i];
            let want = f16_from_f64(d);
            assert_eq!(
                out[2 * i + 1].to_bits(),
                want.to_bits(),
                "{b:?}: f16::from_f64({d:e} = {:#x})",
                d.to_bits()
            );
            // half's own from_f64 agrees where it rounds once: with F16C it converts to f32
            // first, exact for an f64 that is an f32.
            if i % 4 < 2 && half_goes_through_f32() {
                assert_eq!(want.to_bits(), f16::from_f64(d).to_bits(), "{d:e}");
            }
        }
        for (i, v) in hs.iter().enumerate() {
            assert_eq!(
                backf[i].to_bits(),
                v.to_f32().to_bits(),
                "{b:?}: to_f32 of {:#06x}",
                v.to_bits()
            );
            assert_eq!(
                backd[i].to_bits(),
                v.to_f64().to_bits(),
                "{b:?}: to_f64 of {:#06x}",
                v.to_bits()
            );
        }
    }
}

// ---- half_arith(a: &[f16], b: &[f16], out: &mut [f16], pairs: &mut [f16x2], flags: &mut [u32],
// c: f16, cp: f16x2): + - * / % and unary -, comparisons, f16x2 + - *, scalar arguments

kernel_def!(
    ARITH,
    ARITH_ITEM,
    ARITH_SOURCE,
    "half_arith",
    ["a", "b", "out", "pairs", "flags", "c", "cp"],
    arith_entry,
    r#"extern "C" __global__ void half_arith(const ws_f16* __restrict__ a, unsigned long long a_len, const ws_f16* __restrict__ b, unsigned long long b_len, ws_f16* __restrict__ out, unsigned long long out_len, ws_f16x2* __restrict__ pairs, unsigned long long pairs_len, unsigned int* __restrict__ flags, unsigned long long flags_len, ws_f16 c, ws_f16x2 cp) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a_len) return;
    const ws_f16 x = a[i], y = b[i];
    out[7ull * i] = ws_f16_add(x, y);
    out[7ull * i + 1ull] = ws_f16_sub(x, y);
    out[7ull * i + 2ull] = ws_f16_mul(x, y);
    out[7ull * i + 3ull] = ws_f16_div(x, y);
    out[7ull * i + 4ull] = ws_f16_rem(x, y);
    out[7ull * i + 5ull] = ws_f16_neg(x);
    out[7ull * i + 6ull] = ws_f16_mul(x, c);
    flags[i] = (unsigned int)ws_f16_eq(x, y) | (unsigned int)ws_f16_ne(x, y) << 1 | (unsigned int)ws_f16_lt(x, y) << 2
        | (unsigned int)ws_f16_le(x, y) << 3 | (unsigned int)ws_f16_gt(x, y) << 4 | (unsigned int)ws_f16_ge(x, y) << 5;
    const ws_f16x2 p = ws_f16x2_new(x, y), q = ws_f16x2_new(b[(i + 1ull) % b_len], a[(i + 7ull) % a_len]);
    pairs[4ull * i] = ws_f16x2_add(p, q);
    pairs[4ull * i + 1ull] = ws_f16x2_sub(p, q);
    pairs[4ull * i + 2ull] = ws_f16x2_mul(p, q);
    pairs[4ull * i + 3ull] = ws_f16x2_new(ws_f16x2_hi(ws_f16x2_add(p, cp)), ws_f16x2_lo(cp));
}"#
);

fn arith_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(arith_sim(
        ctx,
        ctx.arg_slice::<f16>(0),
        ctx.arg_slice::<f16>(1),
        ctx.arg_slice_mut::<f16>(2),
        ctx.arg_slice_mut::<f16x2>(3),
        ctx.arg_slice_mut::<u32>(4),
        ctx.arg_scalar::<f16>(5),
        ctx.arg_scalar::<f16x2>(6),
    ))
}

#[allow(clippy::too_many_arguments)]
async fn arith_sim(
    ctx: &ThreadCtx<'_>,
    a: Slice<f16>,
    b: Slice<f16>,
    out: SliceMut<f16>,
    pairs: SliceMut<f16x2>,
    flags: SliceMut<u32>,
    c: f16,
    cp: f16x2,
) {
    let i = ctx.grid_1d();
    if i >= a.len() {
        return;
    }
    let (x, y) = (a.load(ctx, i, at!()), b.load(ctx, i, at!()));
    for (k, v) in [x + y, x - y, x * y, x / y, x % y, -x, x * c]
        .into_iter()
        .enumerate()
    {
        out.store(ctx, 7 * i + k, v, at!());
    }
    let f = u32::from(x == y)
        | u32::from(x != y) << 1
        | u32::from(x < y) << 2
        | u32::from(x <= y) << 3
        | u32::from(x > y) << 4
        | u32::from(x >= y) << 5;
    flags.store(ctx, i, f, at!());
    let p = f16x2::new(x, y);
    let q = f16x2::new(
        b.load(ctx, (i + 1) % b.len(), at!()),
        a.load(ctx, (i + 7) % a.len(), at!()),
    );
    pairs.store(ctx, 4 * i, p + q, at!());
    pairs.store(ctx, 4 * i + 1, p - q, at!());
    pairs.store(ctx, 4 * i + 2, p * q, at!());
    pairs.store(ctx, 4 * i + 3, f16x2::new((p + cp).hi(), cp.lo()), at!());
}

/// Equal bits, or both NaN (a NaN result's payload is not specified).
fn same(got: f16, want: f16) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

#[test]
fn arithmetic_matches_half_bit_for_bit() {
    let mut rng = Rng::new(0xa217);
    let mut a = Vec::new();
    let mut b = Vec::new();
    // Random bits: normals, subnormals, zeros, infinities and NaNs in every combination.
    for _ in 0..40_000 {
        let r = rng.next_u64();
        a.push(f16::from_bits(r as u16));
        b.push(f16::from_bits((r >> 16) as u16));
    }
    // Small and mid-sized numbers, subnormal pairs, exact ties of the sums.
    for k in 0..8_000u64 {
        let r = rng.next_u64();
        let (x, y) = match k % 4 {
            0 => (h((r % 64) as f32 - 32.0), h(((r >> 8) % 64) as f32 - 32.0)),
            1 => (
                f16::from_bits((r % 0x400) as u16),
                f16::from_bits(((r >> 16) % 0x400) as u16 | (0x8000 * (k as u16 & 1))),
            ),
            2 => (
                h(2048.0 + 2.0 * (r % 512) as f32),
                h(1.0 + 2.0 * ((r >> 9) % 2) as f32),
            ),
            _ => (
                f16::from_bits((r % 0x7c00) as u16),
                f16::from_bits(0x3c00 + ((r >> 20) % 0x400) as u16),
            ),
        };
        a.push(x);
        b.push(y);
    }
    let n = a.len();
    let c = h(-1.5);
    let cp = f16x2::new(h(0.25), h(-3.0e-5));
    for dev in devices("arithmetic_matches_half_bit_for_bit") {
        let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
        let mut out = dev.zeros::<f16>(7 * n).unwrap();
        let mut pairs = dev.zeros::<f16x2>(4 * n).unwrap();
        let mut flags = dev.upload(&vec![u32::MAX; n]).unwrap();
        let mut args = KernelArgs::new();
        args.slice(&da)
            .slice(&db)
            .slice_mut(&mut out)
            .slice_mut(&mut pairs)
            .slice_mut(&mut flags)
            .scalar(c)
            .scalar(cp);
        launch(&dev, &ARITH, LaunchConfig::new(blocks(n, 128), 128), args).unwrap();
        let (out, pairs, flags) = (
            out.download().unwrap(),
            pairs.download().unwrap(),
            flags.download().unwrap(),
        );
        let back = dev.backend();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [x + y, x - y, x * y, x / y, x % y, -x, x * c];
            for (k, w) in want.into_iter().enumerate() {
                let got = out[7 * i + k];
                assert!(
                    same(got, w),
                    "{back:?}: op {k} of {x:?} ({:#06x}), {y:?} ({:#06x}): got {got:?} ({:#06x}), half says {w:?} ({:#06x})",
                    x.to_bits(),
                    y.to_bits(),
                    got.to_bits(),
                    w.to_bits()
                );
            }
            // Negation only flips the sign bit, NaN included.
            assert_eq!(out[7 * i + 5].to_bits(), x.to_bits() ^ 0x8000);
            let f = u32::from(x == y)
                | u32::from(x != y) << 1
                | u32::from(x < y) << 2
                | u32::from(x <= y) << 3
                | u32::from(x > y) << 4
                | u32::from(x >= y) << 5;
            assert_eq!(flags[i], f, "{back:?}: comparisons of {x:?}, {y:?}");
            let p = f16x2::new(x, y);
            let q = f16x2::new(b[(i + 1) % n], a[(i + 7) % n]);
            for (k, w) in [p + q, p - q, p * q, f16x2::new((p + cp).hi, cp.lo)]
                .into_iter()
                .enumerate()
            {
                let got = pairs[4 * i + k];
                assert!(
                    same(got.lo, w.lo) && same(got.hi, w.hi),
                    "{back:?}: f16x2 op {k} of {p:?}, {q:?}: got {got:?}, half says {w:?}"
                );
            }
        }
    }
}

// ---- half_warp(hs: &[f16], ps: &[f16x2], out: &mut [f16], pout: &mut [f16x2],
// matches: &mut [u32]): shuffles and matches by bits

kernel_def!(
    WARP,
    WARP_ITEM,
    WARP_SOURCE,
    "half_warp",
    ["hs", "ps", "out", "pout", "matches"],
    warp_entry,
    r#"extern "C" __global__ void half_warp(const ws_f16* __restrict__ hs, unsigned long long hs_len, const ws_f16x2* __restrict__ ps, unsigned long long ps_len, ws_f16* __restrict__ out, unsigned long long out_len, ws_f16x2* __restrict__ pout, unsigned long long pout_len, unsigned int* __restrict__ matches, unsigned long long matches_len) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const ws_f16 v = hs[i];
    const ws_f16x2 p = ps[i];
    out[2ull * i] = ws_shfl_xor_sync<ws_f16>(0xffffffffu, v, 1u, 32u);
    out[2ull * i + 1ull] = ws_shfl_sync(0xffffffffu, v, 3u, 8u);
    pout[2ull * i] = ws_shfl_down_sync<ws_f16x2>(0xffffffffu, p, 1u, 16u);
    pout[2ull * i + 1ull] = ws_shfl_up_sync(0xffffffffu, p, 2u, 32u);
    matches[2ull * i] = ws_match_any_sync<ws_f16>(0xffffffffu, v);
    matches[2ull * i + 1ull] = ws_match_any_sync(0xffffffffu, p);
}"#
);

fn warp_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(warp_sim(
        ctx,
        ctx.arg_slice::<f16>(0),
        ctx.arg_slice::<f16x2>(1),
        ctx.arg_slice_mut::<f16>(2),
        ctx.arg_slice_mut::<f16x2>(3),
        ctx.arg_slice_mut::<u32>(4),
    ))
}

async fn warp_sim(
    ctx: &ThreadCtx<'_>,
    hs: Slice<f16>,
    ps: Slice<f16x2>,
    out: SliceMut<f16>,
    pout: SliceMut<f16x2>,
    matches: SliceMut<u32>,
) {
    let i = ctx.grid_1d();
    let all = u32::MAX;
    let v = hs.load(ctx, i, at!());
    let p = ps.load(ctx, i, at!());
    let s = ctx.shfl_xor_sync(all, v, 1, 32, at!()).await;
    out.store(ctx, 2 * i, s, at!());
    let s = ctx.shfl_sync(all, v, 3, 8, at!()).await;
    out.store(ctx, 2 * i + 1, s, at!());
    let s = ctx.shfl_down_sync(all, p, 1, 16, at!()).await;
    pout.store(ctx, 2 * i, s, at!());
    let s = ctx.shfl_up_sync(all, p, 2, 32, at!()).await;
    pout.store(ctx, 2 * i + 1, s, at!());
    let m = ctx.match_any_sync(all, v, at!()).await;
    matches.store(ctx, 2 * i, m, at!());
    let m = ctx.match_any_sync(all, p, at!()).await;
    matches.store(ctx, 2 * i + 1, m, at!());
}

#[test]
fn shuffles_and_matches_go_by_bits() {
    // Few distinct values per warp, NaNs with payloads and both zeros among them: a match
    // compares bits (0.0 and -0.0 differ; a NaN matches the same NaN).
    let palette = [
        h(0.0),
        h(-0.0),
        f16::from_bits(0x7e01),
        f16::from_bits(0xfc01),
        h(1.5),
        f16::from_bits(1),
    ];
    let mut rng = Rng::new(0x5f1);
    let n = 256;
    let hs: Vec<f16> = (0..n)
        .map(|_| palette[(rng.next_u64() % 6) as usize])
        .collect();
    let ps: Vec<f16x2> = (0..n)
        .map(|_| {
            let r = rng.next_u64();
            f16x2::new(palette[(r % 6) as usize], palette[((r >> 8) % 2) as usize])
        })
        .collect();
    for dev in devices("shuffles_and_matches_go_by_bits") {
        let (dh, dp) = (dev.upload(&hs).unwrap(), dev.upload(&ps).unwrap());
        let mut out = dev.zeros::<f16>(2 * n).unwrap();
        let mut pout = dev.zeros::<f16x2>(2 * n).unwrap();
        let mut matches = dev.zeros::<u32>(2 * n).unwrap();
        let mut args = KernelArgs::new();
        args.slice(&dh)
            .slice(&dp)
            .slice_mut(&mut out)
            .slice_mut(&mut pout)
            .slice_mut(&mut matches);
        launch(&dev, &WARP, LaunchConfig::new(2, 128), args).unwrap();
        let (out, pout, matches) = (
            out.download().unwrap(),
            pout.download().unwrap(),
            matches.download().unwrap(),
        );
        let back = dev.backend();
        for i in 0..n {
            let (warp, lane) = (i / 32 * 32, i % 32);
            assert_eq!(
                out[2 * i].to_bits(),
                hs[warp + (lane ^ 1)].to_bits(),
                "{back:?}"
            );
            assert_eq!(
                out[2 * i + 1].to_bits(),
                hs[warp + lane / 8 * 8 + 3].to_bits(),
                "{back:?}"
            );
            let down = if lane % 16 + 1 < 16 { i + 1 } else { i };
            assert_eq!(pout[2 * i].to_bits(), ps[down].to_bits(), "{back:?}");
            let up = if lane >= 2 { i - 2 } else { i };
            assert_eq!(pout[2 * i + 1].to_bits(), ps[up].to_bits(), "{back:?}");
            let mask = |same: &dyn Fn(usize) -> bool| -> u32 {
                (0..32).filter(|&l| same(warp + l)).map(|l| 1u32 << l).sum()
            };
            assert_eq!(
                matches[2 * i],
                mask(&|j| hs[j].to_bits() == hs[i].to_bits()),
                "{back:?}"
            );
            assert_eq!(
                matches[2 * i + 1],
                mask(&|j| ps[j].to_bits() == ps[i].to_bits()),
                "{back:?}"
            );
        }
    }
}

// ---- half_atomics(acc: &[AtomicF16], acc2: &[AtomicF16x2], olds: &mut [f16],
// olds2: &mut [f16x2]): every thread adds 1 (and (1, -2)) in global and shared memory,
// swaps its index into one slot, and counts with a compare-and-swap loop

const ATOMIC_BLOCK: u32 = 128;
const ATOMIC_BLOCKS: u32 = 4;

kernel_def!(
    ATOMICS,
    ATOMICS_ITEM,
    ATOMICS_SOURCE,
    "half_atomics",
    ["acc", "acc2", "olds", "olds2"],
    atomics_entry,
    r#"extern "C" __global__ void half_atomics(ws_f16* __restrict__ acc, unsigned long long acc_len, ws_f16x2* __restrict__ acc2, unsigned long long acc2_len, ws_f16* __restrict__ olds, unsigned long long olds_len, ws_f16x2* __restrict__ olds2, unsigned long long olds2_len) {
    __shared__ ws_f16 s[1];
    __shared__ ws_f16x2 s2[1];
    const unsigned int t = threadIdx.x;
    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + t;
    const ws_f16 zero = ws_f16_from_f32(0.0f), one = ws_f16_from_f32(1.0f), gf = ws_f16_from_f32((float)g);
    const ws_f16x2 step = ws_f16x2_new(one, ws_f16_from_f32(-2.0f));
    if (t == 0u) {
        ws_atomic_store<WS_RELAXED>(&s[0], zero);
        ws_atomic_store<WS_RELEASE, ws_f16x2>(&s2[0], ws_f16x2_new(zero, zero));
    }
    __syncthreads();
    olds[4ull * g] = ws_atomic_fetch_add<WS_RELAXED>(&acc[0], one);
    olds[4ull * g + 1ull] = ws_atomic_fetch_add<WS_RELAXED, ws_f16>(&s[0], one);
    olds[4ull * g + 2ull] = ws_atomic_swap<WS_RELAXED>(&acc[2], gf);
    ws_f16 cur = ws_atomic_load<WS_RELAXED>(&acc[3]);
    for (;;) {
        const ws_f16 seen = ws_atomic_cas<WS_SEQ_CST>(&acc[3], cur, ws_f16_add(cur, one));
        if (seen.bits == cur.bits) break;
        cur = seen;
    }
    olds[4ull * g + 3ull] = cur;
    olds2[3ull * g] = ws_atomic_fetch_add<WS_RELAXED>(&acc2[0], step);
    olds2[3ull * g + 1ull] = ws_atomic_fetch_add<WS_ACQ_REL, ws_f16x2>(&s2[0], step);
    olds2[3ull * g + 2ull] = ws_atomic_swap<WS_ACQUIRE>(&acc2[2], ws_f16x2_new(gf, ws_f16_neg(gf)));
    __syncthreads();
    if (t == 0u) {
        ws_atomic_fetch_add<WS_SEQ_CST>(&acc[1], ws_atomic_load<WS_ACQUIRE>(&s[0]));
        ws_atomic_fetch_add<WS_RELEASE>(&acc2[1], ws_atomic_load<WS_SEQ_CST>(&s2[0]));
    }
}"#
);

fn atomics_entry<'a>(ctx: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(atomics_sim(
        ctx,
        ctx.arg_atomic::<f16>(0),
        ctx.arg_atomic::<f16x2>(1),
        ctx.arg_slice_mut::<f16>(2),
        ctx.arg_slice_mut::<f16x2>(3),
    ))
}

async fn atomics_sim(
    ctx: &ThreadCtx<'_>,
    acc: AtomicSlice<f16>,
    acc2: AtomicSlice<f16x2>,
    olds: SliceMut<f16>,
    olds2: SliceMut<f16x2>,
) {
    let s = ctx.shared_atomic_array::<f16>(1, at!());
    let s2 = ctx.shared_atomic_array::<f16x2>(1, at!());
    let t = ctx.thread_idx().x;
    let g = ctx.grid_1d();
    let (zero, one, gf) = (h(0.0), h(1.0), h(g as f32));
    let step = f16x2::new(one, h(-2.0));
    if t == 0 {
        s.store(ctx, 0, zero, at!()).await;
        s2.store(ctx, 0, f16x2::new(zero, zero), at!()).await;
    }
    ctx.sync_threads(at!()).await;
    let old = acc.fetch_add(ctx, 0, one, at!()).await;
    olds.store(ctx, 4 * g, old, at!());
    let old = s.fetch_add(ctx, 0, one, at!()).await;
    olds.store(ctx, 4 * g + 1, old, at!());
    let old = acc.swap(ctx, 2, gf, at!()).await;
    olds.store(ctx, 4 * g + 2, old, at!());
    let mut cur = acc.load(ctx, 3, at!()).await;
    loop {
        match acc.compare_exchange(ctx, 3, cur, cur + one, at!()).await {
            Ok(_) => break,
            Err(seen) => cur = seen,
        }
    }
    olds.store(ctx, 4 * g + 3, cur, at!());
    let old = acc2.fetch_add(ctx, 0, step, at!()).await;
    olds2.store(ctx, 3 * g, old, at!());
    let old = s2.fetch_add(ctx, 0, step, at!()).await;
    olds2.store(ctx, 3 * g + 1, old, at!());
    let old = acc2.swap(ctx, 2, f16x2::new(gf, -gf), at!()).await;
    olds2.store(ctx, 3 * g + 2, old, at!());
    ctx.sync_threads(at!()).await;
    if t == 0 {
        let v = s.load(ctx, 0, at!()).await;
        acc.fetch_add(ctx, 1, v, at!()).await;
        let v = s2.load(ctx, 0, at!()).await;
        acc2.fetch_add(ctx, 1, v, at!()).await;
    }
}

/// How many times each bit pattern occurs.
fn bag<T: Copy, K: std::hash::Hash + Eq>(items: &[T], key: impl Fn(T) -> K) -> HashMap<K, usize> {
    let mut m = HashMap::new();
    for &v in items {
        *m.entry(key(v)).or_insert(0) += 1;
    }
    m
}

#[test]
fn half_atomics_from_many_threads_in_global_and_shared_memory() {
    let n = (ATOMIC_BLOCK * ATOMIC_BLOCKS) as usize;
    let block = ATOMIC_BLOCK as usize;
    for dev in devices("half_atomics_from_many_threads_in_global_and_shared_memory") {
        let back = dev.backend();
        let mut acc = dev.upload(&[h(0.0), h(0.0), h(-1.0), h(0.0)]).unwrap();
        let start2 = [
            f16x2::new(h(0.0), h(0.0)),
            f16x2::new(h(0.0), h(0.0)),
            f16x2::new(h(-1.0), h(1.0)),
        ];
        let mut acc2 = dev.upload(&start2).unwrap();
        let mut olds = dev.zeros::<f16>(4 * n).unwrap();
        let mut olds2 = dev.zeros::<f16x2>(3 * n).unwrap();
        let mut args = KernelArgs::new();
        args.slice_mut(&mut acc)
            .slice_mut(&mut acc2)
            .slice_mut(&mut olds)
            .slice_mut(&mut olds2);
        launch(
            &dev,
            &ATOMICS,
            LaunchConfig::new(ATOMIC_BLOCKS, ATOMIC_BLOCK),
            args,
        )
        .unwrap();
        let (acc, acc2, olds, olds2) = (
            acc.download().unwrap(),
            acc2.download().unwrap(),
            olds.download().unwrap(),
            olds2.download().unwrap(),
        );
        let total = n as f32;
        // Global adds: the final sum, and the old values are 0..n, each once.
        assert_eq!(acc[0].to_f32(), total, "{back:?}: global f16 add");
        let mut seen: Vec<f32> = (0..n).map(|g| olds[4 * g].to_f32()).collect();
        seen.sort_by(f32::total_cmp);
        assert_eq!(
            seen,
            (0..n).map(|k| k as f32).collect::<Vec<_>>(),
            "{back:?}"
        );
        // Shared adds: 0..block in every block; the blocks' sums reach acc[1].
        for blk in 0..ATOMIC_BLOCKS as usize {
            let mut seen: Vec<f32> = (0..block)
                .map(|t| olds[4 * (blk * block + t) + 1].to_f32())
                .collect();
            seen.sort_by(f32::total_cmp);
            assert_eq!(
                seen,
                (0..block).map(|k| k as f32).collect::<Vec<_>>(),
                "{back:?}: shared f16 add, block {blk}"
            );
        }
        assert_eq!(
            acc[1].to_f32(),
            total,
            "{back:?}: shared f16 sums added to global"
        );
        // Swap: the old values and the final one are the start value and every index.
        let mut swapped: Vec<f16> = (0..n).map(|g| olds[4 * g + 2]).collect();
        swapped.push(acc[2]);
        let mut want: Vec<f16> = (0..n).map(|g| h(g as f32)).collect();
        want.push(h(-1.0));
        assert_eq!(
            bag(&swapped, f16::to_bits),
            bag(&want, f16::to_bits),
            "{back:?}: f16 swap"
        );
        // Compare-and-swap counter: every successful CAS saw a distinct count.
        assert_eq!(acc[3].to_f32(), total, "{back:?}: f16 CAS loop");
        let mut seen: Vec<f32> = (0..n).map(|g| olds[4 * g + 3].to_f32()).collect();
        seen.sort_by(f32::total_cmp);
        assert_eq!(
            seen,
            (0..n).map(|k| k as f32).collect::<Vec<_>>(),
            "{back:?}"
        );
        // f16x2 adds: both halves in one atomic step, so every old pair is (k, -2k).
        for (slot, name) in [(0, "global"), (1, "shared")] {
            assert_eq!(
                (acc2[slot].lo.to_f32(), acc2[slot].hi.to_f32()),
                (total, -2.0 * total),
                "{back:?}: {name} f16x2 add"
            );
        }
        let mut seen: Vec<f32> = (0..n)
            .map(|g| {
                let p = olds2[3 * g];
                assert_eq!(
                    p.hi.to_f32(),
                    -2.0 * p.lo.to_f32(),
                    "{back:?}: torn f16x2 add {p:?}"
                );
                p.lo.to_f32()
            })
            .collect();
        seen.sort_by(f32::total_cmp);
        assert_eq!(
            seen,
            (0..n).map(|k| k as f32).collect::<Vec<_>>(),
            "{back:?}"
        );
        for blk in 0..ATOMIC_BLOCKS as usize {
            let mut seen: Vec<f32> = (0..block)
                .map(|t| {
                    let p = olds2[3 * (blk * block + t) + 1];
                    assert_eq!(
                        p.hi.to_f32(),
                        -2.0 * p.lo.to_f32(),
                        "{back:?}: torn shared f16x2 add {p:?}"
                    );
                    p.lo.to_f32()
                })
                .collect();
            seen.sort_by(f32::total_cmp);
            assert_eq!(
                seen,
                (0..block).map(|k| k as f32).collect::<Vec<_>>(),
                "{back:?}: shared f16x2 add, block {blk}"
            );
        }
        // f16x2 swap.
        let mut swapped: Vec<f16x2> = (0..n).map(|g| olds2[3 * g + 2]).collect();
        swapped.push(acc2[2]);
        let mut want: Vec<f16x2> = (0..n)
            .map(|g| f16x2::new(h(g as f32), -h(g as f32)))
            .collect();
        want.push(start2[2]);
        assert_eq!(
            bag(&swapped, f16x2::to_bits),
            bag(&want, f16x2::to_bits),
            "{back:?}: f16x2 swap"
        );
    }
}

/// The kernels' C compiles in bare NVRTC for every architecture warpspeed targets (the
/// GPU runs above need a GPU; this needs only NVRTC).
#[test]
fn kernels_compile_for_every_arch() {
    if !common::nvrtc_or_skip("kernels_compile_for_every_arch") {
        return;
    }
    for kernel in [&CONVERT, &ARITH, &WARP, &ATOMICS] {
        for arch in [(7, 5), (8, 0), (9, 0)] {
            if let Err(err) = warpspeed_runtime::compile::compile_cubin(
                kernel.source,
                arch,
                KernelOptions { fast_math: false },
            ) {
                panic!("{} on sm_{}{}: {err}", kernel.rust_name, arch.0, arch.1);
            }
        }
    }
}
