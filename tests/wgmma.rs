//! Hopper's warpgroup MMA (issue 21, item 3; docs/tensor-cores.md, "Hopper: warpgroup
//! MMA"): `FragmentAcc<f32, M64N{N}K16>` (and `M64N{N}K8`, f32 tiles as tf32), `acc.wgmma(&a_tile, &b_tile, k)` on 128B-swizzled
//! tiles in shared memory, the fences and groups around it, `setmaxnreg`. The host lays
//! the tiles out with `warpspeed::swizzle` and reads the accumulators back through
//! `warpspeed::mma::wgmma_owner`, so the GPU agrees with the CPU reference only if both are
//! the PTX ISA's. On the simulator, and on the GPU where it is an sm_90 one (elsewhere the
//! launch must be `Error::UnsupportedArch` naming sm_90a); outputs poisoned before each run.

use warpspeed::prelude::*;
use warpspeed::{bf16, f16, Error, LaunchConfig};

mod common;
use common::wgmma::{expect_sm90a_refusal, gather, runs_wgmma, small_ints, swizzled, swizzled_by};
use common::{devices, expect_oob, line_of, Rng};

/// 64 x 64 x 64, f16 tiles in `SharedArray`s, one warpgroup: `src` holds A then B (each
/// 64 x 64, already swizzled), `out[t * 32 + i]` is thread t's `acc.x[i]`.
#[gpu_kernel]
fn wgmma_n64_f16(src: &[f16], out: &mut [f32]) {
    let sa = SharedArray::<f16, 4096>::new();
    let sb = SharedArray::<f16, 4096>::new();
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
        acc.wgmma(&sa[0..4096], &sb[0..4096], k);
    }
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..32 {
        out[t * 32 + i] = acc.x[i];
    }
}

/// 64 x 128 x 64 per warpgroup, bf16 tiles in dynamic shared memory: warpgroup g's A and B
/// are `src[g * 192 * 64..]` (A 64 rows, then B 128 rows, swizzled); the block has one
/// warpgroup per tile pair. `out[t * 64 + i]` is thread t's `acc.x[i]`.
#[gpu_kernel]
fn wgmma_n128_bf16(src: &[bf16], out: &mut [f32]) {
    let tiles = dynamic_shared::<bf16>();
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let mut j = t;
    while j < src.len() {
        tiles[j] = src[j];
        j += threads;
    }
    fence_proxy_async();
    sync_threads();
    let base = t / 128 * 192 * 64;
    let mut acc = FragmentAcc::<f32, M64N128K16>::zeroed();
    wgmma_fence();
    for k in 0..4 {
        acc.wgmma(
            &tiles[base..base + 64 * 64],
            &tiles[base + 64 * 64..base + 192 * 64],
            k,
        );
    }
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..64 {
        out[t * 64 + i] = acc.x[i];
    }
}

/// 64 x 256 x 64, bf16, one warpgroup, one group per K slab (waited for oldest first).
#[gpu_kernel]
fn wgmma_n256_bf16(src: &[bf16], out: &mut [f32]) {
    let tiles = dynamic_shared::<bf16>();
    let t = thread_idx().x as usize;
    let mut j = t;
    while j < src.len() {
        tiles[j] = src[j];
        j += 128;
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N256K16>::zeroed();
    wgmma_fence();
    for k in 0..4 {
        acc.wgmma(&tiles[0..64 * 64], &tiles[64 * 64..320 * 64], k);
        wgmma_commit_group();
    }
    wgmma_wait_group(2);
    wgmma_wait_group(0);
    for i in 0..128 {
        out[t * 128 + i] = acc.x[i];
    }
}

/// tf32, 64 x 64 x 32 (`M64N64K8`, four 8-wide slabs), f32 tiles in `SharedArray`s, one
/// warpgroup: `src` holds A then B (each 64 rows of 32, swizzled), `out[t * 32 + i]` is
/// thread t's `acc.x[i]`.
#[gpu_kernel]
fn wgmma_n64_tf32(src: &[f32], out: &mut [f32]) {
    let sa = SharedArray::<f32, 2048>::new();
    let sb = SharedArray::<f32, 2048>::new();
    let t = thread_idx().x as usize;
    for j in 0..16 {
        sa[t * 16 + j] = src[t * 16 + j];
        sb[t * 16 + j] = src[2048 + t * 16 + j];
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N64K8>::zeroed();
    wgmma_fence();
    for k in 0..4 {
        acc.wgmma(&sa[0..2048], &sb[0..2048], k);
    }
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..32 {
        out[t * 32 + i] = acc.x[i];
    }
}

/// tf32, 64 x 256 x 32 (`M64N256K8`), f32 tiles in dynamic shared memory (A 64 rows, then
/// B 256 rows), one group per K slab.
#[gpu_kernel]
fn wgmma_n256_tf32(src: &[f32], out: &mut [f32]) {
    let tiles = dynamic_shared::<f32>();
    let t = thread_idx().x as usize;
    let mut j = t;
    while j < src.len() {
        tiles[j] = src[j];
        j += 128;
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N256K8>::zeroed();
    wgmma_fence();
    for k in 0..4 {
        acc.wgmma(&tiles[0..64 * 32], &tiles[64 * 32..320 * 32], k);
        wgmma_commit_group();
    }
    wgmma_wait_group(0);
    for i in 0..128 {
        out[t * 128 + i] = acc.x[i];
    }
}

/// tf32 with an A tile of `alen` elements (it needs 64 * 32) and a `k` from the host.
#[gpu_kernel]
fn wgmma_tf32_k(out: &mut [f32], alen: usize, k: usize) {
    let sa = SharedArray::<f32, 2048>::new();
    let t = thread_idx().x as usize;
    for j in 0..16 {
        sa[t * 16 + j] = 1.0;
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N8K8>::zeroed();
    wgmma_fence();
    acc.wgmma(&sa[0..alen], &sa[0..256], k); // @tf32_call
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..4 {
        out[t * 4 + i] = acc.x[i];
    }
}

/// A `k` from the host: past 3 it is an `OutOfBounds` at the call.
#[gpu_kernel]
fn wgmma_k(out: &mut [f32], k: usize) {
    let sa = SharedArray::<bf16, 4096>::new();
    let t = thread_idx().x as usize;
    for j in 0..32 {
        sa[t * 32 + j] = bf16::from_f32(1.0);
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N8K16>::zeroed();
    wgmma_fence();
    acc.wgmma(&sa[0..4096], &sa[0..512], k); // @k_call
    wgmma_commit_group();
    wgmma_wait_group(0);
    for i in 0..4 {
        out[t * 4 + i] = acc.x[i];
    }
}

/// Thread 0 writes A while the wgmma that reads it may still be in flight (`wait`
/// false), or after the wait and a barrier (true).
#[gpu_kernel]
fn wgmma_then_write(out: &mut [f32], wait: bool) {
    let sa = SharedArray::<bf16, 4096>::new();
    let t = thread_idx().x as usize;
    for j in 0..32 {
        sa[t * 32 + j] = bf16::from_f32(1.0);
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N8K16>::zeroed();
    wgmma_fence();
    acc.wgmma(&sa[0..4096], &sa[0..512], 0); // @race_wgmma
    wgmma_commit_group();
    if wait {
        wgmma_wait_group(0);
        sync_threads();
    }
    if t == 0 {
        sa[5] = bf16::from_f32(2.0); // @race_write
    }
    wgmma_wait_group(0);
    for i in 0..4 {
        out[t * 4 + i] = acc.x[i];
    }
}

/// Only the threads below `upto` reach the wgmma; or the tile starts at element `start`.
#[gpu_kernel]
fn wgmma_partial(out: &mut [f32], upto: usize, start: usize) {
    let sa = SharedArray::<bf16, 8192>::new();
    let t = thread_idx().x as usize;
    for j in 0..64 {
        sa[t * 64 + j] = bf16::from_f32(1.0);
    }
    fence_proxy_async();
    sync_threads();
    let mut acc = FragmentAcc::<f32, M64N8K16>::zeroed();
    if t < upto {
        wgmma_fence();
        acc.wgmma(&sa[start..start + 4096], &sa[0..512], 0);
        wgmma_commit_group();
        wgmma_wait_group(0);
    }
    for i in 0..4 {
        out[t * 4 + i] = acc.x[i];
    }
}

/// A producer warpgroup (1) gives registers up, the consumer (0) takes them; with
/// `divergent`, only half of warpgroup 1 does.
#[gpu_kernel]
fn registers(out: &mut [u32], divergent: bool) {
    let t = thread_idx().x as usize;
    if t >= 128 {
        if !divergent || t < 192 {
            setmaxnreg_dec(40);
        }
        out[t] = 1;
    } else {
        setmaxnreg_inc(232);
        out[t] = 2;
    }
}

/// `D[r][c] = sum_k A[r][k] * B[c][k]` in f64 (K = 64), with `sum_k |A B|` beside it.
fn reference(a: &[f32], b: &[f32], n: usize) -> Vec<(f64, f64)> {
    reference_k(a, b, n, 64)
}

/// As [`reference`], K = `kk`.
fn reference_k(a: &[f32], b: &[f32], n: usize, kk: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(64 * n);
    for r in 0..64 {
        for c in 0..n {
            let (mut s, mut mag) = (0f64, 0f64);
            for k in 0..kk {
                let p = f64::from(a[r * kk + k]) * f64::from(b[c * kk + k]);
                s += p;
                mag += p.abs();
            }
            out.push((s, mag));
        }
    }
    out
}

/// Runs one of the three product kernels on A and B tiles (`groups` pairs) and returns each
/// warpgroup's D; `None` where the GPU cannot run it (after checking the refusal).
fn run(dev: &Device, n: usize, tiles: &[(Vec<f32>, Vec<f32>)]) -> Option<Vec<Vec<f32>>> {
    let mut src = Vec::new();
    for (a, b) in tiles {
        src.extend(swizzled(a, 64));
        src.extend(swizzled(b, n));
    }
    let groups = tiles.len();
    let mut out = dev.upload(&vec![f32::NAN; groups * 64 * n]).unwrap();
    let r = match n {
        64 => {
            let s: Vec<f16> = src.iter().map(|&v| f16::from_f32(v)).collect();
            let s = dev.upload(&s).unwrap();
            wgmma_n64_f16::launch(dev, LaunchConfig::new(1, 128), &s, &mut out)
        }
        _ => {
            let s: Vec<bf16> = src.iter().map(|&v| bf16::from_f32(v)).collect();
            let bytes = s.len() * 2;
            let s = dev.upload(&s).unwrap();
            let cfg = LaunchConfig::new(1, 128 * groups as u32).with_shared_mem(bytes);
            match n {
                128 => wgmma_n128_bf16::launch(dev, cfg, &s, &mut out),
                _ => wgmma_n256_bf16::launch(dev, cfg, &s, &mut out),
            }
        }
    };
    if !runs_wgmma(dev) {
        expect_sm90a_refusal(dev, r);
        return None;
    }
    r.unwrap();
    Some(gather(&out.download().unwrap(), n, groups))
}

/// Small integers multiply exactly on both backends: N = 64 (f16, SharedArray), 128 (bf16,
/// dynamic shared memory, two warpgroups) and 256 (bf16, a group per K slab).
#[test]
fn wgmma_small_integers_are_exact() {
    let mut rng = Rng::new(2103);
    for dev in devices("wgmma_small_integers_are_exact") {
        for (n, groups) in [(64, 1), (128, 2), (256, 1)] {
            let tiles: Vec<(Vec<f32>, Vec<f32>)> = (0..groups)
                .map(|_| (small_ints(&mut rng, 64 * 64), small_ints(&mut rng, n * 64)))
                .collect();
            let Some(got) = run(&dev, n, &tiles) else {
                break;
            };
            for (g, (a, b)) in tiles.iter().enumerate() {
                let want: Vec<f32> = reference(a, b, n).iter().map(|&(s, _)| s as f32).collect();
                assert_eq!(got[g], want, "{:?}: N = {n}, warpgroup {g}", dev.backend());
            }
        }
    }
}

/// Random reals: within the documented bound of the exact product (2^-19 of the
/// magnitude a wgmma, four wgmmas here).
#[test]
fn wgmma_random_within_the_documented_bound() {
    let mut rng = Rng::new(2104);
    for dev in devices("wgmma_random_within_the_documented_bound") {
        let r = |rng: &mut Rng, len| -> Vec<f32> {
            (0..len)
                .map(|_| bf16::from_f32(rng.range_f32(-2.0, 2.0)).to_f32())
                .collect()
        };
        let tiles = vec![(r(&mut rng, 64 * 64), r(&mut rng, 128 * 64)); 2];
        let Some(got) = run(&dev, 128, &tiles) else {
            continue;
        };
        for (g, (a, b)) in tiles.iter().enumerate() {
            for (i, (&v, &(s, mag))) in got[g].iter().zip(&reference(a, b, 128)).enumerate() {
                let bound = 4.0 * mag * 2f64.powi(-19);
                assert!(
                    (f64::from(v) - s).abs() <= bound,
                    "{:?}: d[{i}] = {v}, exact {s}, bound {bound}",
                    dev.backend()
                );
            }
        }
    }
}

/// Runs a tf32 product kernel (N = 64 or 256) on A (64 x 32) and B (N x 32) and returns D;
/// `None` where the GPU cannot run it (after checking the refusal).
fn run_tf32(dev: &Device, n: usize, a: &[f32], b: &[f32]) -> Option<Vec<f32>> {
    let mut src = swizzled_by(a, 64, 4);
    src.extend(swizzled_by(b, n, 4));
    let mut out = dev.upload(&vec![f32::NAN; 64 * n]).unwrap();
    let bytes = src.len() * 4;
    let s = dev.upload(&src).unwrap();
    let r = match n {
        64 => wgmma_n64_tf32::launch(dev, LaunchConfig::new(1, 128), &s, &mut out),
        _ => {
            let cfg = LaunchConfig::new(1, 128).with_shared_mem(bytes);
            wgmma_n256_tf32::launch(dev, cfg, &s, &mut out)
        }
    };
    if !runs_wgmma(dev) {
        expect_sm90a_refusal(dev, r);
        return None;
    }
    r.unwrap();
    Some(gather(&out.download().unwrap(), n, 1).remove(0))
}

/// tf32: the value of `x` with its low 13 mantissa bits cleared (exactly a tf32).
fn tf32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & !0x1fff)
}

/// tf32 (`M64N{N}K8`, f32 tiles): small integers multiply exactly on both backends, N = 64
/// (`SharedArray`s) and 256 (dynamic shared memory, a group per slab).
#[test]
fn wgmma_tf32_small_integers_are_exact() {
    let mut rng = Rng::new(2105);
    for dev in devices("wgmma_tf32_small_integers_are_exact") {
        for n in [64, 256] {
            let (a, b) = (small_ints(&mut rng, 64 * 32), small_ints(&mut rng, n * 32));
            let Some(got) = run_tf32(&dev, n, &a, &b) else {
                break;
            };
            let want: Vec<f32> = reference_k(&a, &b, n, 32)
                .iter()
                .map(|&(s, _)| s as f32)
                .collect();
            assert_eq!(got, want, "{:?}: tf32, N = {n}", dev.backend());
        }
    }
}

/// tf32 random reals (already tf32): within the documented bound of the exact product
/// (2^-19 of the magnitude a wgmma, four wgmmas here), N = 64 and 256.
#[test]
fn wgmma_tf32_random_within_the_documented_bound() {
    let mut rng = Rng::new(2106);
    for dev in devices("wgmma_tf32_random_within_the_documented_bound") {
        for n in [64, 256] {
            let mut r =
                |len| -> Vec<f32> { (0..len).map(|_| tf32(rng.range_f32(-2.0, 2.0))).collect() };
            let (a, b) = (r(64 * 32), r(n * 32));
            let Some(got) = run_tf32(&dev, n, &a, &b) else {
                break;
            };
            for (i, (&v, &(s, mag))) in got.iter().zip(&reference_k(&a, &b, n, 32)).enumerate() {
                let bound = 4.0 * mag * 2f64.powi(-19);
                assert!(
                    (f64::from(v) - s).abs() <= bound,
                    "{:?}: N = {n}, d[{i}] = {v}, exact {s}, bound {bound}",
                    dev.backend()
                );
            }
        }
    }
}

/// The simulator reads an f32 tile element as tf32: its low 13 mantissa bits are ignored,
/// so raw random reals give the bits of their truncations.
#[test]
fn wgmma_tf32_ignores_the_low_bits_on_the_simulator() {
    let mut rng = Rng::new(2107);
    let dev = Device::simulator();
    let a: Vec<f32> = (0..64 * 32).map(|_| rng.range_f32(-2.0, 2.0)).collect();
    let b: Vec<f32> = (0..64 * 32).map(|_| rng.range_f32(-2.0, 2.0)).collect();
    assert!(a.iter().any(|&x| tf32(x) != x));
    let raw = run_tf32(&dev, 64, &a, &b).unwrap();
    let (ta, tb): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|&x| tf32(x)).collect(),
        b.iter().map(|&x| tf32(x)).collect(),
    );
    let truncated = run_tf32(&dev, 64, &ta, &tb).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(&raw), bits(&truncated));
}

/// tf32 tiles are 64 (A) and N (B) rows of 32 f32: an A of 2047 elements is an
/// `OutOfBounds` (index 2048) at the call, and so is `k` past 3, on both backends.
#[test]
fn wgmma_tf32_short_tile_or_k_is_out_of_bounds() {
    let line = line_of(include_str!("wgmma.rs"), "tf32_call");
    let place = format!("tests/wgmma.rs:{line}");
    for dev in devices("wgmma_tf32_short_tile_or_k_is_out_of_bounds") {
        let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
        let r = wgmma_tf32_k::launch(&dev, LaunchConfig::new(1, 128), &mut out, 2047, 0);
        if !runs_wgmma(&dev) {
            expect_sm90a_refusal(&dev, r);
            continue;
        }
        expect_oob(&dev, r, "wgmma_tf32_k", &place, 2048, 2047);
        let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
        let r = wgmma_tf32_k::launch(&dev, LaunchConfig::new(1, 128), &mut out, 2048, 4);
        expect_oob(&dev, r, "wgmma_tf32_k", &place, 4, 4);
        // In range: the 64 x 8 product of ones over 8 columns.
        let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
        wgmma_tf32_k::launch(&dev, LaunchConfig::new(1, 128), &mut out, 2048, 3).unwrap();
        assert_eq!(
            out.download().unwrap(),
            vec![8.0; 512],
            "{:?}",
            dev.backend()
        );
    }
}

/// `k` past 3 is an `OutOfBounds` (index k, length 4) at the call, on both backends.
#[test]
fn wgmma_k_out_of_range_is_out_of_bounds() {
    let line = line_of(include_str!("wgmma.rs"), "k_call");
    for dev in devices("wgmma_k_out_of_range_is_out_of_bounds") {
        let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
        let r = wgmma_k::launch(&dev, LaunchConfig::new(1, 128), &mut out, 4);
        if !runs_wgmma(&dev) {
            expect_sm90a_refusal(&dev, r);
            continue;
        }
        expect_oob(&dev, r, "wgmma_k", &format!("tests/wgmma.rs:{line}"), 4, 4);
        // In range: the 64 x 8 product of ones over 16 columns.
        let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
        wgmma_k::launch(&dev, LaunchConfig::new(1, 128), &mut out, 3).unwrap();
        assert_eq!(
            out.download().unwrap(),
            vec![16.0; 512],
            "{:?}",
            dev.backend()
        );
    }
}

/// A write to a tile before the wgmma_wait_group that covers the wgmma reading it is a
/// data race naming both lines; after the wait and a barrier it is not.
#[test]
fn writing_a_tile_in_flight_is_a_race_on_the_simulator() {
    let src = include_str!("wgmma.rs");
    let (wl, sl) = (line_of(src, "race_wgmma"), line_of(src, "race_write"));
    let dev = Device::simulator();
    let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
    let err = wgmma_then_write::launch(&dev, LaunchConfig::new(1, 128), &mut out, false)
        .and_then(|()| dev.synchronize())
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    assert!(text.contains(&format!("tests/wgmma.rs:{wl}")), "{text}");
    assert!(text.contains(&format!("tests/wgmma.rs:{sl}")), "{text}");
    assert!(text.contains("wgmma_wait_group"), "{text}");
    let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
    wgmma_then_write::launch(&dev, LaunchConfig::new(1, 128), &mut out, true).unwrap();
    assert_eq!(out.download().unwrap(), vec![16.0; 512]);
}

/// Every thread of the warpgroup must reach a wgmma; a block of less than a warpgroup
/// cannot; a tile must be 1024-byte aligned. Reported on the simulator.
#[test]
fn warpgroup_misuse_is_reported_on_the_simulator() {
    let dev = Device::simulator();
    let cases: [(u32, usize, usize, &str); 3] = [
        (128, 64, 0, "every thread of its warpgroup must"),
        (96, 128, 0, "needs the 128 threads of warpgroup 0"),
        (128, 128, 64, "not 1024-byte aligned"),
    ];
    for (threads, upto, start, want) in cases {
        let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
        let err = wgmma_partial::launch(&dev, LaunchConfig::new(1, threads), &mut out, upto, start)
            .and_then(|()| dev.synchronize())
            .unwrap_err();
        assert!(err.to_string().contains(want), "{want}: {err}");
    }
    let mut out = dev.upload(&vec![f32::NAN; 512]).unwrap();
    wgmma_partial::launch(&dev, LaunchConfig::new(1, 128), &mut out, 128, 4096).unwrap();
    assert_eq!(out.download().unwrap(), vec![16.0; 512]);
}

/// `setmaxnreg` per warpgroup runs on the simulator (a no-op there); half a warpgroup is an
/// error. Not run on the GPU: what `setmaxnreg` may ask depends on the registers the kernel
/// starts with (a `.inc` beyond the block's pool waits for good), which only a kernel
/// written for it (launch bounds, a register budget) controls; its C compiles for sm_90a
/// (`nvrtc_compiles_for_sm90a`).
#[test]
fn setmaxnreg_is_a_warpgroup_collective() {
    let dev = Device::simulator();
    let mut out = dev.upload(&vec![0u32; 256]).unwrap();
    registers::launch(&dev, LaunchConfig::new(1, 256), &mut out, false).unwrap();
    let want: Vec<u32> = (0..256).map(|t| if t < 128 { 2 } else { 1 }).collect();
    assert_eq!(out.download().unwrap(), want);
    let mut out = dev.upload(&vec![0u32; 256]).unwrap();
    let err = registers::launch(&dev, LaunchConfig::new(1, 256), &mut out, true)
        .and_then(|()| dev.synchronize())
        .unwrap_err();
    assert!(err.to_string().contains("setmaxnreg_dec"), "{err}");
}

/// Each thread's `acc.x[i]` is the element `wgmma_owner` names: a product whose every
/// element is distinct (A = identity, B[c][k] = c * 64 + k - 2048).
#[test]
fn each_thread_holds_the_documented_elements() {
    for dev in devices("each_thread_holds_the_documented_elements") {
        let a: Vec<f32> = (0..64 * 64)
            .map(|i| f32::from(u8::from(i / 64 == i % 64)))
            .collect();
        // Every integer in -2048..2048: exact in f16.
        let b: Vec<f32> = (0..64 * 64).map(|i| i as f32 - 2048.0).collect();
        let Some(got) = run(&dev, 64, &[(a, b.clone())]) else {
            continue;
        };
        // D = A * B^T = B^T: D[r][c] = B[c][r].
        let want: Vec<f32> = (0..64 * 64).map(|i| b[(i % 64) * 64 + i / 64]).collect();
        assert_eq!(got[0], want, "{:?}", dev.backend());
    }
}

/// The C compiles with NVRTC for sm_90a (chosen for a 9.0 GPU).
#[test]
fn nvrtc_compiles_for_sm90a() {
    let kernels = [
        ("wgmma_n64_f16", &wgmma_n64_f16::KERNEL),
        ("wgmma_n128_bf16", &wgmma_n128_bf16::KERNEL),
        ("wgmma_n256_bf16", &wgmma_n256_bf16::KERNEL),
        ("wgmma_k", &wgmma_k::KERNEL),
        ("wgmma_then_write", &wgmma_then_write::KERNEL),
        ("wgmma_partial", &wgmma_partial::KERNEL),
        ("registers", &registers::KERNEL),
        ("wgmma_n64_tf32", &wgmma_n64_tf32::KERNEL),
        ("wgmma_n256_tf32", &wgmma_n256_tf32::KERNEL),
        ("wgmma_tf32_k", &wgmma_tf32_k::KERNEL),
    ];
    common::nvrtc_compiles_for(&kernels, &[(9, 0)]);
    if common::nvrtc_here() {
        let err = warpspeed::compile::compile_cubin(
            wgmma_k::KERNEL.source.as_str(),
            (8, 0),
            wgmma_k::KERNEL.options,
        )
        .unwrap_err();
        assert!(matches!(err, Error::UnsupportedArch { .. }), "{err}");
        assert!(err.to_string().contains("sm_90a"), "{err}");
    }
}
