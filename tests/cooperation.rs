//! Block cooperation on the simulator and, where there is one, on the GPU: barriers with
//! their count/and/or forms, warp vote, shuffle and match functions with partial masks and
//! widths, and atomics of every operation on every type, in global and shared memory. Each
//! result is checked against a CPU model of CUDA's definition, so the simulator and the GPU
//! agree bit for bit.

mod common;

use common::{devices, Rng};
use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, Ordering};
use warpspeed::prelude::*;
use warpspeed::{AtomicF32, AtomicF64, LaunchConfig};

#[gpu_kernel]
fn votes(preds: &[u32], out: &mut [u32]) {
    let g = grid_1d();
    let p = preds[g] != 0;
    let count = sync_threads_count(p);
    let all = sync_threads_and(p);
    let any = sync_threads_or(p);
    out[3 * g] = count;
    out[3 * g + 1] = all as u32;
    out[3 * g + 2] = any as u32;
}

#[test]
fn block_votes() {
    let block = 96usize;
    let blocks = 4usize;
    // Block 0 all true, block 1 all false, blocks 2 and 3 mixed.
    let mut rng = Rng::new(5);
    let preds: Vec<u32> = (0..block * blocks)
        .map(|i| match i / block {
            0 => 1,
            1 => 0,
            _ => rng.next_u32() % 2,
        })
        .collect();
    for dev in devices("block_votes") {
        let input = dev.upload(&preds).unwrap();
        let mut out = dev.upload(&vec![u32::MAX; 3 * block * blocks]).unwrap();
        votes::launch(
            &dev,
            LaunchConfig::new(blocks as u32, block as u32),
            &input,
            &mut out,
        )
        .unwrap();
        let got = out.download().unwrap();
        for b in 0..blocks {
            let ps = &preds[b * block..(b + 1) * block];
            let count = ps.iter().filter(|&&p| p != 0).count() as u32;
            let want = [
                count,
                u32::from(count == block as u32),
                u32::from(count > 0),
            ];
            for t in 0..block {
                let g = b * block + t;
                assert_eq!(
                    got[3 * g..3 * g + 3],
                    want,
                    "{:?} block {b} thread {t}",
                    dev.backend()
                );
            }
        }
    }
}

/// Eight warp functions per lane; lanes outside `mask` take no part and write nothing.
#[gpu_kernel]
fn warp_ops(vals: &[i32], out: &mut [i32], mask: u32, width: u32, delta: u32) {
    let g = grid_1d();
    let lane = lane_id();
    let v = vals[g];
    if (mask >> lane) & 1 == 1 {
        out[8 * g] = shfl_sync(mask, v, lane * 7 + delta, width);
        out[8 * g + 1] = shfl_up_sync(mask, v, delta, width);
        out[8 * g + 2] = shfl_down_sync(mask, v, delta, width);
        out[8 * g + 3] = shfl_xor_sync(mask, v, delta, width);
        out[8 * g + 4] = ballot_sync(mask, v > 0) as i32;
        out[8 * g + 5] = all_sync(mask, v > -900) as i32;
        out[8 * g + 6] = any_sync(mask, v > 900) as i32;
        out[8 * g + 7] = match_any_sync(mask, v % 4) as i32;
    }
}

/// 64-bit and float shuffles with the default width.
#[gpu_kernel]
fn wide_shuffles(
    a: &[i64],
    b: &[f64],
    c: &[u8],
    out_a: &mut [i64],
    out_b: &mut [f64],
    out_c: &mut [u8],
) {
    let g = grid_1d();
    let lane = lane_id();
    out_a[g] = shfl_xor_sync(0xffff_ffff, a[g], 5);
    out_b[g] = shfl_sync(0xffff_ffff, b[g], 31 - lane);
    out_c[g] = shfl_down_sync(0xffff_ffff, c[g], 3);
}

/// CUDA's definitions of the eight warp functions for one warp (`lanes` values).
fn warp_model(v: &[i32], mask: u32, width: u32, delta: u32) -> Vec<Option<[i32; 8]>> {
    let n = v.len() as u32;
    let in_mask: Vec<u32> = (0..n).filter(|l| (mask >> l) & 1 == 1).collect();
    (0..n)
        .map(|lane| {
            if (mask >> lane) & 1 == 0 {
                return None;
            }
            let base = lane & !(width - 1);
            let src = base + (lane * 7 + delta) % width;
            let up = if lane % width >= delta {
                lane - delta
            } else {
                lane
            };
            let down = if lane % width + delta < width {
                lane + delta
            } else {
                lane
            };
            // CUDA: a lane may read earlier segments, but reading a later one gives its own value.
            let x = lane ^ delta;
            let xor = if x >= (lane + width) & !(width - 1) {
                lane
            } else {
                x
            };
            let ballot = in_mask
                .iter()
                .filter(|&&l| v[l as usize] > 0)
                .fold(0u32, |m, &l| m | 1 << l);
            let all = in_mask.iter().all(|&l| v[l as usize] > -900);
            let any = in_mask.iter().any(|&l| v[l as usize] > 900);
            let mine = v[lane as usize] % 4;
            let matched = in_mask
                .iter()
                .filter(|&&l| v[l as usize] % 4 == mine)
                .fold(0u32, |m, &l| m | 1 << l);
            Some([
                v[src as usize],
                v[up as usize],
                v[down as usize],
                v[xor as usize],
                ballot as i32,
                all as i32,
                any as i32,
                matched as i32,
            ])
        })
        .collect()
}

#[test]
fn warp_functions_with_masks_and_widths() {
    let full = u32::MAX;
    // (mask, width): partial masks cover whole segments, so every source lane takes part.
    let cases = [
        (full, 32),
        (full, 16),
        (full, 8),
        (full, 4),
        (full, 1),
        (0x0000_ffff, 16),
        (0x00ff_00ff, 8),
        (0xf0f0_f0f0, 4),
        (0x0000_0001, 1),
    ];
    let mut rng = Rng::new(11);
    let (warps, block) = (4usize, 64u32);
    let vals: Vec<i32> = (0..32 * warps)
        .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
        .collect();
    for dev in devices("warp_functions") {
        for &(mask, width) in &cases {
            for delta in [1u32, 3] {
                if delta >= width && width > 1 {
                    continue;
                }
                let input = dev.upload(&vals).unwrap();
                let mut out = dev.upload(&vec![i32::MIN; 8 * vals.len()]).unwrap();
                let cfg = LaunchConfig::new((warps as u32 * 32) / block, block);
                warp_ops::launch(&dev, cfg, &input, &mut out, mask, width, delta).unwrap();
                let got = out.download().unwrap();
                for w in 0..warps {
                    let model = warp_model(&vals[32 * w..32 * w + 32], mask, width, delta);
                    for (lane, want) in model.iter().enumerate() {
                        let g = 32 * w + lane;
                        let want = want.unwrap_or([i32::MIN; 8]);
                        assert_eq!(
                            got[8 * g..8 * g + 8],
                            want,
                            "{:?}: mask {mask:#x} width {width} delta {delta} warp {w} lane {lane}",
                            dev.backend()
                        );
                    }
                }
            }
        }

        // A partial last warp: 48 threads, the second warp has lanes 0..16 only.
        let input = dev.upload(&vals[..48]).unwrap();
        let mut out = dev.upload(&vec![i32::MIN; 8 * 48]).unwrap();
        warp_ops::launch(
            &dev,
            LaunchConfig::new(1, 48),
            &input,
            &mut out,
            0xffff,
            16,
            1,
        )
        .unwrap();
        let got = out.download().unwrap();
        let model = warp_model(&vals[32..48], 0xffff, 16, 1);
        for (lane, want) in model.iter().enumerate() {
            let g = 32 + lane;
            assert_eq!(
                got[8 * g..8 * g + 8],
                want.unwrap(),
                "{:?}: partial warp lane {lane}",
                dev.backend()
            );
        }

        let a: Vec<i64> = (0..64).map(|i| (i as i64 - 30) * 0x1_0000_0001).collect();
        let b: Vec<f64> = (0..64)
            .map(|i| f64::from(i) * -0.37 + 1e300 * f64::from(i % 3))
            .collect();
        let c: Vec<u8> = (0..64).map(|i| (i * 37 % 256) as u8).collect();
        let (da, db, dc) = (
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
            dev.upload(&c).unwrap(),
        );
        let mut oa = dev.zeros::<i64>(64).unwrap();
        let mut ob = dev.zeros::<f64>(64).unwrap();
        let mut oc = dev.zeros::<u8>(64).unwrap();
        wide_shuffles::launch(
            &dev,
            LaunchConfig::new(2, 32),
            &da,
            &db,
            &dc,
            &mut oa,
            &mut ob,
            &mut oc,
        )
        .unwrap();
        let (ga, gb, gc) = (
            oa.download().unwrap(),
            ob.download().unwrap(),
            oc.download().unwrap(),
        );
        for g in 0..64 {
            let (w, lane) = (g / 32 * 32, g % 32);
            assert_eq!(
                ga[g],
                a[w + (lane ^ 5)],
                "{:?} i64 xor lane {g}",
                dev.backend()
            );
            assert_eq!(
                gb[g].to_bits(),
                b[w + 31 - lane].to_bits(),
                "{:?} f64 lane {g}",
                dev.backend()
            );
            let down = if lane + 3 < 32 { lane + 3 } else { lane };
            assert_eq!(gc[g], c[w + down], "{:?} u8 down lane {g}", dev.backend());
        }
    }
}

macro_rules! int_atomics {
    ($kernel:ident, $swap:ident, $test:ident, $t:ty, $a:ty) => {
        /// acc = [add, sub, min, max, and, or, xor], updated by every thread.
        #[gpu_kernel]
        fn $kernel(vals: &[$t], acc: &[$a], olds: &mut [$t]) {
            let g = grid_1d();
            if g >= vals.len() {
                return;
            }
            let v = vals[g];
            let old = acc[0].fetch_add(v, Ordering::Relaxed);
            acc[1].fetch_sub(v, Ordering::AcqRel);
            acc[2].fetch_min(v, Ordering::Relaxed);
            acc[3].fetch_max(v, Ordering::SeqCst);
            acc[4].fetch_and(v, Ordering::Relaxed);
            acc[5].fetch_or(v, Ordering::Release);
            acc[6].fetch_xor(v, Ordering::Acquire);
            olds[g] = old;
        }

        /// Every thread swaps its value in; the old values and the final one are a
        /// permutation of the initial value and all the values.
        #[gpu_kernel]
        fn $swap(vals: &[$t], cell: &[$a], olds: &mut [$t]) {
            let g = grid_1d();
            if g < vals.len() {
                olds[g] = cell[0].swap(vals[g], Ordering::Relaxed);
            }
        }

        #[test]
        fn $test() {
            let mut rng = Rng::new(3);
            let n = 5000;
            let vals: Vec<$t> = (0..n).map(|_| (rng.next_u64() % 2000) as $t).collect();
            let init: [$t; 7] = [5, 7, 1000, 0, !0, 0, 0x55];
            let mut want = init;
            for &v in &vals {
                want[0] = want[0].wrapping_add(v);
                want[1] = want[1].wrapping_sub(v);
                want[2] = want[2].min(v);
                want[3] = want[3].max(v);
                want[4] &= v;
                want[5] |= v;
                want[6] ^= v;
            }
            for dev in devices(stringify!($test)) {
                let input = dev.upload(&vals).unwrap();
                let mut acc = dev.upload(&init).unwrap();
                let mut olds = dev.zeros::<$t>(n).unwrap();
                let cfg = LaunchConfig::for_num_elems(n as u32);
                $kernel::launch(&dev, cfg, &input, &mut acc, &mut olds).unwrap();
                assert_eq!(acc.download().unwrap(), want, "{:?}", dev.backend());
                // fetch_add returned distinct prefix sums: sorted, they step by the values.
                let mut o = olds.download().unwrap();
                o.sort();
                assert!(
                    o.contains(&init[0]),
                    "{:?}: first fetch_add saw the start",
                    dev.backend()
                );

                let mut cell = dev.upload(&[<$t>::MAX]).unwrap();
                $swap::launch(&dev, cfg, &input, &mut cell, &mut olds).unwrap();
                let mut seen = olds.download().unwrap();
                seen.push(cell.download().unwrap()[0]);
                let mut all = vals.clone();
                all.push(<$t>::MAX);
                seen.sort();
                all.sort();
                assert_eq!(seen, all, "{:?}: swap", dev.backend());
            }
        }
    };
}

int_atomics!(atomics_i32, swap_i32, int_atomics_i32, i32, AtomicI32);
int_atomics!(atomics_u32, swap_u32, int_atomics_u32, u32, AtomicU32);
int_atomics!(atomics_i64, swap_i64, int_atomics_i64, i64, AtomicI64);
int_atomics!(atomics_u64, swap_u64, int_atomics_u64, u64, AtomicU64);

macro_rules! float_atomics {
    ($kernel:ident, $test:ident, $t:ty, $a:ty) => {
        /// acc = [add, sub, min, max, swap-then-load]; small integers keep sums exact.
        #[gpu_kernel]
        fn $kernel(vals: &[$t], acc: &[$a]) {
            let g = grid_1d();
            if g >= vals.len() {
                return;
            }
            let v = vals[g];
            acc[0].fetch_add(v, Ordering::Relaxed);
            acc[1].fetch_sub(v, Ordering::Relaxed);
            acc[2].fetch_min(v, Ordering::Relaxed);
            acc[3].fetch_max(v, Ordering::Relaxed);
            if g == 0 {
                let seen = acc[4].load(Ordering::Acquire);
                acc[4].store(seen + 1.5, Ordering::Release);
            }
        }

        #[test]
        fn $test() {
            let mut rng = Rng::new(9);
            let n = 3000;
            let vals: Vec<$t> = (0..n)
                .map(|_| (rng.next_u64() % 512) as $t - 256.0)
                .collect();
            let init: [$t; 5] = [0.5, 0.25, 1000.0, -1000.0, 2.0];
            let mut want = init;
            for &v in &vals {
                want[0] += v;
                want[1] -= v;
                want[2] = want[2].min(v);
                want[3] = want[3].max(v);
            }
            want[4] = 3.5;
            for dev in devices(stringify!($test)) {
                let input = dev.upload(&vals).unwrap();
                let mut acc = dev.upload(&init).unwrap();
                $kernel::launch(
                    &dev,
                    LaunchConfig::for_num_elems(n as u32),
                    &input,
                    &mut acc,
                )
                .unwrap();
                assert_eq!(acc.download().unwrap(), want, "{:?}", dev.backend());
            }
        }
    };
}

float_atomics!(atomics_f32, float_atomics_f32, f32, AtomicF32);
float_atomics!(atomics_f64, float_atomics_f64, f64, AtomicF64);

/// CUDA's wrapping counters.
#[gpu_kernel]
fn counters(c: &[AtomicU32], limit: u32) {
    c[0].atomic_inc(limit);
    c[1].atomic_dec(limit);
}

#[test]
fn atomic_inc_and_dec_wrap_like_cuda() {
    let (threads, limit) = (1000u32, 37u32);
    let inc = threads % (limit + 1);
    let dec = (limit + 1 - threads % (limit + 1)) % (limit + 1);
    for dev in devices("atomic_inc_and_dec") {
        let mut c = dev.upload(&[0u32, 0]).unwrap();
        counters::launch(&dev, LaunchConfig::for_num_elems(threads), &mut c, limit).unwrap();
        let got = c.download().unwrap();
        // for_num_elems may round the grid up: count the threads it launched.
        let launched = LaunchConfig::for_num_elems(threads).grid.x
            * LaunchConfig::for_num_elems(threads).block.x;
        let inc_l = launched % (limit + 1);
        let dec_l = (limit + 1 - launched % (limit + 1)) % (limit + 1);
        assert_eq!(
            got,
            vec![inc_l, dec_l],
            "{:?} ({threads} asked: {inc}, {dec})",
            dev.backend()
        );
    }
}

/// Per-block counts in shared atomics, a barrier, then one global atomic per bin and block.
#[gpu_kernel]
fn byte_histogram(data: &[u8], bins: &[AtomicU32]) {
    let local = SharedArray::<AtomicU32, 256>::new();
    let t = thread_idx().x as usize;
    let mut b = t;
    while b < 256 {
        local[b].store(0, Ordering::Relaxed);
        b += block_dim().x as usize;
    }
    sync_threads();
    let mut i = grid_1d();
    while i < data.len() {
        local[data[i] as usize].fetch_add(1, Ordering::Relaxed);
        i += grid_stride_1d();
    }
    sync_threads();
    let mut b = t;
    while b < 256 {
        bins[b].fetch_add(local[b].load(Ordering::Relaxed), Ordering::Relaxed);
        b += block_dim().x as usize;
    }
}

#[test]
fn shared_atomics_histogram() {
    let mut rng = Rng::new(21);
    let data: Vec<u8> = (0..40_000)
        .map(|_| (rng.next_u32() % 97) as u8 * 2)
        .collect();
    let mut want = vec![0u32; 256];
    for &d in &data {
        want[d as usize] += 1;
    }
    for dev in devices("shared_atomics_histogram") {
        let input = dev.upload(&data).unwrap();
        let mut bins = dev.zeros::<u32>(256).unwrap();
        byte_histogram::launch(&dev, LaunchConfig::new(6, 128), &input, &mut bins).unwrap();
        assert_eq!(bins.download().unwrap(), want, "{:?}", dev.backend());
    }
}

/// A 2-D shared tile with a padded row, transposed through shared memory.
#[gpu_kernel]
fn transpose(input: &[u32], out: &mut [u32], n: usize) {
    let tile = SharedArray::<[u32; 17], 16>::new();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let bx = block_idx().x as usize * 16;
    let by = block_idx().y as usize * 16;
    tile[ty][tx] = input[(by + ty) * n + bx + tx];
    sync_threads();
    out[(bx + ty) * n + by + tx] = tile[tx][ty];
}

/// Dynamic shared memory sized at launch: reverse each block's slice.
#[gpu_kernel]
fn reverse_blocks(data: &mut [i64]) {
    let s = dynamic_shared::<i64>();
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let g = grid_1d();
    s[t] = data[g];
    sync_threads();
    data[g] = s[n - 1 - t];
}

#[test]
fn shared_tiles_and_dynamic_shared_memory() {
    let n = 64;
    let input: Vec<u32> = (0..(n * n) as u32)
        .map(|i| i.wrapping_mul(2654435761))
        .collect();
    for dev in devices("shared_tiles") {
        let d = dev.upload(&input).unwrap();
        let mut out = dev.upload(&vec![0u32; n * n]).unwrap();
        transpose::launch(&dev, LaunchConfig::new((4, 4), (16, 16)), &d, &mut out, n).unwrap();
        let got = out.download().unwrap();
        for y in 0..n {
            for x in 0..n {
                assert_eq!(
                    got[x * n + y],
                    input[y * n + x],
                    "{:?} ({x}, {y})",
                    dev.backend()
                );
            }
        }

        let vals: Vec<i64> = (0..512).map(|i| i * 1_000_000_007).collect();
        let mut d = dev.upload(&vals).unwrap();
        let cfg = LaunchConfig::new(4, 128).with_shared_mem(128 * 8);
        reverse_blocks::launch(&dev, cfg, &mut d).unwrap();
        let got = d.download().unwrap();
        for (g, v) in got.iter().enumerate() {
            let (b, t) = (g / 128, g % 128);
            assert_eq!(
                *v,
                vals[b * 128 + 127 - t],
                "{:?} element {g}",
                dev.backend()
            );
        }
    }
}
