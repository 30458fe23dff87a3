//! The Hopper GEMM of examples/gemm.rs (docs/tensor-cores.md, "The Hopper gemm"), checked
//! and unchecked from one body: C (bf16, f16, or f32 through tf32; m x n) = A (m x k) * Bᵀ, B given
//! n x k (K-major, "NT": a linear layer's weight), products accumulated in f32.
//!
//! A persistent kernel: one block of three warpgroups per SM walks the 128 x 256 tiles of C
//! (tile `block_idx().x`, then every `grid_dim().x`-th), in groups of 16 tile rows so that
//! the slabs of A and B that neighbouring blocks load stay in L2 ([`tile_origin`]).
//! - Warpgroup 0 is the producer: it gives registers away (`setmaxnreg_dec`), and one of its
//!   threads streams 128 x 64 slabs of A and 256 x 64 slabs of B with TMA (`tma_load_2d`,
//!   128-byte swizzle) into a ring of four shared-memory stages, each stage completing on
//!   its `full` mbarrier. The ring runs on across tiles, so the next tile's slabs load while
//!   the consumers store this one.
//! - Warpgroups 1 and 2 are the consumers: they take registers (`setmaxnreg_inc`), wait for a
//!   stage, multiply their 64 rows of A's slab by B's slab with four `wgmma` m64n256k16 into
//!   a 64 x 256 f32 accumulator (128 registers a thread), and hand the stage back through its
//!   `empty` mbarrier. At the end of a tile they store the accumulator, two columns at a time
//!   (`bf16x2`: one 4-byte store where single elements took 2-byte ones, which cost 18% of
//!   the time in the hand-written twin).
//!
//! Shapes: `m` a multiple of 128, `n` of 256, `k` of 64 ([`gemm_hopper_shape_error`]).
//! The figures and what each choice was worth: docs/tensor-cores.md.

#![allow(dead_code)] // the example and the bench each use part of this module

use warpspeed::{bf16, bf16x2, f16, f16x2, f32x2, LaunchConfig};

/// Rows of C (and of A's slab) per tile.
pub const BM: usize = 128;
/// Columns of C (rows of B's slab) per tile.
pub const BN: usize = 256;
/// K per stage: 64 16-bit elements, one 128-byte swizzled row (32 for f32, multiplied as
/// tf32: [`BK_TF32`]).
pub const BK: usize = 64;
/// K per stage of the tf32 kernel: 32 f32s, one 128-byte swizzled row.
pub const BK_TF32: usize = 32;
/// Stages of the ring (4 x 48 KiB of shared memory).
pub const STAGES: usize = 4;

/// `gemm_hopper_kernel!(name, element, pair, accumulator shape, K per stage, [conversion]
/// $(, unchecked)?)`: one kernel of the family. A stage's slab rows are 128 bytes (64
/// 16-bit elements or 32 f32s, `K per stage`), swizzled by TMA as `wgmma` reads them; the
/// conversion turns an f32 into the element type (`bf16::from_f32`; nothing for f32).
macro_rules! gemm_hopper_kernel {
    ($name:ident, $t:ident, $t2:ident, $shape:ident, $bk:literal, [$($cv:tt)*] $(, $opt:ident)?) => {
        /// C = A * Bᵀ on the tensor cores with wgmma and TMA (sm_90a); C two columns an
        /// element.
        #[gpu_kernel(block = (384, 1, 1) $(, $opt)?)]
        pub fn $name(a: &TensorMap<$t>, b: &TensorMap<$t>, c: &mut [$t2], m: u32, n: u32, k: u32) {
            // Sizes as lets of the kernel, so the bounds prover sees their values.
            let a_slab: usize = 128 * $bk;
            let b_slab: usize = 256 * $bk;
            let smem = dynamic_shared::<$t>();
            // A launch with too little shared memory for the ring is reported here, at its
            // last element (an OutOfBounds naming this line), and does nothing else. Past
            // this guard the bounds prover knows the length, so the tiles below need no
            // checks: a check between the wgmmas of a chain makes ptxas serialise them.
            let ring = 4 * (a_slab + b_slab);
            if smem.len() < ring {
                smem[ring - 1] = $($cv)*(0.0);
                return;
            }
            let full = SharedArray::<Mbarrier, 4>::new();
            let empty = SharedArray::<Mbarrier, 4>::new();
            let t = thread_idx().x;
            if t == 0 {
                for s in 0..4 {
                    full[s].init(1);
                    empty[s].init(2);
                }
                fence_mbarrier_init();
            }
            sync_threads();
            let (tiles_m, tiles_n) = (m / 128, n / 256);
            let tiles = tiles_m * tiles_n;
            let steps = k / $bk;
            let stride = grid_dim().x as usize;
            if t / 128 == 0 {
                setmaxnreg_dec(40);
                if t == 0 {
                    let mut i: u32 = 0;
                    for tile in (block_idx().x..tiles).step_by(stride) {
                        let (bm, bn): (u32, u32) = tile_origin(tile, tiles_m, tiles_n);
                        for kk in 0..steps {
                            let s = (i % 4) as usize;
                            if i >= 4 {
                                empty[s].wait((i / 4 + 1) % 2);
                            }
                            // A stage is 128 + 256 rows of 128 bytes, whatever the element.
                            full[s].arrive_expect_tx((128 + 256) * 128);
                            let sa = s * a_slab;
                            let sb = 4 * a_slab + s * b_slab;
                            let col = (kk * $bk) as i32;
                            tma_load_2d(&mut smem[sa..sa + a_slab], a, bm as i32, col, &full[s]);
                            tma_load_2d(&mut smem[sb..sb + b_slab], b, bn as i32, col, &full[s]);
                            i += 1;
                        }
                    }
                }
            } else {
                setmaxnreg_inc(232);
                let half = (t / 256) as usize; // which consumer: warpgroup 1 or 2
                let lane = (t % 32) as usize;
                let mut i: u32 = 0;
                for tile in (block_idx().x..tiles).step_by(stride) {
                    let (bm, bn): (u32, u32) = tile_origin(tile, tiles_m, tiles_n);
                    let mut acc = FragmentAcc::<f32, $shape>::zeroed();
                    for _ in 0..steps {
                        let s = (i % 4) as usize;
                        full[s].wait((i / 4) % 2);
                        let sa = s * a_slab + half * 64 * $bk;
                        let sb = 4 * a_slab + s * b_slab;
                        // The tiles' bounds are checked here, before the chain of wgmmas,
                        // which a branch between them would serialise.
                        let tile_a = &smem[sa..sa + 64 * $bk];
                        let tile_b = &smem[sb..sb + b_slab];
                        wgmma_fence();
                        #[unroll]
                        for q in 0..4 {
                            acc.wgmma(tile_a, tile_b, q);
                        }
                        wgmma_commit_group();
                        wgmma_wait_group(0);
                        if t % 128 == 0 {
                            empty[s].arrive();
                        }
                        i += 1;
                    }
                    // The accumulator's owners (docs/tensor-cores.md): warp w of the
                    // warpgroup holds rows 16 w .. 16 w + 15, in the m16n8 layout 32 times;
                    // x[2 j] and x[2 j + 1] are neighbours in a row.
                    let row0 = bm as usize + half * 64 + 16 * ((t % 128) / 32) as usize + lane / 4;
                    let col0 = bn as usize + 2 * (lane % 4);
                    // The C unrolls this loop (it indexes a fragment), so `acc.x[..]` are
                    // constants and the accumulator stays in registers.
                    for j in 0..64 {
                        let r = row0 + 8 * (j % 2);
                        let col = col0 + 8 * (j / 2);
                        let pair = $t2::new($($cv)*(acc.x[2 * j]), $($cv)*(acc.x[2 * j + 1]));
                        c[(r * n as usize + col) / 2] = pair;
                    }
                }
            }
        }
    };
}

/// The device function `tile_origin`, once in each module of kernels: tile `tile`'s first
/// row and column of C, tiles numbered down groups of 16 tile rows, a group's columns one
/// after another (as Triton's grouped order), so that consecutive tiles share their slabs
/// of B and nearby ones those of A.
macro_rules! tile_origin_device {
    ($($opt:ident)?) => {
        /// Tile `tile`'s first row and column of C (grouped order of 16 tile rows).
        #[gpu_device($($opt)?)]
        pub fn tile_origin(tile: u32, tiles_m: u32, tiles_n: u32) -> (u32, u32) {
            let per_group = 16 * tiles_n;
            let first_m = (tile / per_group) * 16;
            let rows_here = (tiles_m - first_m).min(16);
            let within = tile % per_group;
            ((first_m + within % rows_here) * 128, (within / rows_here) * 256)
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use warpspeed::prelude::*;
    tile_origin_device!();
    gemm_hopper_kernel!(
        gemm_hopper_bf16,
        bf16,
        bf16x2,
        M64N256K16,
        64,
        [bf16::from_f32]
    );
    gemm_hopper_kernel!(gemm_hopper_f16, f16, f16x2, M64N256K16, 64, [f16::from_f32]);
    gemm_hopper_kernel!(gemm_hopper_tf32, f32, f32x2, M64N256K8, 32, []);
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use warpspeed::prelude::*;
    tile_origin_device!(unchecked);
    gemm_hopper_kernel!(
        gemm_hopper_bf16,
        bf16,
        bf16x2,
        M64N256K16,
        64,
        [bf16::from_f32],
        unchecked
    );
    gemm_hopper_kernel!(
        gemm_hopper_f16,
        f16,
        f16x2,
        M64N256K16,
        64,
        [f16::from_f32],
        unchecked
    );
    gemm_hopper_kernel!(gemm_hopper_tf32, f32, f32x2, M64N256K8, 32, [], unchecked);
}

/// Why the kernels cannot take these sizes, if they cannot.
pub fn gemm_hopper_shape_error(m: usize, n: usize, k: usize) -> Option<String> {
    let ok = m > 0
        && n > 0
        && k > 0
        && m.is_multiple_of(BM)
        && n.is_multiple_of(BN)
        && k.is_multiple_of(BK)
        && m.max(n).max(k) < 1 << 31;
    (!ok).then(|| {
        format!(
            "gemm (Hopper): m ({m}) must be a multiple of {BM}, n ({n}) of {BN} and k ({k}) of {BK}, each below 2^31"
        )
    })
}

/// One block per SM (at most one per tile), and the ring's shared memory (192 KiB).
pub fn gemm_hopper_config(m: usize, n: usize, sms: usize) -> LaunchConfig {
    let tiles = (m / BM) * (n / BN);
    LaunchConfig::new(sms.min(tiles).max(1), 384usize).with_shared_mem(STAGES * (BM + BN) * BK * 2)
}

/// An element type of the Hopper kernels, for the host code that runs them (the example
/// and the bench): its name, its rounding from f32, its pair (C's element: two columns),
/// the K of a stage (a 128-byte row of it), and the bench's hand-written twin, if any.
pub trait HopperElem: warpspeed::KernelScalar {
    const NAME: &'static str;
    const HAND: Option<&'static str>;
    const BK: usize;
    type Pair: warpspeed::KernelScalar;
    fn from_f32(x: f32) -> Self;
    fn pair(lo: f32, hi: f32) -> Self::Pair;
}

impl HopperElem for bf16 {
    const NAME: &'static str = "bf16";
    const HAND: Option<&'static str> = Some("gemm_hopper_bf16_hand");
    const BK: usize = BK;
    type Pair = bf16x2;
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    fn pair(lo: f32, hi: f32) -> bf16x2 {
        bf16x2::new(bf16::from_f32(lo), bf16::from_f32(hi))
    }
}

impl HopperElem for f16 {
    const NAME: &'static str = "f16";
    const HAND: Option<&'static str> = Some("gemm_hopper_f16_hand");
    const BK: usize = BK;
    type Pair = f16x2;
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    fn pair(lo: f32, hi: f32) -> f16x2 {
        f16x2::new(f16::from_f32(lo), f16::from_f32(hi))
    }
}

/// f32 operands, multiplied as tf32 (the small integers here are exact in tf32).
impl HopperElem for f32 {
    const NAME: &'static str = "tf32";
    const HAND: Option<&'static str> = None;
    const BK: usize = BK_TF32;
    type Pair = f32x2;
    fn from_f32(x: f32) -> Self {
        x
    }
    fn pair(lo: f32, hi: f32) -> f32x2 {
        f32x2::new(lo, hi)
    }
}
