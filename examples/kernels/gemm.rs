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

macro_rules! gemm_kernel {
    ($($opt:ident)?) => {
        /// C = A * B with bf16 inputs and f32 accumulation on the tensor cores.
        #[gpu_kernel(block = (128, 1, 1) $(, $opt)?)]
        pub fn gemm_bf16(a: &[bf16], b: &[bf16], c: &mut [f32], m: usize, n: usize, k: usize) {
            // Elements of a slab per stage (32 x 16 of A, 16 x 32 of B), as a `let` of the
            // kernel: the bounds prover sees its value, not that of a `const` outside.
            let slab: usize = 512;
            let mut sa = SharedArray::<bf16, 1024>::new();
            let mut sb = SharedArray::<bf16, 1024>::new();
            let t = thread_idx().x as usize;
            let lane = t % 32;
            let warp = t / 32;
            let (bm, bn) = (block_idx().y as usize * 32, block_idx().x as usize * 32);
            let r0 = (warp / 2) * 16;
            let n0 = (warp % 2) * 16;
            let steps = k / 16;
            let mut acc0 = FragmentAcc::<f32, M16N8K16>::zeroed();
            let mut acc1 = FragmentAcc::<f32, M16N8K16>::zeroed();
            for step in 0..steps + 1 {
                // Issue step `step` (the prologue is step 0), then compute step `step - 1`.
                if step < steps {
                    let slot = (step % 2) * slab;
                    let kk = step * 16;
                    // This thread's 16-byte piece of a stage: a row and column of A's
                    // slab (threads 0..64) or of B's (64..128), computed in each branch,
                    // where the bounds prover knows which.
                    if t < 64 {
                        let row = t / 2;
                        let col = (t % 2) * 8;
                        let src = (bm + row) * k + kk + col;
                        let dst = slot + row * 16 + col;
                        cp_async(&mut sa[dst..dst + 8], &a[src..src + 8]);
                    } else {
                        let row = (t - 64) / 4;
                        let col = ((t - 64) % 4) * 8;
                        let src = (kk + row) * n + bn + col;
                        let dst = slot + row * 32 + col;
                        cp_async(&mut sb[dst..dst + 8], &b[src..src + 8]);
                    }
                }
                cp_async_commit();
                if step > 0 {
                    cp_async_wait(1);
                    sync_threads();
                    let slot = ((step + 1) % 2) * slab; // the slot of step - 1
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

/// f32 GEMM through tf32 tensor cores with split correction ("3xTF32"): each f32 operand
/// `x` is split into `big = x` with its 13 low mantissa bits cleared (exactly a tf32) and
/// `small = x - big` (exact in f32), and `a * b` is accumulated as `small_a * big_b +
/// big_a * small_b + big_a * big_b` (the small terms first; `small_a * small_b`, below
/// 2^-22 of the product, is dropped). Three m16n8k8 tf32 `mma_sync`s per product instead of
/// one, for an error close to f32's instead of tf32's 2^-11.
///
/// Each 16-deep step accumulates into fresh zeroed fragments, which are then added to the
/// running sums with ordinary f32 additions (rounded to nearest): the tensor core's own
/// f32 accumulation truncates, and over k = 4096 that alone cost 2^-15 of max |C| on an
/// H100 (measured), where adding outside it keeps the error near f32's (as Ootomo and
/// Yokota found for 3xTF32, 2022).
///
/// The same blocking as [`checked::gemm_bf16`]: 32 x 32 tiles of C per block of 4 warps,
/// each warp two 16 x 8 accumulators, a two-stage `cp_async` pipeline of 32 x 16 (A) and
/// 16 x 32 (B) f32 slabs, fragments read from shared memory element by element (ldmatrix
/// moves 16-bit elements only) in the tf32 layouts of docs/tensor-cores.md.
macro_rules! gemm_3xtf32_kernel {
    ($($opt:ident)?) => {
        /// C = A * B in f32 through 3xTF32 on the tensor cores.
        #[gpu_kernel(block = (128, 1, 1) $(, $opt)?)]
        pub fn gemm_3xtf32(
            #[len(m * k)] a: &[f32],
            #[len(k * n)] b: &[f32],
            #[len(m * n)] c: &mut [f32],
            m: usize,
            n: usize,
            k: usize,
        ) {
            // Elements of a slab per stage (32 x 16 of A, 16 x 32 of B), as a `let` of the
            // kernel: the bounds prover sees its value, not that of a `const` outside.
            let slab: usize = 512;
            let mut sa = SharedArray::<f32, 1024>::new();
            let mut sb = SharedArray::<f32, 1024>::new();
            let t = thread_idx().x as usize;
            let lane = t % 32;
            let warp = t / 32;
            let bm = block_idx().y as usize * 32;
            let bn = block_idx().x as usize * 32;
            // A block past C's last whole tile does nothing. With this guard, the declared
            // lengths and the one on `kk` below, the bounds prover shows every copy from A
            // and B and every store to C inside its slice: the checked form keeps no check
            // in the loop (each cost a branch and a cold report path in the loop, 1.13x
            // the unchecked time on the H100).
            if bm + 32 > m || bn + 32 > n {
                return;
            }
            let r0 = (warp / 2) * 16;
            let n0 = (warp % 2) * 16;
            let group = lane / 4;
            let tq = lane % 4;
            let steps = k / 16;
            let mut acc0 = FragmentAcc::<f32, M16N8K8>::zeroed();
            let mut acc1 = FragmentAcc::<f32, M16N8K8>::zeroed();
            // This thread's 16-byte pieces of a stage: one of A's slab, one of B's.
            let ar = t / 4;
            let ac = (t % 4) * 4;
            let br = t / 8;
            let bc = (t % 8) * 4;
            for step in 0..steps + 1 {
                let kk = step * 16;
                // (`kk + 16 <= k` is `step < steps` said so that the prover sees the slab
                // end inside a row of A and a column of B.)
                if kk + 16 <= k {
                    let slot = (step % 2) * slab;
                    let src = (bm + ar) * k + kk + ac;
                    let dst = slot + ar * 16 + ac;
                    cp_async(&mut sa[dst..dst + 4], &a[src..src + 4]);
                    let src = (kk + br) * n + bn + bc;
                    let dst = slot + br * 32 + bc;
                    cp_async(&mut sb[dst..dst + 4], &b[src..src + 4]);
                }
                cp_async_commit();
                if step > 0 {
                    cp_async_wait(1);
                    sync_threads();
                    let slot = ((step + 1) % 2) * slab; // the slot of step - 1
                    let mut part0 = FragmentAcc::<f32, M16N8K8>::zeroed();
                    let mut part1 = FragmentAcc::<f32, M16N8K8>::zeroed();
                    for k8 in 0..2 {
                        let mut a_big = FragmentA::<f32, M16N8K8>::zeroed();
                        let mut a_small = FragmentA::<f32, M16N8K8>::zeroed();
                        for i in 0..4 {
                            let row = r0 + group + 8 * (i % 2);
                            let v = sa[slot + row * 16 + k8 * 8 + tq + 4 * (i / 2)];
                            let big = f32::from_bits(v.to_bits() & 0xffff_e000);
                            a_big.x[i] = big;
                            a_small.x[i] = v - big;
                        }
                        let mut b0_big = FragmentB::<f32, M16N8K8>::zeroed();
                        let mut b0_small = FragmentB::<f32, M16N8K8>::zeroed();
                        let mut b1_big = FragmentB::<f32, M16N8K8>::zeroed();
                        let mut b1_small = FragmentB::<f32, M16N8K8>::zeroed();
                        for i in 0..2 {
                            let at = slot + (k8 * 8 + tq + 4 * i) * 32 + n0 + group;
                            let (v0, v1) = (sb[at], sb[at + 8]);
                            let (big0, big1) = (
                                f32::from_bits(v0.to_bits() & 0xffff_e000),
                                f32::from_bits(v1.to_bits() & 0xffff_e000),
                            );
                            b0_big.x[i] = big0;
                            b0_small.x[i] = v0 - big0;
                            b1_big.x[i] = big1;
                            b1_small.x[i] = v1 - big1;
                        }
                        part0.mma_sync(a_small, b0_big);
                        part0.mma_sync(a_big, b0_small);
                        part0.mma_sync(a_big, b0_big);
                        part1.mma_sync(a_small, b1_big);
                        part1.mma_sync(a_big, b1_small);
                        part1.mma_sync(a_big, b1_big);
                    }
                    for i in 0..4 {
                        acc0.x[i] += part0.x[i];
                        acc1.x[i] += part1.x[i];
                    }
                    sync_threads();
                }
            }
            for i in 0..4 {
                // (`i / 2` and `i % 2` named: the prover follows a `let` of a sum of
                // products exactly, a quotient or remainder by its bound.)
                let (h, odd) = (i / 2, i % 2);
                let r = bm + r0 + group + 8 * h;
                let col = bn + n0 + 2 * tq + odd;
                c[r * n + col] = acc0.x[i];
                c[r * n + col + 8] = acc1.x[i];
            }
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use warpspeed::prelude::*;
    gemm_kernel!();
    gemm_3xtf32_kernel!();
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use warpspeed::prelude::*;
    gemm_kernel!(unchecked);
    gemm_3xtf32_kernel!(unchecked);
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
