//! `busy`, a kernel slow enough on a GPU that work queued behind it shows whether it
//! waited (tests/streams.rs, and the peer copies of tests/multi_collectives.rs), with its
//! CPU reference and a one-dimensional launch configuration.

#![allow(dead_code)] // each test that includes this file uses a part of it

use warpspeed::prelude::*;
use warpspeed::Backend;

/// `out[i]` becomes `i + seed` after `iters` steps of a linear congruential generator: a
/// chain of dependent multiplications that keeps a GPU busy (and that a compiler cannot
/// fold: the CPU reference, `busy_expected`, composes the steps into one affine map).
#[gpu_kernel]
pub fn busy(out: &mut [u32], seed: u32, iters: u32) {
    let i = grid_1d();
    if i < out.len() {
        let mut x = (i as u32).wrapping_add(seed);
        let mut k = 0u32;
        while k < iters {
            x = x.wrapping_mul(1664525).wrapping_add(1013904223);
            k += 1;
        }
        out[i] = x;
    }
}

/// One thread an element, in blocks of 128.
pub fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::new((n as u32).div_ceil(128).max(1), 128)
}

/// Iterations of `busy` that keep a GPU busy for a while (milliseconds on an H100); few on
/// the simulator, where every operation finishes when it is queued anyway.
pub fn busy_iters(dev: &Device) -> u32 {
    match dev.backend() {
        Backend::Cuda => 1 << 16,
        Backend::Simulator => 4,
    }
}

/// What `busy` writes: the `iters` steps composed into `x -> a * x + c` (mod 2^32).
pub fn busy_expected(n: usize, seed: u32, iters: u32) -> Vec<u32> {
    let (mut a, mut c) = (1u32, 0u32);
    for _ in 0..iters {
        a = a.wrapping_mul(1664525);
        c = c.wrapping_mul(1664525).wrapping_add(1013904223);
    }
    (0..n as u32)
        .map(|i| a.wrapping_mul(i.wrapping_add(seed)).wrapping_add(c))
        .collect()
}
