//! `warpspeed::kernel`, the kernel language's vocabulary as documented Rust items: kernels
//! may name it by path (`warpspeed::kernel::thread_idx()`, `kernel::sync_threads()`) as
//! well as bare through the prelude, and the items say plainly that they are kernel code
//! when host code calls them. (That each item's signature is its intrinsic's row is the
//! macro crate's test `kernel_module_matches_the_table`.)

use warpspeed::kernel;
use warpspeed::prelude::*;

mod common;
use common::{devices, Rng};

/// A block sum through shared memory and a warp shuffle, every intrinsic named by a
/// different path.
#[gpu_kernel]
fn block_sums(x: &[u32], out: &mut [u32]) {
    let tile = kernel::SharedArray::<u32, 256>::new();
    let t = warpspeed::kernel::thread_idx().x as usize;
    let i = kernel::grid_1d();
    tile[t] = if i < x.len() { x[i] } else { 0 };
    kernel::sync_threads();
    let mut s = 128;
    while s >= 32 {
        if t < s {
            tile[t] = tile[t].wrapping_add(tile[t + s]);
        }
        warpspeed::kernel::sync_threads();
        s /= 2;
    }
    if t < 32 {
        let mut v = tile[t];
        let mut d = 16;
        while d > 0 {
            v = v.wrapping_add(warpspeed::prelude::shfl_down_sync(0xffff_ffff, v, d));
            d /= 2;
        }
        if t == 0 {
            out[block_idx().x as usize] = v;
        }
    }
}

#[test]
fn kernels_name_the_vocabulary_by_path() {
    let mut rng = Rng::new(41);
    let n: usize = 256 * 37 + 101;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let blocks = n.div_ceil(256);
    let want: Vec<u32> = x
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
        .collect();
    for dev in devices("kernels_name_the_vocabulary_by_path") {
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![0xdead_beefu32; blocks]).unwrap();
        let cfg = LaunchConfig::new(blocks as u32, 256);
        block_sums::launch(&dev, cfg, &dx, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[test]
#[should_panic(expected = "`thread_idx` is kernel code")]
fn host_code_calling_the_vocabulary_is_told_why() {
    let _ = kernel::thread_idx();
}

#[test]
#[should_panic(expected = "`shfl_down_sync` is kernel code")]
fn host_code_calling_a_warp_function_is_told_why() {
    let _ = kernel::shfl_down_sync(0xffff_ffff, 1.0f32, 1);
}

#[test]
fn nvrtc_compiles_every_kernel() {
    common::nvrtc_compiles(&[("block_sums", &block_sums::KERNEL)]);
}
