//! Tensor-core GEMM (examples/kernels/gemm.rs), checked and unchecked, beside cuBLAS
//! (torch.matmul) and the autotuned Triton kernel of bench/peers_tensor.py:
//! - `gemm (mma.sync)`: n^3 bf16 with f32 accumulation (`mma.sync` with a `cp_async`
//!   pipeline). The inputs are small integers (-3..=3), exact in bf16, whose products and
//!   sums are exact in f32 in any order: a sample of C is compared with the CPU bit for bit,
//!   the unchecked kernel's C with the checked one's.
//! - `gemm 3xTF32`: n^3 f32 through tf32 with split correction, at the matmul rows' size;
//!   its peer is cuBLAS's f32 SGEMM (the `matmul` rows' peer), what a user who needs f32
//!   accuracy picks. Random reals; the note gives the largest error on 256 sampled elements
//!   against f64, relative to the largest |C|.
//!
//! - `gemm (wgmma, TMA)`: n^3 bf16 and f16 with C = A B^T, B given n x k (K-major, a linear
//!   layer's layout) through examples/kernels/gemm_hopper.rs (sm_90a), beside its hand
//!   twin (cuda/gemm_hopper.cu) and the peers on the same layout (`gemm_{n}_{t}_nt`).
//!   Small-integer inputs: a sample of C equals the CPU's sums rounded to the type, the
//!   unchecked and hand Cs the checked one, bit for bit. Skipped (a row saying so) on a GPU
//!   other than compute capability 9.0.
//!
//! C starts poisoned (NaN).

use cudarc::driver::PushKernelArg;
use warpspeed::swizzle::Swizzle;
use warpspeed::{
    bf16, bf16x2, f16, f16x2, f32x2, DeviceBuffer, KernelScalar, LaunchConfig, TensorMap,
};

use crate::common::XorShift;
use crate::gemm_hopper::{gemm_hopper_config, HopperElem, BM, BN};
use crate::gemm_kernels::{checked, gemm_config, unchecked};
use crate::hand::{cfg as cfg_of, raw, HandMap};
use crate::table::{Row, Unit};
use crate::timing::{best_ms, Step};
use crate::{Bench, Kernel, Res};

pub fn kernels() -> Vec<Kernel> {
    vec![
        ("checked", &checked::gemm_bf16::KERNEL),
        ("unchecked", &unchecked::gemm_bf16::KERNEL),
        ("checked", &checked::gemm_3xtf32::KERNEL),
        ("unchecked", &unchecked::gemm_3xtf32::KERNEL),
        (
            "checked",
            &crate::gemm_hopper::checked::gemm_hopper_bf16::KERNEL,
        ),
        (
            "unchecked",
            &crate::gemm_hopper::unchecked::gemm_hopper_bf16::KERNEL,
        ),
        (
            "checked",
            &crate::gemm_hopper::checked::gemm_hopper_f16::KERNEL,
        ),
        (
            "unchecked",
            &crate::gemm_hopper::unchecked::gemm_hopper_f16::KERNEL,
        ),
    ]
}

/// Small integers -3..=3 as f32 (exact in bf16).
fn small(rng: &mut XorShift, len: usize) -> Vec<f32> {
    (0..len)
        .map(|_| (rng.next_u32() % 7) as f32 - 3.0)
        .collect()
}

/// 256 (row, col) of an n x n C: two corners, the rest random.
fn sample(rng: &mut XorShift, n: usize) -> Vec<(usize, usize)> {
    (0..256)
        .map(|i| match i {
            0 => (0, 0),
            1 => (n - 1, n - 1),
            _ => ((rng.next_u64() as usize) % n, (rng.next_u64() as usize) % n),
        })
        .collect()
}

pub fn rows(b: &Bench) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    let hopper = b.dev.compute_capability() == Some((9, 0));
    for &n in &b.sizes.gemm {
        if hopper {
            use crate::gemm_hopper::{checked as ch, unchecked as un};
            let bf: [HopperLaunch<bf16, bf16x2>; 2] =
                [ch::gemm_hopper_bf16::launch, un::gemm_hopper_bf16::launch];
            rows.push(hopper_row(b, n, bf)?);
            let hf: [HopperLaunch<f16, f16x2>; 2] =
                [ch::gemm_hopper_f16::launch, un::gemm_hopper_f16::launch];
            rows.push(hopper_row(b, n, hf)?);
            // tf32 at the first size only, as the target (and the peers) are.
            if n == b.sizes.gemm[0] {
                let tf: [HopperLaunch<f32, f32x2>; 2] =
                    [ch::gemm_hopper_tf32::launch, un::gemm_hopper_tf32::launch];
                rows.push(hopper_row(b, n, tf)?);
            }
        } else {
            rows.push(
                Row::new("gemm (wgmma, TMA)", format!("{n}^3"), Unit::Ms)
                    .note("skipped: needs sm_90a (compute capability 9.0)"),
            );
        }
        rows.push(mma_sync_row(b, n)?);
    }
    rows.push(tf32x3_row(b, b.sizes.matmul)?);
    Ok(rows)
}

/// `gemm_bf16`: C (f32) = A * B, both row major.
fn mma_sync_row(b: &Bench, n: usize) -> Res<Row> {
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 21);
    let (ha, hb) = (small(&mut rng, n * n), small(&mut rng, n * n));
    let at = sample(&mut rng, n);
    let want: Vec<f32> = at
        .iter()
        .map(|&(r, c)| (0..n).fold(0.0f32, |s, i| s + ha[r * n + i] * hb[i * n + c]))
        .collect();
    let to_bf16 = |v: &[f32]| -> Vec<bf16> { v.iter().map(|&x| bf16::from_f32(x)).collect() };
    let (a, bm) = (dev.upload(&to_bf16(&ha))?, dev.upload(&to_bf16(&hb))?);
    let poison = vec![f32::NAN; n * n];
    let mut c: [DeviceBuffer<f32>; 2] = [dev.upload(&poison)?, dev.upload(&poison)?];
    let cfg = gemm_config(n, n);
    let [cc, cu] = &mut c;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(checked::gemm_bf16::launch(dev, cfg, &a, &bm, cc, n, n, n)?)),
        Box::new(|| {
            Ok(unchecked::gemm_bf16::launch(
                dev, cfg, &a, &bm, cu, n, n, n,
            )?)
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let got = c[0].download()?;
    if let Some(i) = got.iter().position(|v| v.is_nan()) {
        b.mismatch(format_args!(
            "gemm_bf16 {n}^3: element {i} was never written"
        ));
    }
    let got_at: Vec<f32> = at.iter().map(|&(r, col)| got[r * n + col]).collect();
    b.check(
        &format!(
            "gemm_bf16 {n}^3, on {} sampled elements against the CPU",
            at.len()
        ),
        &got_at,
        &want,
        f32::to_bits,
    );
    b.check(
        &format!("gemm_bf16 {n}^3, unchecked, against the checked kernel"),
        &c[1].download()?,
        &got,
        f32::to_bits,
    );
    let tflops = 2.0 * (n as f64).powi(3) / (t[0] * 1e-3) / 1e12;
    Ok(Row::new("gemm (mma.sync)", format!("{n}^3 bf16"), Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(&format!("gemm_{n}_bf16"), Unit::Ms))
        .note(format!("{tflops:.1} TFLOP/s; C in f32 (peers: bf16)")))
}

/// `gemm_3xtf32`: f32 C = A * B through 3xTF32.
fn tf32x3_row(b: &Bench, n: usize) -> Res<Row> {
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 33);
    let mut reals = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
            .collect()
    };
    let (ha, hb) = (reals(n * n), reals(n * n));
    let at = sample(&mut rng, n);
    let want: Vec<f64> = at
        .iter()
        .map(|&(r, c)| {
            (0..n)
                .map(|i| ha[r * n + i] as f64 * hb[i * n + c] as f64)
                .sum()
        })
        .collect();
    let (a, bm) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let poison = vec![f32::NAN; n * n];
    let mut c: [DeviceBuffer<f32>; 2] = [dev.upload(&poison)?, dev.upload(&poison)?];
    let cfg = gemm_config(n, n);
    let [cc, cu] = &mut c;
    let mut steps: Vec<Step> = vec![
        Box::new(|| {
            Ok(checked::gemm_3xtf32::launch(
                dev, cfg, &a, &bm, cc, n, n, n,
            )?)
        }),
        Box::new(|| {
            Ok(unchecked::gemm_3xtf32::launch(
                dev, cfg, &a, &bm, cu, n, n, n,
            )?)
        }),
    ];
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let got = c[0].download()?;
    if let Some(i) = got.iter().position(|v| v.is_nan()) {
        b.mismatch(format_args!(
            "gemm_3xtf32 {n}^3: element {i} was never written"
        ));
    }
    let scale = want.iter().fold(0.0f64, |s, w| s.max(w.abs()));
    let err = at
        .iter()
        .zip(&want)
        .map(|(&(r, col), w)| (got[r * n + col] as f64 - w).abs() / scale)
        .fold(0.0f64, f64::max);
    if err.is_nan() || err > 2f64.powi(-17) {
        b.mismatch(format_args!(
            "gemm_3xtf32 {n}^3: error {err:.2e} of max |C|, above 2^-17"
        ));
    }
    b.check(
        &format!("gemm_3xtf32 {n}^3, unchecked, against the checked kernel"),
        &c[1].download()?,
        &got,
        f32::to_bits,
    );
    let tflops = 2.0 * (n as f64).powi(3) / (t[0] * 1e-3) / 1e12;
    Ok(Row::new("gemm 3xTF32", format!("{n}^3 f32"), Unit::Ms)
        .times(t[0], Some(t[1]), None)
        .peers(b.peers(&format!("matmul_{n}_f32"), Unit::Ms))
        .note(format!(
            "{tflops:.1} TFLOP/s; error {err:.1e} of max |C| vs f64"
        )))
}
/// `gemm_hopper_{bf16,f16,tf32}`: C = A * B^T with B given n x k, through TMA and wgmma;
/// the hand twin in cuda/gemm_hopper.cu (16-bit only); peers on the same layout
/// (`gemm_{n}_{t}_nt`; tf32's peers are row major, `gemm_{n}_tf32`).
/// A Hopper kernel's `launch`: maps of A and B, C as pairs, m, n, k.
type HopperLaunch<T, P> = fn(
    &warpspeed::Device,
    LaunchConfig,
    &TensorMap<T>,
    &TensorMap<T>,
    &mut DeviceBuffer<P>,
    u32,
    u32,
    u32,
) -> warpspeed::Result<()>;

fn hopper_row<T: HopperElem>(
    b: &Bench,
    n: usize,
    launch: [HopperLaunch<T, T::Pair>; 2],
) -> Res<Row> {
    let dev = &b.dev;
    let mut rng = XorShift::new(n as u64 + 7);
    let (ha, hb) = (small(&mut rng, n * n), small(&mut rng, n * n));
    // Sampled pairs (row, even column): B is n x k, so C[r][c] = sum_i A[r][i] * B[c][i].
    // Integers -3..=3: exact in f32 (and tf32), and the sums round to T alike on both sides.
    let at: Vec<(usize, usize)> = sample(&mut rng, n)
        .into_iter()
        .map(|(r, c)| (r, c & !1))
        .collect();
    let dot = |r: usize, c: usize| (0..n).fold(0.0f32, |s, i| s + ha[r * n + i] * hb[c * n + i]);
    let want: Vec<u64> = at
        .iter()
        .map(|&(r, c)| T::pair(dot(r, c), dot(r, c + 1)).to_bits())
        .collect();
    let to_t = |v: &[f32]| -> Vec<T> { v.iter().map(|&x| T::from_f32(x)).collect() };
    let (a, bt) = (dev.upload(&to_t(&ha))?, dev.upload(&to_t(&hb))?);
    let ma = TensorMap::tiled_2d(&a, [n, n], [BM, T::BK], Swizzle::B128)?;
    let mb = TensorMap::tiled_2d(&bt, [n, n], [BN, T::BK], Swizzle::B128)?;
    let poison = vec![T::Pair::from_bits(u64::MAX); n * n / 2]; // NaN pairs in every type
    let mut c: [DeviceBuffer<T::Pair>; 3] = [
        dev.upload(&poison)?,
        dev.upload(&poison)?,
        dev.upload(&poison)?,
    ];
    let sms = dev.limits().multiprocessor_count as usize;
    let cfg = gemm_hopper_config(n, n, sms);
    let hand = match T::HAND {
        Some(name) => {
            let f = b.hand.function("gemm_hopper.cu", name)?;
            f.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                cfg.shared_mem_bytes as i32,
            )?;
            let maps = (HandMap::of(&ma)?, HandMap::of(&mb)?);
            Some((f, maps))
        }
        None => None,
    };
    let n32 = n as u32;
    let [cc, cu, ch] = &mut c;
    let mut steps: Vec<Step> = vec![
        Box::new(|| Ok(launch[0](dev, cfg, &ma, &mb, cc, n32, n32, n32)?)),
        Box::new(|| Ok(launch[1](dev, cfg, &ma, &mb, cu, n32, n32, n32)?)),
    ];
    if let Some((f, maps)) = &hand {
        steps.push(Box::new(move || {
            let (hand_a, hand_b) = maps;
            let mut l = b.stream.launch_builder(f);
            l.arg(hand_a)
                .arg(hand_b)
                .arg(raw(&*ch))
                .arg(&n32)
                .arg(&n32)
                .arg(&n32);
            // SAFETY: gemm_hopper_*_hand(tmap a, tmap b, unsigned* c, unsigned m, n, k):
            // the maps describe live n x n buffers, c holds n * n / 2 pairs, and the grid
            // and shared memory are the warpspeed kernel's.
            unsafe { l.launch(cfg_of(cfg)) }?;
            Ok(())
        }));
    }
    let t = best_ms(b, &mut steps)?;
    drop(steps);
    let name = format!("gemm_hopper_{} {n}^3", T::NAME);
    let pairs: Vec<u64> = c[0].download()?.iter().map(|p| p.to_bits()).collect();
    let unwritten = T::Pair::from_bits(u64::MAX).to_bits();
    if let Some(i) = pairs.iter().position(|&v| v == unwritten) {
        b.mismatch(format_args!("{name}: pair {i} was never written"));
    }
    let got_at: Vec<u64> = at
        .iter()
        .map(|&(r, col)| pairs[(r * n + col) / 2])
        .collect();
    b.check(
        &format!("{name}, on {} sampled pairs against the CPU", at.len()),
        &got_at,
        &want,
        |v| v,
    );
    let others = [("unchecked", &c[1]), ("hand", &c[2])];
    for (who, other) in others.into_iter().take(if hand.is_some() { 2 } else { 1 }) {
        let other: Vec<u64> = other.download()?.iter().map(|p| p.to_bits()).collect();
        b.check(
            &format!("{name}, {who}, against the checked kernel"),
            &other,
            &pairs,
            |v| v,
        );
    }
    let peer = match T::NAME {
        "tf32" => format!("gemm_{n}_tf32"),
        t => format!("gemm_{n}_{t}_nt"),
    };
    let tflops = 2.0 * (n as f64).powi(3) / (t[0] * 1e-3) / 1e12;
    Ok(Row::new(
        "gemm (wgmma, TMA)",
        format!("{n}^3 {} NT", T::NAME),
        Unit::Ms,
    )
    .times(t[0], Some(t[1]), t.get(2).copied())
    .peers(b.peers(&peer, Unit::Ms))
    .note(format!("{tflops:.0} TFLOP/s")))
}
