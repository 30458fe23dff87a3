//! Seed 002's Monte Carlo π kernel (Numba's `compute_pi` with
//! `xoroshiro128p_uniform_float32`), shared by the `monte_carlo_pi` and `bench` examples
//! (each includes this file with `#[path = "kernels/monte_carlo_pi.rs"] mod
//! monte_carlo_pi_kernels;`), and a fill of a buffer by per-thread generators (the
//! bench's): [`checked`] (the default, also re-exported here) and
//! [`unchecked`] (`#[gpu_kernel(unchecked)]` with the library's unchecked device
//! functions).

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use warpspeed::algorithms::xoroshiro::Xoroshiro128p;
use warpspeed::prelude::*;

/// The kernel with the kernel options `$opt` and the device functions of module `$rng`.
macro_rules! monte_carlo_pi_kernels {
    ($rng:path; $($opt:tt)*) => {
        use $rng as rng;

        /// Thread `t` draws `iterations` points `(x, y)` uniform in the unit square from
        /// its own generator `rng_states[t]` and writes `4 * inside / iterations`, the
        /// share of points in the quarter circle, times 4 (computed in `f64` and stored
        /// as `f32`, as Numba's `4.0 * inside / iterations` into a float32 array is).
        /// The seed's grid fits the states exactly; the guard covers any other.
        #[gpu_kernel($($opt)*)]
        pub fn compute_pi(rng_states: &mut [Xoroshiro128p], iterations: u32, out: &mut [f32]) {
            let thread_id = grid_1d();
            if thread_id < out.len() {
                let mut inside = 0u32;
                let mut i = 0u32;
                while i < iterations {
                    let x = rng::xoroshiro128p_uniform_f32(rng_states, thread_id);
                    let y = rng::xoroshiro128p_uniform_f32(rng_states, thread_id);
                    if x * x + y * y <= 1.0 {
                        inside += 1;
                    }
                    i += 1;
                }
                out[thread_id] = (4.0 * inside as f64 / iterations as f64) as f32;
            }
        }

        /// A fill of `out` by `rng_states.len()` threads (the grid's first), each drawing
        /// from its own generator: thread `t` writes `out[t]`, `out[t + n]`, .. (`n` the
        /// states), so a warp's stores are coalesced. The bench's generator throughput row.
        #[gpu_kernel($($opt)*)]
        pub fn fill_uniform(rng_states: &mut [Xoroshiro128p], out: &mut [f32]) {
            let t = grid_1d();
            let n = rng_states.len();
            if t < n {
                let mut i = t;
                while i < out.len() {
                    out[i] = rng::xoroshiro128p_uniform_f32(rng_states, t);
                    i += n;
                }
            }
        }
    };
}

/// The bounds-checked kernel.
pub mod checked {
    use super::*;
    monte_carlo_pi_kernels!(warpspeed::algorithms::xoroshiro;);
}

/// The same kernel, `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    monte_carlo_pi_kernels!(warpspeed::algorithms::xoroshiro::unchecked; unchecked);
}

pub use checked::{compute_pi, fill_uniform};

/// Draw `j` (from 0) of a generator starting at `state`, as a uniform `f32`: what
/// [`fill_uniform`] writes at `t + j n` for state `t`.
pub fn uniform_f32_cpu(state: Xoroshiro128p, j: usize) -> f32 {
    let (mut s0, mut s1) = (state.s0, state.s1);
    let mut r = 0;
    for _ in 0..=j {
        r = s0.wrapping_add(s1);
        s1 ^= s0;
        s0 = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        s1 = s1.rotate_left(36);
    }
    (r >> 40) as f32 * 5.960_464_5e-8
}

/// Thread `t`'s estimate on the host, from its state (the library's host-side states) by
/// plain xoroshiro128+ steps: what [`compute_pi`] writes at `t`, bit for bit.
pub fn compute_pi_cpu(state: Xoroshiro128p, iterations: u32) -> f32 {
    let (mut s0, mut s1) = (state.s0, state.s1);
    let mut next = || {
        let r = s0.wrapping_add(s1);
        s1 ^= s0;
        s0 = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        s1 = s1.rotate_left(36);
        r
    };
    let mut inside = 0u32;
    for _ in 0..iterations {
        let x = (next() >> 40) as f32 * 5.960_464_5e-8;
        let y = (next() >> 40) as f32 * 5.960_464_5e-8;
        if x * x + y * y <= 1.0 {
            inside += 1;
        }
    }
    (4.0 * inside as f64 / iterations as f64) as f32
}
