//! Cooperative groups, compare-exchange and grid-wide sync, on the simulator and (where
//! there is one) the GPU, against CPU models: thread-block and tile ranks, tile shuffles,
//! votes and ballots for every tile size, CAS loops on integers and floats, and a
//! cooperative launch whose blocks read each other's writes after `this_grid().sync()`.

mod common;

use common::{devices, Rng};
use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;
use warpspeed::{AtomicF32, LaunchConfig};

macro_rules! tile_kernel {
    ($name:ident, $n:literal) => {
        /// Per thread: [tile sum (shfl_down tree + shfl from rank 0), tile rank, block rank,
        /// meta group rank, ballot, any, all, shfl_up, shfl_xor].
        #[gpu_kernel]
        fn $name(vals: &[i32], out: &mut [i32]) {
            let block = this_thread_block();
            let tile = tiled_partition::<$n>(block);
            let g = grid_1d();
            let x = vals[g];
            let mut v = x;
            let mut d = tile.size() / 2;
            while d > 0 {
                v += tile.shfl_down(v, d);
                d /= 2;
            }
            let o = 9 * g;
            out[o] = tile.shfl(v, 0);
            out[o + 1] = tile.thread_rank() as i32;
            out[o + 2] = block.thread_rank() as i32;
            out[o + 3] = tile.meta_group_rank() as i32;
            out[o + 4] = tile.ballot(x > 0) as i32;
            out[o + 5] = tile.any(x > 990) as i32;
            out[o + 6] = tile.all(x > -990) as i32;
            out[o + 7] = tile.shfl_up(x, 1);
            out[o + 8] = tile.shfl_xor(x, 1);
            tile.sync();
            block.sync();
        }
    };
}

tile_kernel!(tile2, 2);
tile_kernel!(tile4, 4);
tile_kernel!(tile8, 8);
tile_kernel!(tile16, 16);
tile_kernel!(tile32, 32);

fn tile_model(vals: &[i32], block: usize, n: usize) -> Vec<i32> {
    let mut out = vec![0; 9 * vals.len()];
    for (g, &x) in vals.iter().enumerate() {
        let t = g % block;
        let rank = t % n;
        let start = g - rank;
        let tile = &vals[start..start + n];
        let o = 9 * g;
        out[o] = tile.iter().fold(0i32, |a, &b| a.wrapping_add(b));
        out[o + 1] = rank as i32;
        out[o + 2] = t as i32;
        out[o + 3] = (t / n) as i32;
        out[o + 4] = tile
            .iter()
            .enumerate()
            .filter(|(_, &v)| v > 0)
            .fold(0u32, |m, (i, _)| m | 1 << i) as i32;
        out[o + 5] = tile.iter().any(|&v| v > 990) as i32;
        out[o + 6] = tile.iter().all(|&v| v > -990) as i32;
        out[o + 7] = if rank >= 1 { vals[g - 1] } else { x };
        out[o + 8] = vals[start + (rank ^ 1)];
    }
    out
}

#[test]
fn tiles_of_every_size() {
    let block = 64usize;
    let mut rng = Rng::new(17);
    let vals: Vec<i32> = (0..4 * block)
        .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
        .collect();
    type Launch = fn(
        &warpspeed::Device,
        LaunchConfig,
        &warpspeed::DeviceBuffer<i32>,
        &mut warpspeed::DeviceBuffer<i32>,
    ) -> Result<(), warpspeed::Error>;
    let kernels: [(usize, Launch); 5] = [
        (2, tile2::launch),
        (4, tile4::launch),
        (8, tile8::launch),
        (16, tile16::launch),
        (32, tile32::launch),
    ];
    for dev in devices("tiles_of_every_size") {
        for (n, launch) in kernels {
            let input = dev.upload(&vals).unwrap();
            let mut out = dev.upload(&vec![i32::MIN; 9 * vals.len()]).unwrap();
            launch(&dev, LaunchConfig::new(4, block as u32), &input, &mut out).unwrap();
            let got = out.download().unwrap();
            let want = tile_model(&vals, block, n);
            for g in 0..vals.len() {
                assert_eq!(
                    got[9 * g..9 * g + 9],
                    want[9 * g..9 * g + 9],
                    "{:?}: tiles of {n}, thread {g}",
                    dev.backend()
                );
            }
        }
    }
}

/// A lock-free maximum: compare-exchange until the cell holds at least our value.
#[gpu_kernel]
fn cas_max(vals: &[u32], cell: &[AtomicU32], wins: &[AtomicU32]) {
    let g = grid_1d();
    if g >= vals.len() {
        return;
    }
    let v = vals[g];
    let mut old = cell[0].load(Ordering::Relaxed);
    while old < v {
        let seen = cell[0]
            .compare_exchange(old, v, Ordering::AcqRel, Ordering::Relaxed)
            .unwrap_or_else(|x| x);
        if seen == old {
            wins[0].fetch_add(1, Ordering::Relaxed);
        }
        old = seen;
    }
}

/// A float sum through a compare-exchange loop (`is_ok` compares bits).
#[gpu_kernel]
fn cas_add(vals: &[f32], cell: &[AtomicF32]) {
    let g = grid_1d();
    if g >= vals.len() {
        return;
    }
    loop {
        let old = cell[0].load(Ordering::Relaxed);
        if cell[0]
            .compare_exchange_weak(old, old + vals[g], Ordering::SeqCst, Ordering::Relaxed)
            .is_ok()
        {
            break;
        }
    }
}

#[test]
fn compare_exchange_loops() {
    let mut rng = Rng::new(23);
    let n = 3000;
    let vals: Vec<u32> = (0..n).map(|_| rng.next_u32() % 1_000_000).collect();
    let floats: Vec<f32> = (0..n)
        .map(|_| (rng.next_u32() % 200) as f32 - 100.0)
        .collect();
    let cfg = LaunchConfig::for_num_elems(n as u32);
    for dev in devices("compare_exchange_loops") {
        let input = dev.upload(&vals).unwrap();
        let mut cell = dev.upload(&[0u32]).unwrap();
        let mut wins = dev.upload(&[0u32]).unwrap();
        cas_max::launch(&dev, cfg, &input, &mut cell, &mut wins).unwrap();
        assert_eq!(
            cell.download().unwrap()[0],
            *vals.iter().max().unwrap(),
            "{:?}",
            dev.backend()
        );
        let w = wins.download().unwrap()[0];
        assert!(
            w >= 1 && w as usize <= n,
            "{:?}: {w} successful exchanges",
            dev.backend()
        );

        let input = dev.upload(&floats).unwrap();
        let mut cell = dev.upload(&[0.5f32]).unwrap();
        cas_add::launch(&dev, cfg, &input, &mut cell).unwrap();
        let want = floats.iter().fold(0.5f32, |a, &b| a + b);
        assert_eq!(cell.download().unwrap()[0], want, "{:?}", dev.backend());
    }
}

/// Every block writes its part, the whole grid waits, then each thread reads an element
/// another block wrote; twice, to show the barrier can be passed again.
#[gpu_kernel]
fn grid_rotate(data: &mut [u32], out: &mut [u32], shift: usize) {
    let g = grid_1d();
    let n = data.len();
    data[g] = (g as u32).wrapping_mul(2654435761);
    this_grid().sync();
    let first = data[(g + shift) % n];
    this_grid().sync();
    data[g] = first ^ 0x5555;
    this_grid().sync();
    out[g] = data[(g + shift) % n];
}

#[test]
fn grid_sync_under_a_cooperative_launch() {
    let (blocks, threads) = (8u32, 128u32);
    let n = (blocks * threads) as usize;
    let shift = 300;
    let base: Vec<u32> = (0..n as u32).map(|g| g.wrapping_mul(2654435761)).collect();
    let want: Vec<u32> = (0..n).map(|g| base[(g + 2 * shift) % n] ^ 0x5555).collect();
    for dev in devices("grid_sync") {
        for _ in 0..3 {
            let mut data = dev.zeros::<u32>(n).unwrap();
            let mut out = dev.upload(&vec![0u32; n]).unwrap();
            grid_rotate::launch_cooperative(
                &dev,
                LaunchConfig::new(blocks, threads),
                &mut data,
                &mut out,
                shift,
            )
            .unwrap();
            assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
        }
        // A plain launch cannot keep every block resident: refused before it runs.
        let mut data = dev.zeros::<u32>(n).unwrap();
        let mut out = dev.zeros::<u32>(n).unwrap();
        let err = grid_rotate::launch(
            &dev,
            LaunchConfig::new(blocks, threads),
            &mut data,
            &mut out,
            shift,
        )
        .unwrap_err();
        assert!(err.to_string().contains("launch_cooperative"), "{err}");
    }
}
