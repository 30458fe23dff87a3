//! The tensor-core GEMM of examples/gemm.rs (docs/tensor-cores.md), checked and unchecked
//! from one body: C (f32, m x n) = A (bf16, m x k) * B (bf16, k x n), all row major.
//!
//! Each block of 4 warps computes a 32 x 32 tile of C; each warp a 16 x 16 quarter of it,
//! as two m16n8k16 accumulators. The 32 x 16 slab of A and the 16 x 32 slab of B of each
//! step of K go through shared memory in a two-stage `cp_async` pipeline (one 16-byte copy
//! a thread and step: threads 0-63 copy A, 64-127 copy B), and reach the fragments by
//! `ldmatrix` (A) and `ldmatrix_trans` (B, stored K x N). The first, straightforward form:
//! docs/tensor-cores.md says what a kernel at cuBLAS's speed needs beyond it.
//!
//! Shapes: `m` and `n` multiples of 32, `k` of 16 ([`gemm_shape_error`]).

#![allow(dead_code)] // the example and the bench each use part of this module

use warpspeed::LaunchConfig;

/// Elements of A's (and B's) slab per pipeline stage: 32 x 16 (16 x 32).
pub const SLAB: usize = 512;

macro_rules! gemm_kernel {
    ($($opt:ident)?) => {
        /// C = A * B with bf16 inputs and f32 accumulation on the tensor cores.
        #[gpu_kernel(block = (128, 1, 1) $(, $opt)?)]
        pub fn gemm_bf16(a: &[bf16], b: &[bf16], c: &mut [f32], m: usize, n: usize, k: usize) {
            let mut sa = SharedArray::<bf16, 1024>::new();
            let mut sb = SharedArray::<bf16, 1024>::new();
            let t = thread_idx().x as usize;
            let lane = lane_id() as usize;
            let warp = t / 32;
            let (bm, bn) = (block_idx().y as usize * 32, block_idx().x as usize * 32);
            let (r0, n0) = ((warp / 2) * 16, (warp % 2) * 16);
            let steps = k / 16;
            let mut acc0 = FragmentAcc::<f32, M16N8K16>::zeroed();
            let mut acc1 = FragmentAcc::<f32, M16N8K16>::zeroed();
            // This thread's 16-byte piece of a stage: a row and column of A's or B's slab.
            let (row, col) = if t < 64 { (t / 2, (t % 2) * 8) } else { ((t - 64) / 4, ((t - 64) % 4) * 8) };
            let mut step = 0;
            while step <= steps {
                // Issue step `step` (the prologue is step 0), then compute step `step - 1`.
                if step < steps {
                    let (slot, kk) = ((step % 2) * SLAB, step * 16);
                    if t < 64 {
                        let (src, dst) = ((bm + row) * k + kk + col, slot + row * 16 + col);
                        cp_async(&mut sa[dst..dst + 8], &a[src..src + 8]);
                    } else {
                        let (src, dst) = ((kk + row) * n + bn + col, slot + row * 32 + col);
                        cp_async(&mut sb[dst..dst + 8], &b[src..src + 8]);
                    }
                }
                cp_async_commit();
                if step > 0 {
                    cp_async_wait(1);
                    sync_threads();
                    let slot = ((step - 1) % 2) * SLAB;
                    let mut fa = FragmentA::<bf16, M16N8K16>::zeroed();
                    fa.ldmatrix(&sa, slot + (r0 + lane % 16) * 16 + (lane / 16) * 8);
                    let mut fb0 = FragmentB::<bf16, M16N8K16>::zeroed();
                    let mut fb1 = FragmentB::<bf16, M16N8K16>::zeroed();
                    fb0.ldmatrix_trans(&sb, slot + (lane % 16) * 32 + n0);
                    fb1.ldmatrix_trans(&sb, slot + (lane % 16) * 32 + n0 + 8);
                    acc0.mma_sync(fa, fb0);
                    acc1.mma_sync(fa, fb1);
                    sync_threads();
                }
                step += 1;
            }
            // The accumulators' owners (docs/tensor-cores.md): rows group and group + 8,
            // columns 2 t and 2 t + 1 of each 16 x 8 tile.
            let (group, tq) = (lane / 4, lane % 4);
            for i in 0..4 {
                let r = bm + r0 + group + 8 * (i / 2);
                let col = bn + n0 + 2 * tq + i % 2;
                if r < m {
                    c[r * n + col] = acc0.x[i];
                    c[r * n + col + 8] = acc1.x[i];
                }
            }
        }
    };
}

/// The kernel with bounds checks (the default).
pub mod checked {
    use super::SLAB;
    use warpspeed::prelude::*;
    gemm_kernel!();
}

/// The same kernel `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::SLAB;
    use warpspeed::prelude::*;
    gemm_kernel!(unchecked);
}

/// Why the kernel cannot take these sizes, if it cannot: `m`, `n` multiples of 32 and `k`
/// of 16, none zero.
pub fn gemm_shape_error(m: usize, n: usize, k: usize) -> Option<String> {
    let ok = m > 0
        && n > 0
        && k > 0
        && m.is_multiple_of(32)
        && n.is_multiple_of(32)
        && k.is_multiple_of(16);
    (!ok).then(|| format!("gemm: m ({m}) and n ({n}) must be multiples of 32 and k ({k}) of 16"))
}

/// One block per 32 x 32 tile of C.
pub fn gemm_config(m: usize, n: usize) -> LaunchConfig {
    LaunchConfig::new((n / 32, m / 32), 128usize)
}
