//! Shared arrays and slices handed around inside a kernel (docs/language.md, "Borrowing
//! memory"): a bitonic sort whose stage is a device function taking `&mut SharedArray<u32,
//! N>`, a tile transpose through `&mut SharedArray<[f32; 17], 16>`, row-wise sums of
//! sub-slices `&x[r * w..(r + 1) * w]` passed to a device function taking `&[f32]`, and
//! writes through `&mut out[a..]`, `&mut out[..b]`. Random data against a CPU reference,
//! outputs poisoned, on the simulator and the GPU where there is one; NVRTC compiles each
//! kernel.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, nvrtc_compiles, Rng};

const N: usize = 256;

/// One compare-exchange step of a bitonic sort over the block's tile: thread `t` orders the
/// pair `(t, t ^ j)` of the run of `k`.
#[gpu_device]
fn bitonic_step(tile: &mut SharedArray<u32, 256>, t: usize, j: usize, k: usize) {
    let p = t ^ j;
    if p > t {
        let (a, b) = (tile[t], tile[p]);
        let up = (t & k) == 0;
        if (a > b) == up {
            tile[t] = b;
            tile[p] = a;
        }
    }
}

/// Reads the tile through a shared reference; its length is the module's constant `N`
/// (which syn reads as a type: it must not be taken for a `#[gpu_struct]`).
#[gpu_device]
fn tile_sum(tile: &SharedArray<u32, N>) -> u32 {
    let mut s = 0u32;
    for i in 0..tile.len() {
        s = s.wrapping_add(tile[i]);
    }
    s
}

/// Sorts each block's 256 elements; `sums[b]` is the block's wrapping sum.
#[gpu_kernel(block = (256, 1, 1))]
fn bitonic(data: &mut [u32], sums: &mut [u32]) {
    let tile = SharedArray::<u32, 256>::new();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * N;
    tile[t] = data[base + t];
    sync_threads();
    let mut k = 2;
    while k <= N {
        let mut j = k / 2;
        while j > 0 {
            bitonic_step(&mut tile, t, j, k);
            sync_threads();
            j /= 2;
        }
        k *= 2;
    }
    data[base + t] = tile[t];
    if t == 0 {
        sums[block_idx().x as usize] = tile_sum(&tile);
    }
}

#[test]
fn bitonic_stage_through_a_shared_array_reference() {
    nvrtc_compiles(&[("bitonic", &bitonic::KERNEL)]);
    let mut rng = Rng::new(71);
    let blocks = 6;
    let x: Vec<u32> = (0..blocks * N).map(|_| rng.next_u32()).collect();
    for dev in devices("bitonic_stage_through_a_shared_array_reference") {
        let mut d = dev.upload(&x).unwrap();
        let mut sums = dev.upload(&vec![0xdead_beefu32; blocks]).unwrap();
        bitonic::launch(
            &dev,
            LaunchConfig::new(blocks as u32, N as u32),
            &mut d,
            &mut sums,
        )
        .unwrap();
        let (got, sums) = (d.download().unwrap(), sums.download().unwrap());
        for b in 0..blocks {
            let mut want = x[b * N..(b + 1) * N].to_vec();
            let sum = want.iter().fold(0u32, |s, v| s.wrapping_add(*v));
            want.sort_unstable();
            assert_eq!(
                &got[b * N..(b + 1) * N],
                &want[..],
                "{:?}: block {b}",
                dev.backend()
            );
            assert_eq!(sums[b], sum, "{:?}: block {b}", dev.backend());
        }
    }
}

/// Writes `tile[c][r]` from `src` (a 16 x 16 block at row `r`): the transpose, in a device
/// function taking the 2-D tile.
#[gpu_device]
fn load_transposed(tile: &mut SharedArray<[f32; 17], 16>, src: &[f32], r: usize, c: usize) {
    tile[c][r] = src[r * 16 + c];
}

#[gpu_kernel(block = (16, 16, 1))]
fn transpose16(src: &[f32], dst: &mut [f32]) {
    let tile = SharedArray::<[f32; 17], 16>::new();
    let (c, r) = (thread_idx().x as usize, thread_idx().y as usize);
    let blk = block_idx().x as usize * 256;
    load_transposed(&mut tile, &src[blk..blk + 256], r, c);
    sync_threads();
    let row = &tile[r][..16];
    dst[blk + r * 16 + c] = row[c];
}

#[test]
fn tile_transpose_through_a_2d_shared_reference() {
    nvrtc_compiles(&[("transpose16", &transpose16::KERNEL)]);
    let mut rng = Rng::new(5);
    let blocks = 3;
    let x: Vec<f32> = (0..blocks * 256)
        .map(|_| rng.range_f32(-9.0, 9.0))
        .collect();
    for dev in devices("tile_transpose_through_a_2d_shared_reference") {
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; blocks * 256]).unwrap();
        transpose16::launch(
            &dev,
            LaunchConfig::new(blocks as u32, (16, 16)),
            &dx,
            &mut out,
        )
        .unwrap();
        let out = out.download().unwrap();
        for b in 0..blocks {
            for r in 0..16 {
                for c in 0..16 {
                    assert_eq!(
                        out[b * 256 + r * 16 + c].to_bits(),
                        x[b * 256 + c * 16 + r].to_bits(),
                        "{:?}: block {b} ({r}, {c})",
                        dev.backend()
                    );
                }
            }
        }
    }
}

/// The sum of a row, in order.
#[gpu_device]
fn row_sum(row: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for i in 0..row.len() {
        s += row[i];
    }
    s
}

/// Scales a row in place.
#[gpu_device]
fn scale(row: &mut [f32], by: f32) {
    for i in 0..row.len() {
        row[i] *= by;
    }
}

/// Thread `r` sums row `r` of `x` (rows of `w`), writes it to `sums[r]`, copies the row
/// scaled by the sum's sign into `y`'s row, and marks the row's first and last elements of
/// `ends` through `&mut ends[..]` sub-slices from either side.
#[gpu_kernel]
fn rows(x: &[f32], w: usize, sums: &mut [f32], y: &mut [f32], ends: &mut [u32]) {
    let r = grid_1d();
    if r < sums.len() {
        let row = &x[r * w..(r + 1) * w];
        let s = row_sum(row);
        sums[r] = s;
        let out = &mut y[r * w..(r + 1) * w];
        for i in 0..out.len() {
            out[i] = row[i];
        }
        scale(&mut y[r * w..][..w], if s < 0.0 { -1.0 } else { 1.0 });
        let tail = &mut ends[r * 2..];
        tail[0] = row.len() as u32;
        let head = &mut ends[..(r + 1) * 2];
        head[head.len() - 1] = (r * w) as u32;
    }
}

#[test]
fn row_wise_sub_slices() {
    nvrtc_compiles(&[("rows", &rows::KERNEL)]);
    let mut rng = Rng::new(9);
    let (n, w) = (300, 37);
    let x: Vec<f32> = (0..n * w).map(|_| rng.range_f32(-4.0, 3.0)).collect();
    for dev in devices("row_wise_sub_slices") {
        let dx = dev.upload(&x).unwrap();
        let mut sums = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut y = dev.upload(&vec![f32::NAN; n * w]).unwrap();
        let mut ends = dev.upload(&vec![0xdead_beefu32; n * 2]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        rows::launch(&dev, cfg, &dx, w, &mut sums, &mut y, &mut ends).unwrap();
        let (sums, y, ends) = (
            sums.download().unwrap(),
            y.download().unwrap(),
            ends.download().unwrap(),
        );
        for r in 0..n {
            let row = &x[r * w..(r + 1) * w];
            let s = row.iter().fold(0.0f32, |a, v| a + v);
            assert_eq!(
                sums[r].to_bits(),
                s.to_bits(),
                "{:?}: row {r}",
                dev.backend()
            );
            let sign = if s < 0.0 { -1.0f32 } else { 1.0 };
            for i in 0..w {
                assert_eq!(y[r * w + i].to_bits(), (row[i] * sign).to_bits());
            }
            assert_eq!(ends[r * 2], w as u32, "{:?}: row {r}", dev.backend());
            assert_eq!(
                ends[r * 2 + 1],
                (r * w) as u32,
                "{:?}: row {r}",
                dev.backend()
            );
        }
    }
}

/// A tree reduction of the first `B` elements of a tile, in a const-generic device
/// function: the block's sum lands in `tile[0]`.
#[gpu_device]
fn tree_sum<const B: usize>(tile: &mut SharedArray<u32, B>, t: usize) {
    let mut s = B / 2;
    while s > 0 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]);
        }
        sync_threads();
        s /= 2;
    }
}

/// Sums each block's `B` elements; and, generic over the element type, halves the upper
/// half of each block's part of `y` through a sub-slice.
#[gpu_kernel]
fn reduce_and_halve<const B: usize, T: Float>(x: &[u32], sums: &mut [u32], y: &mut [T]) {
    let tile = SharedArray::<u32, B>::new();
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * B;
    tile[t] = x[base + t];
    sync_threads();
    tree_sum::<B>(&mut tile, t);
    if t == 0 {
        sums[block_idx().x as usize] = tile[0];
    }
    let upper = &mut y[base + B / 2..base + B];
    if t < upper.len() {
        upper[t] = upper[t] * T::from_f32(0.5);
    }
}

#[test]
fn const_generic_shared_reference_and_generic_sub_slice() {
    let mut rng = Rng::new(13);
    let (blocks, b) = (5, 128);
    let x: Vec<u32> = (0..blocks * b).map(|_| rng.next_u32()).collect();
    let y: Vec<f64> = (0..blocks * b)
        .map(|_| rng.range_f32(-8.0, 8.0) as f64)
        .collect();
    for dev in devices("const_generic_shared_reference_and_generic_sub_slice") {
        let dx = dev.upload(&x).unwrap();
        let mut sums = dev.upload(&vec![0xdead_beefu32; blocks]).unwrap();
        let mut dy = dev.upload(&y).unwrap();
        let cfg = LaunchConfig::new(blocks as u32, b as u32);
        reduce_and_halve::launch::<128, f64>(&dev, cfg, &dx, &mut sums, &mut dy).unwrap();
        let (sums, got) = (sums.download().unwrap(), dy.download().unwrap());
        for blk in 0..blocks {
            let want = x[blk * b..(blk + 1) * b]
                .iter()
                .fold(0u32, |s, v| s.wrapping_add(*v));
            assert_eq!(sums[blk], want, "{:?}: block {blk}", dev.backend());
            for i in 0..b {
                let k = blk * b + i;
                let want = if i >= b / 2 { y[k] * 0.5 } else { y[k] };
                assert_eq!(got[k].to_bits(), want.to_bits(), "{:?}: {k}", dev.backend());
            }
        }
    }
    nvrtc_compiles(&[(
        "reduce_and_halve::<128, f64>",
        reduce_and_halve::kernel::<128, f64>(),
    )]);
}

/// `dst[i] += src[i]` over the shorter of the two.
#[gpu_device]
fn add_into(dst: &mut [f32], src: &[f32]) {
    let n = dst.len().min(src.len());
    for i in 0..n {
        dst[i] += src[i];
    }
}

/// Each thread folds its row of `x` (rows of `w`) in halves: the upper half is added
/// into the lower through the two disjoint halves of one `split_at_mut`; `first[r]` is
/// the row's element 0 read through `split_at`.
#[gpu_kernel]
fn fold_rows(x: &mut [f32], w: usize, first: &mut [f32]) {
    let r = grid_1d();
    if r < first.len() {
        let row = &mut x[r * w..(r + 1) * w];
        let (lo, hi) = row.split_at_mut(w / 2);
        add_into(lo, hi);
        let (head, _) = x.split_at(r * w + 1);
        first[r] = head[r * w];
    }
}

#[test]
fn split_at_mut_halves_go_to_one_call() {
    nvrtc_compiles(&[("fold_rows", &fold_rows::KERNEL)]);
    let mut rng = Rng::new(3);
    let (n, w) = (200, 10);
    let x: Vec<f32> = (0..n * w).map(|_| rng.range_f32(-5.0, 5.0)).collect();
    for dev in devices("split_at_mut_halves_go_to_one_call") {
        let mut dx = dev.upload(&x).unwrap();
        let mut first = dev.upload(&vec![f32::NAN; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        fold_rows::launch(&dev, cfg, &mut dx, w, &mut first).unwrap();
        let (got, first) = (dx.download().unwrap(), first.download().unwrap());
        for r in 0..n {
            for i in 0..w {
                let k = r * w + i;
                let want = if i < w / 2 { x[k] + x[k + w / 2] } else { x[k] };
                assert_eq!(got[k].to_bits(), want.to_bits(), "{:?}: {k}", dev.backend());
            }
            assert_eq!(first[r].to_bits(), (x[r * w] + x[r * w + w / 2]).to_bits());
        }
    }
}

/// Sums `x[a..b]` through a bound sub-slice, measured by its own length.
#[gpu_kernel]
fn window_sum(x: &[u32], a: usize, b: usize, out: &mut [u32]) {
    if grid_1d() == 0 {
        let win = &x[a..b];
        let mut s = 0u32;
        for i in 0..win.len() {
            s = s.wrapping_add(win[i]);
        }
        out[0] = s;
    }
}

#[test]
fn the_prover_sees_a_sub_slice_length() {
    // `win[i]` under `i < win.len()` and `row[i]` in `row_sum` need no check in C.
    let c = window_sum::CUDA_SOURCE.as_str();
    assert!(c.contains("ws_range_ok("), "{c}");
    assert!(!c.contains("ws_ld(win,"), "{c}");
    assert!(rows::CUDA_SOURCE.as_str().contains("s = (s + row[i]);"));
    let x: Vec<u32> = (0..50).map(|i| i * i).collect();
    for dev in devices("the_prover_sees_a_sub_slice_length") {
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&[u32::MAX]).unwrap();
        window_sum::launch(&dev, LaunchConfig::new(1, 32), &dx, 7, 31, &mut out).unwrap();
        let want = x[7..31].iter().sum::<u32>();
        assert_eq!(out.download().unwrap(), [want], "{:?}", dev.backend());
    }
}
