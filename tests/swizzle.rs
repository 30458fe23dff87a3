//! Swizzled shared tiles in kernels (issue 21, item 2; docs/tensor-cores.md, "Swizzled
//! tiles"): `swizzle_128b` / `swizzle_64b` / `swizzle_32b` compute on both backends what the
//! host's `warpspeed::swizzle::swizzle_index` computes, and a GEMM whose `cp_async` writes and
//! `ldmatrix` reads both go through `swizzle_128b` multiplies exactly, as its unswizzled twin
//! does. (That the swizzled reads have no bank conflicts is ncu's to show:
//! docs/tensor-cores.md has its figures.) Outputs are poisoned before each run.

use warpspeed::prelude::*;
use warpspeed::swizzle::{swizzle_index, Swizzle};
use warpspeed::{bf16, LaunchConfig};

mod common;
use common::{devices, Rng};

/// Thread `i` writes each swizzle of its index, for 2- and 4-byte elements.
#[gpu_kernel]
fn swizzled_indices(#[len(6 * n)] out: &mut [u64], n: usize) {
    let i = grid_1d();
    if i >= n {
        return;
    }
    out[6 * i] = swizzle_128b(i, 2) as u64;
    out[6 * i + 1] = swizzle_128b(i, 4) as u64;
    out[6 * i + 2] = swizzle_64b(i, 2) as u64;
    out[6 * i + 3] = swizzle_64b(i, 4) as u64;
    out[6 * i + 4] = swizzle_32b(i, 2) as u64;
    out[6 * i + 5] = swizzle_32b(i, 16) as u64;
}

/// The identity, in `swizzle_128b`'s place: the unswizzled twin's tiles.
#[gpu_device]
fn unswizzled(i: usize, _size: usize) -> usize {
    i
}

/// `gemm_tiles!(name, index)`: C (n x n, f32) = A * B (bf16, row major, n a multiple of 64)
/// through shared tiles of 128-byte rows, every write and read of them at `index(i, 2)`.
/// A block computes a 32 x 64 tile of C (each warp 16 x 32: four m16n8k16 accumulators),
/// K in slabs of 64: A's 32 x 64 and B's 64 x 64, copied by 16-byte `cp_async`s, read by
/// `ldmatrix` (A) and `ldmatrix_trans` (B).
macro_rules! gemm_tiles {
    ($name:ident, $index:ident) => {
        #[gpu_kernel(block = (128, 1, 1))]
        fn $name(
            #[len(n * n)] a: &[bf16],
            #[len(n * n)] b: &[bf16],
            #[len(n * n)] c: &mut [f32],
            n: usize,
        ) {
            let mut ta = SharedArray::<bf16, 2048>::new();
            let mut tb = SharedArray::<bf16, 4096>::new();
            let t = thread_idx().x as usize;
            let (warp, lane) = (t / 32, t % 32);
            let row0 = block_idx().y as usize * 32;
            let col0 = block_idx().x as usize * 64;
            if row0 + 32 > n || col0 + 64 > n {
                return;
            }
            let (wr, wc) = ((warp / 2) * 16, (warp % 2) * 32);
            let mut acc0 = FragmentAcc::<f32, M16N8K16>::zeroed();
            let mut acc1 = FragmentAcc::<f32, M16N8K16>::zeroed();
            let mut acc2 = FragmentAcc::<f32, M16N8K16>::zeroed();
            let mut acc3 = FragmentAcc::<f32, M16N8K16>::zeroed();
            for slab in 0..n / 64 {
                let k0 = slab * 64;
                // A: 32 rows of 8 chunks of 8 elements, two chunks a thread; B: 64 rows, four.
                for e in 0..2 {
                    let (r, ch) = ((t + 128 * e) / 8, (t + 128 * e) % 8);
                    let at = $index(r * 64 + ch * 8, 2);
                    let src = (row0 + r) * n + k0 + ch * 8;
                    cp_async(&mut ta[at..at + 8], &a[src..src + 8]);
                }
                for e in 0..4 {
                    let (r, ch) = ((t + 128 * e) / 8, (t + 128 * e) % 8);
                    let at = $index(r * 64 + ch * 8, 2);
                    let src = (k0 + r) * n + col0 + ch * 8;
                    cp_async(&mut tb[at..at + 8], &b[src..src + 8]);
                }
                cp_async_commit();
                cp_async_wait(0);
                sync_threads();
                for kk in 0..4 {
                    let mut fa = FragmentA::<bf16, M16N8K16>::zeroed();
                    fa.ldmatrix(
                        &ta,
                        $index((wr + lane % 16) * 64 + kk * 16 + (lane / 16) * 8, 2),
                    );
                    let brow = (kk * 16 + lane % 16) * 64 + wc;
                    let mut fb = FragmentB::<bf16, M16N8K16>::zeroed();
                    fb.ldmatrix_trans(&tb, $index(brow, 2));
                    acc0.mma_sync(fa, fb);
                    fb.ldmatrix_trans(&tb, $index(brow + 8, 2));
                    acc1.mma_sync(fa, fb);
                    fb.ldmatrix_trans(&tb, $index(brow + 16, 2));
                    acc2.mma_sync(fa, fb);
                    fb.ldmatrix_trans(&tb, $index(brow + 24, 2));
                    acc3.mma_sync(fa, fb);
                }
                sync_threads();
            }
            // Accumulator element i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
            for i in 0..4 {
                let r = row0 + wr + lane / 4 + 8 * (i / 2);
                let col = col0 + wc + 2 * (lane % 4) + i % 2;
                c[r * n + col] = acc0.x[i];
                c[r * n + col + 8] = acc1.x[i];
                c[r * n + col + 16] = acc2.x[i];
                c[r * n + col + 24] = acc3.x[i];
            }
        }
    };
}

gemm_tiles!(gemm_swizzled, swizzle_128b);
gemm_tiles!(gemm_unswizzled, unswizzled);

#[test]
fn kernel_swizzles_are_the_hosts() {
    let n = 4096;
    let want: Vec<u64> = (0..n)
        .flat_map(|i| {
            [
                (Swizzle::B128, 2),
                (Swizzle::B128, 4),
                (Swizzle::B64, 2),
                (Swizzle::B64, 4),
                (Swizzle::B32, 2),
                (Swizzle::B32, 16),
            ]
            .map(|(m, s)| swizzle_index(m, i, s) as u64)
        })
        .collect();
    // Spot values: bf16 element 64 (row 1, chunk 0) moves to chunk 1, element 8 of row 0
    // stays; f32 row 1 (element 32) moves by a chunk of 4.
    assert_eq!(want[6 * 64], 72);
    assert_eq!(want[6 * 8], 8);
    assert_eq!(want[6 * 32 + 1], 36);
    for dev in devices("kernel_swizzles_are_the_hosts") {
        let mut out = dev.upload(&vec![u64::MAX; 6 * n]).unwrap();
        swizzled_indices::launch(&dev, LaunchConfig::new(16, 256), &mut out, n).unwrap();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[test]
fn gemm_through_swizzled_tiles_is_exact() {
    let n = 128;
    let mut rng = Rng::new(21);
    let mut small = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u64() % 7) as f32 - 3.0)
            .collect()
    };
    let (a, b) = (small(n * n), small(n * n));
    let mut want = vec![0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    let to_bf16 = |v: &[f32]| v.iter().map(|&x| bf16::from_f32(x)).collect::<Vec<_>>();
    for dev in devices("gemm_through_swizzled_tiles_is_exact") {
        let (da, db) = (
            dev.upload(&to_bf16(&a)).unwrap(),
            dev.upload(&to_bf16(&b)).unwrap(),
        );
        let cfg = LaunchConfig::new(((n / 64) as u32, (n / 32) as u32), 128);
        let mut c = dev.upload(&vec![f32::NAN; n * n]).unwrap();
        gemm_swizzled::launch(&dev, cfg, &da, &db, &mut c, n).unwrap();
        assert_eq!(c.download().unwrap(), want, "swizzled {:?}", dev.backend());
        let mut c = dev.upload(&vec![f32::NAN; n * n]).unwrap();
        gemm_unswizzled::launch(&dev, cfg, &da, &db, &mut c, n).unwrap();
        assert_eq!(
            c.download().unwrap(),
            want,
            "unswizzled {:?}",
            dev.backend()
        );
    }
}

/// The size must be a literal a swizzle keeps whole; the prover bounds the result by the
/// index's row (`tile[swizzle_128b(t, 4)]` of 256 `u32`s keeps no check).
#[test]
fn a_whole_tile_keeps_no_check() {
    let c = &*swizzle_in_bounds::CUDA_SOURCE;
    let body = c.split("// ---- end of the prelude").nth(1).unwrap();
    assert!(!body.contains("ws_at_shared("), "{body}");
    // The swizzle is an involution: the element at `j` is `swizzle(j)`.
    let want: Vec<u32> = (0..256)
        .map(|j| swizzle_index(Swizzle::B128, j, 4) as u32)
        .collect();
    for dev in devices("a_whole_tile_keeps_no_check") {
        let mut out = dev.upload(&vec![u32::MAX; 256]).unwrap();
        swizzle_in_bounds::launch(&dev, LaunchConfig::new(1, 256), &mut out).unwrap();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[gpu_kernel(block = (256, 1, 1))]
fn swizzle_in_bounds(#[len(256)] out: &mut [u32]) {
    let mut tile = SharedArray::<u32, 256>::new();
    let t = thread_idx().x as usize;
    tile[swizzle_128b(t, 4)] = t as u32;
    sync_threads();
    out[t] = tile[t];
}
