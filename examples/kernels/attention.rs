//! Flash-attention forward on Hopper (examples/attention.rs; docs/tensor-cores.md, "The
//! attention kernel"): `O = softmax(Q Kᵀ / sqrt(D)) V` for bf16 Q, K, V, O of shape
//! [B, H, L, D] (contiguous; seen by TMA as one [B·H·L, D] matrix), D = 64 or 128, full or
//! causal, checked and unchecked from one body.
//!
//! One block computes the query rows of one (batch, head), 64 a consumer warpgroup: 128
//! rows at D = 128, 192 at D = 64 ([`block_rows`]; the last block of a head is cut at L), in
//! the order of [`tile_of`](checked::tile_of): the heads in groups of 8, a group's blocks one after
//! another, so that the blocks running at once share a few heads' K and V in L2 (with every
//! block of a wave on another head, they read K and V from HBM: 2.8 TB/s, and 360 TFLOP/s
//! at D = 128). A causal run takes each group's query blocks longest first.
//! - Warpgroup 0 is the producer: it gives registers away (`setmaxnreg_dec`), and one
//!   thread loads the Q tile once, then the 128-key tiles of K and V through a ring of
//!   stages with TMA (`tma_load_2d`, boxes of 128 rows x 64 columns, 128-byte swizzle),
//!   each tile completing on its own `full` mbarrier, so that `S = Q Kᵀ` starts before V has
//!   landed.
//! - Warpgroups 1, 2 (and 3 at D = 64) are the consumers, 64 query rows each. Per key block:
//!   `S = Q Kᵀ` by `wgmma` m64n128k16 from shared memory (both operands K-major: Q's rows
//!   and K's rows are D long); the online softmax in registers (running row maximum `m` in
//!   log2 units, running denominator `l`, the output rescaled when the maximum grows; a row
//!   is held by the four lanes of a quad, so its maximum takes two `shfl_xor_sync`s); then
//!   `O += P V` by `wgmma_trans_b` with P straight from registers: the 16 columns of slab
//!   j of the S accumulator are, element for element, the A fragment of slab j
//!   (`warpspeed::mma::wgmma_a_owner`), and V is MN-major (its rows are keys, D long).
//!   At the end each row is divided by its denominator and stored as bf16 pairs.
//!
//! Shapes: L a multiple of 128 (and below 2^31 / (B·H) rows in all), D 64 or 128
//! ([`attention_shape_error`]).

#![allow(dead_code)] // the example and the bench each use part of this module

use warpspeed::LaunchConfig;

/// Query rows per block, by head dimension: 64 a consumer warpgroup, two at D = 128 and
/// three at D = 64 (where the softmax costs as much as the products, and a third warpgroup
/// a scheduler hides more of its latency; its registers, 160 a thread, hold D = 64's
/// accumulators but not D = 128's).
pub fn block_rows(d: usize) -> usize {
    if d == 64 {
        192
    } else {
        128
    }
}

/// Keys per block of K and V.
pub const BN: usize = 128;
/// Stages of the K/V ring, by head dimension: as many as shared memory holds beside Q
/// (D = 128: 32 KiB of Q and 3 x 64 KiB; D = 64: 16 KiB and 4 x 32 KiB).
pub fn stages(d: usize) -> usize {
    if d == 64 {
        4
    } else {
        3
    }
}

/// `attention_kernel!(name, D, O's accumulator shape, stages, overlap, consumer warpgroups,
/// Q's rows in shared memory, threads, producer's and consumers' registers $(,
/// unchecked)?)`: one kernel of the family (`overlap`: the order of the consumer's loop,
/// below; the registers: `setmaxnreg`'s literals, 65536 in all).
macro_rules! attention_kernel {
    ($name:ident, $d:literal, $oshape:ident, $stages:literal, $overlap:literal, $wgs:literal, $qrows:literal, $threads:literal, $dec:literal, $inc:literal $(, $opt:ident)?) => {
        /// Flash-attention forward, one block per (head, 128 query rows); `o` two columns
        /// an element; `scale_log2` = log2(e) / sqrt(D).
        #[gpu_kernel(block = ($threads, 1, 1), fast_math $(, $opt)?)]
        pub fn $name(
            q: &TensorMap<bf16>,
            k: &TensorMap<bf16>,
            v: &TensorMap<bf16>,
            o: &mut [bf16x2],
            heads: u32,
            len: u32,
            causal: bool,
            scale_log2: f32,
        ) {
            // A 128-row tile of K or V: D / 64 column blocks of 128 x 64.
            let tile: usize = 128 * $d;
            // The block's query rows (64 a consumer warpgroup), and the rows of Q's tile in
            // shared memory: whole boxes of 128 rows (the last one's extra rows unused).
            let bm: u32 = 64 * $wgs;
            let qrows: usize = $qrows;
            let qsize = qrows * $d;
            let smem = dynamic_shared::<bf16>();
            // Q, then the stages of K and V. A launch with less shared memory is reported
            // here (an OutOfBounds naming this line) and does nothing else; past the guard
            // the bounds prover knows the length.
            let ring = qsize + 2 * $stages * tile;
            if smem.len() < ring {
                smem[ring - 1] = bf16::from_f32(0.0);
                return;
            }
            let full_q = SharedArray::<Mbarrier, 1>::new();
            let full_k = SharedArray::<Mbarrier, $stages>::new();
            let full_v = SharedArray::<Mbarrier, $stages>::new();
            let empty_k = SharedArray::<Mbarrier, $stages>::new();
            let empty_v = SharedArray::<Mbarrier, $stages>::new();
            let t = thread_idx().x;
            if t == 0 {
                full_q[0].init(1);
                for s in 0..$stages {
                    full_k[s].init(1);
                    full_v[s].init(1);
                    // Every consumer thread arrives (128 a warpgroup): an arrival by one
                    // thread a warpgroup is a divergent branch, before which ptxas waits
                    // for every wgmma in flight, which took the overlap of P V with the
                    // softmax.
                    empty_k[s].init(128 * $wgs);
                    empty_v[s].init(128 * $wgs);
                }
                fence_mbarrier_init();
            }
            sync_threads();
            // Query blocks of `bm` rows (the last one may reach past L: its extra rows are
            // computed and not stored), key blocks of 128.
            let blocks_q = (len + bm - 1) / bm;
            let (head, qb) = tile_of(block_idx().x, blocks_q, heads, causal);
            let keys = len / 128;
            // Causal: the key blocks up to the block's last query.
            let blocks_kv = if causal { ((qb * bm + bm - 1) / 128 + 1).min(keys) } else { keys };
            // This head's first row in the [B·H·L, D] view, and this block's first query.
            let row0 = head * len;
            let first_q = row0 + qb * bm;
            // A tile's bytes, which each of its TMA barriers expects.
            let bytes = (tile * 2) as u32;
            if t < 128 {
                setmaxnreg_dec($dec);
                if t == 0 {
                    full_q[0].arrive_expect_tx((qsize * 2) as u32);
                    for c in 0..$d / 64 {
                        for b in 0..qrows / 128 {
                            let at = c * qrows * 64 + b * 128 * 64;
                            let row = (first_q as usize + b * 128) as i32;
                            tma_load_2d(&mut smem[at..at + 128 * 64], q, row, (c * 64) as i32, &full_q[0]);
                        }
                    }
                    // K and V have their own stages: K j is free once S j - 2 is computed,
                    // V j once O has taken P j - 2 V j - 2, a whole block later.
                    for j in 0..blocks_kv {
                        let s = (j % $stages) as usize;
                        let kt = qsize + 2 * s * tile;
                        let key = (row0 + j * 128) as i32;
                        if j >= $stages {
                            empty_k[s].wait((j / $stages + 1) % 2);
                        }
                        full_k[s].arrive_expect_tx(bytes);
                        for c in 0..$d / 64 {
                            let at = kt + c * 128 * 64;
                            tma_load_2d(&mut smem[at..at + 128 * 64], k, key, (c * 64) as i32, &full_k[s]);
                        }
                        if j >= $stages {
                            empty_v[s].wait((j / $stages + 1) % 2);
                        }
                        full_v[s].arrive_expect_tx(bytes);
                        for c in 0..$d / 64 {
                            let at = kt + tile + c * 128 * 64;
                            tma_load_2d(&mut smem[at..at + 128 * 64], v, key, (c * 64) as i32, &full_v[s]);
                        }
                    }
                }
            } else {
                setmaxnreg_inc($inc);
                let half = ((t - 128) / 128) as usize; // which consumer: 64 query rows each
                // The same, through a shuffle from lane 0, so that ptxas knows it is the
                // same in every lane of the warp (the loop below runs to a bound that depends
                // on it); `half` itself stays as computed, which the bounds prover follows.
                let wg = shfl_sync(u32::MAX, half as u32, 0);
                // This warpgroup's key blocks: a causal run's up to its last query (at D = 64
                // a 192-row block's first warpgroups end a block of keys before the last),
                // none when all its rows are past L (the last block of a head). Past them
                // it only follows the ring ([`attention_kernel`]'s tail loop), computing
                // nothing: 11% of a causal run's products at D = 64, L = 2048.
                let first_row = qb * bm + 64 * wg;
                let mine = if first_row >= len {
                    0
                } else if causal {
                    ((first_row + 63) / 128 + 1).min(keys)
                } else {
                    keys
                };
                let lane = (t % 32) as usize;
                let (g, quad) = (lane / 4, lane % 4);
                // This thread's two query rows in the block: `r0` and `r0 + 8`
                // (`warpspeed::mma::wgmma_owner`: x[i] is in row r0 + 8 * ((i / 2) % 2),
                // column 8 * (i / 4) + 2 * quad + i % 2).
                let r0 = half * 64 + 16 * ((t % 128) / 32) as usize + g;
                full_q[0].wait(0);
                let mut acc = FragmentAcc::<f32, $oshape>::zeroed();
                let (mut m0, mut m1) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
                let (mut l0, mut l1) = (0.0f32, 0.0f32);
                // P of the block before, in registers: slab jj of it is `pjj`.
                let mut p0 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p1 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p2 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p3 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p4 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p5 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p6 = FragmentA::<bf16, $oshape>::zeroed();
                let mut p7 = FragmentA::<bf16, $oshape>::zeroed();
                // Two orders of the same steps (`$overlap`, a literal: the C keeps one):
                // `true` waits for P j-1 V j-1 at the start of the next turn, so that the
                // softmax of S j runs while the tensor cores work on that product (ptxas
                // moves a wait placed right after the softmax ahead of it, and the
                // softmax behind it); `false` waits at the end of the turn, which leaves
                // each warpgroup's products and softmax in sequence, the two warpgroups
                // overlapping each other. On an H100 the first is faster at D = 128
                // (1.69 against 1.74 ms), the second at D = 64 (0.71 against 0.75 ms).
                if $overlap {
                    // S of the block before, its softmax (P, in f32) once that has run, and
                    // O's pending rescale (the rows' maxima moved by these factors).
                    let mut sc = FragmentAcc::<f32, M64N128K16>::zeroed();
                    let (mut a0, mut a1) = (1.0f32, 1.0f32);
                    // Block j: once P j-2 V j-2 is done, O is rescaled and P j-1 taken into
                    // registers; S j = Q Kjᵀ is issued, then O += P j-1 V j-1 behind it; the
                    // softmax of S j runs while the tensor cores work on P j-1 V j-1. The wait
                    // for that product is the next turn's first step: ptxas does not move it
                    // back across the loop's edge, as it moved a wait placed after the
                    // softmax ahead of it (and the softmax behind it). The last block's P V
                    // follows the loop.
                    for j in 0..blocks_kv {
                        let s = (j % $stages) as usize;
                        let kt = qsize + 2 * s * tile;
                        if j > 0 {
                            wgmma_wait_group(0);
                            if j >= 2 {
                                empty_v[((j - 2) % $stages) as usize].arrive();
                            }
                            for i in 0..$d / 2 {
                                acc.x[i] *= if (i / 2) % 2 == 0 { a0 } else { a1 };
                            }
                            p0.load_acc(sc, 0);
                            p1.load_acc(sc, 1);
                            p2.load_acc(sc, 2);
                            p3.load_acc(sc, 3);
                            p4.load_acc(sc, 4);
                            p5.load_acc(sc, 5);
                            p6.load_acc(sc, 6);
                            p7.load_acc(sc, 7);
                        }
                        sc = FragmentAcc::<f32, M64N128K16>::zeroed();
                        full_k[s].wait((j / $stages) % 2);
                        wgmma_fence();
                        #[unroll]
                        for c in 0..$d / 64 {
                            let qa = c * qrows * 64 + half * 64 * 64;
                            let ka = kt + c * 128 * 64;
                            let tile_q = &smem[qa..qa + 64 * 64];
                            let tile_k = &smem[ka..ka + 128 * 64];
                            #[unroll]
                            for kk in 0..4 {
                                sc.wgmma(tile_q, tile_k, kk);
                            }
                        }
                        wgmma_commit_group();
                        if j > 0 {
                            // O += P V of block j - 1, P from registers, V MN-major (8 slabs
                            // of 16 keys).
                            let sp = ((j - 1) % $stages) as usize;
                            full_v[sp].wait(((j - 1) / $stages) % 2);
                            let vt = qsize + 2 * sp * tile + tile;
                            let tile_v = &smem[vt..vt + tile];
                            acc.wgmma_trans_b(p0, tile_v, 0);
                            acc.wgmma_trans_b(p1, tile_v, 1);
                            acc.wgmma_trans_b(p2, tile_v, 2);
                            acc.wgmma_trans_b(p3, tile_v, 3);
                            acc.wgmma_trans_b(p4, tile_v, 4);
                            acc.wgmma_trans_b(p5, tile_v, 5);
                            acc.wgmma_trans_b(p6, tile_v, 6);
                            acc.wgmma_trans_b(p7, tile_v, 7);
                            wgmma_commit_group();
                        } else {
                            // An empty group for block 0, so that S j is always the older one.
                            // (Each branch commits its own: one commit where they meet made
                            // ptxas close the group with an extra wgmma on both paths, and the
                            // wait below then waited for P V too.)
                            wgmma_commit_group();
                        }
                        // S j done (P j-1 V j-1 may still run).
                        wgmma_wait_group(1);
                        empty_k[s].arrive();
                        // A causal run's key blocks that reach past a query: keys after it are
                    // masked.
                        // Key j 128 + 8 (i / 4) + 2 quad + i % 2 is after query qb bm + r0
                        // + 8 h when 8 (i / 4) + i % 2 - 8 h > qb bm + r0 - j 128 - 2 quad:
                        // a constant against `lim`. (The blocks before the first that holds
                        // a key after the warpgroup's first query need no mask.)
                        if causal && (j + 1) * 128 > first_row + 1 {
                            let lim = (qb * bm) as i32 + r0 as i32 - (j * 128) as i32 - 2 * quad as i32;
                            for i in 0..64 {
                                let c = (8 * (i / 4) + i % 2) as i32 - (8 * ((i / 2) % 2)) as i32;
                                if c > lim {
                                    sc.x[i] = f32::NEG_INFINITY;
                                }
                            }
                        }
                        // The rows' new maxima (log2 units), over the quad's four lanes.
                        let (mut n0, mut n1) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
                        for i in 0..64 {
                            if (i / 2) % 2 == 0 {
                                n0 = n0.max(sc.x[i]);
                            } else {
                                n1 = n1.max(sc.x[i]);
                            }
                        }
                        n0 = n0.max(shfl_xor_sync(u32::MAX, n0, 1));
                        n0 = n0.max(shfl_xor_sync(u32::MAX, n0, 2));
                        n1 = n1.max(shfl_xor_sync(u32::MAX, n1, 1));
                        n1 = n1.max(shfl_xor_sync(u32::MAX, n1, 2));
                        n0 = m0.max(n0 * scale_log2);
                        n1 = m1.max(n1 * scale_log2);
                        a0 = (m0 - n0).exp2();
                        a1 = (m1 - n1).exp2();
                        m0 = n0;
                        m1 = n1;
                        // P = 2^(S scale - m), and this thread's part of the row sums.
                        let (mut s0, mut s1) = (0.0f32, 0.0f32);
                        for i in 0..64 {
                            if (i / 2) % 2 == 0 {
                                let p = (sc.x[i] * scale_log2 - m0).exp2();
                                sc.x[i] = p;
                                s0 += p;
                            } else {
                                let p = (sc.x[i] * scale_log2 - m1).exp2();
                                sc.x[i] = p;
                                s1 += p;
                            }
                        }
                        l0 = l0 * a0 + s0;
                        l1 = l1 * a1 + s1;
                    }
                    // The last block's P V.
                    wgmma_wait_group(0);
                    for i in 0..$d / 2 {
                        acc.x[i] *= if (i / 2) % 2 == 0 { a0 } else { a1 };
                    }
                    p0.load_acc(sc, 0);
                    p1.load_acc(sc, 1);
                    p2.load_acc(sc, 2);
                    p3.load_acc(sc, 3);
                    p4.load_acc(sc, 4);
                    p5.load_acc(sc, 5);
                    p6.load_acc(sc, 6);
                    p7.load_acc(sc, 7);
                    let sp = ((blocks_kv - 1) % $stages) as usize;
                    full_v[sp].wait(((blocks_kv - 1) / $stages) % 2);
                    let vt = qsize + 2 * sp * tile + tile;
                    let tile_v = &smem[vt..vt + tile];
                    wgmma_fence();
                    acc.wgmma_trans_b(p0, tile_v, 0);
                    acc.wgmma_trans_b(p1, tile_v, 1);
                    acc.wgmma_trans_b(p2, tile_v, 2);
                    acc.wgmma_trans_b(p3, tile_v, 3);
                    acc.wgmma_trans_b(p4, tile_v, 4);
                    acc.wgmma_trans_b(p5, tile_v, 5);
                    acc.wgmma_trans_b(p6, tile_v, 6);
                    acc.wgmma_trans_b(p7, tile_v, 7);
                    wgmma_commit_group();
                    wgmma_wait_group(0);
                } else {
                    // Block j: S j = Q K jᵀ is issued, then O += P j-1 V j-1 behind it; the
                    // softmax of S j runs while the tensor cores work on P j-1 V j-1. The last
                    // block's P V follows the loop, then the ring's blocks past this
                    // warpgroup's last query (`mine`).
                    for j in 0..mine {
                        let s = (j % $stages) as usize;
                        let kt = qsize + 2 * s * tile;
                        let mut sc = FragmentAcc::<f32, M64N128K16>::zeroed();
                        full_k[s].wait((j / $stages) % 2);
                        wgmma_fence();
                        #[unroll]
                        for c in 0..$d / 64 {
                            let qa = c * qrows * 64 + half * 64 * 64;
                            let ka = kt + c * 128 * 64;
                            let tile_q = &smem[qa..qa + 64 * 64];
                            let tile_k = &smem[ka..ka + 128 * 64];
                            #[unroll]
                            for kk in 0..4 {
                                sc.wgmma(tile_q, tile_k, kk);
                            }
                        }
                        wgmma_commit_group();
                        if j > 0 {
                            // O += P V of block j - 1, P from registers, V MN-major (8 slabs
                            // of 16 keys).
                            let sp = ((j - 1) % $stages) as usize;
                            full_v[sp].wait(((j - 1) / $stages) % 2);
                            let vt = qsize + 2 * sp * tile + tile;
                            let tile_v = &smem[vt..vt + tile];
                            acc.wgmma_trans_b(p0, tile_v, 0);
                            acc.wgmma_trans_b(p1, tile_v, 1);
                            acc.wgmma_trans_b(p2, tile_v, 2);
                            acc.wgmma_trans_b(p3, tile_v, 3);
                            acc.wgmma_trans_b(p4, tile_v, 4);
                            acc.wgmma_trans_b(p5, tile_v, 5);
                            acc.wgmma_trans_b(p6, tile_v, 6);
                            acc.wgmma_trans_b(p7, tile_v, 7);
                            wgmma_commit_group();
                        } else {
                            // An empty group for block 0, so that S j is always the older one.
                            // (Each branch commits its own: one commit where they meet made
                            // ptxas close the group with an extra wgmma on both paths, and the
                            // wait below then waited for P V too.)
                            wgmma_commit_group();
                        }
                        wgmma_wait_group(1);
                        empty_k[s].arrive();
                        // A causal run's key blocks that reach past a query: keys after it are
                    // masked.
                        // Key j 128 + 8 (i / 4) + 2 quad + i % 2 is after query qb bm + r0
                        // + 8 h when 8 (i / 4) + i % 2 - 8 h > qb bm + r0 - j 128 - 2 quad:
                        // a constant against `lim`. (The blocks before the first that holds
                        // a key after the warpgroup's first query need no mask.)
                        if causal && (j + 1) * 128 > first_row + 1 {
                            let lim = (qb * bm) as i32 + r0 as i32 - (j * 128) as i32 - 2 * quad as i32;
                            for i in 0..64 {
                                let c = (8 * (i / 4) + i % 2) as i32 - (8 * ((i / 2) % 2)) as i32;
                                if c > lim {
                                    sc.x[i] = f32::NEG_INFINITY;
                                }
                            }
                        }
                        // The rows' new maxima (log2 units), over the quad's four lanes.
                        let (mut n0, mut n1) = (f32::NEG_INFINITY, f32::NEG_INFINITY);
                        for i in 0..64 {
                            if (i / 2) % 2 == 0 {
                                n0 = n0.max(sc.x[i]);
                            } else {
                                n1 = n1.max(sc.x[i]);
                            }
                        }
                        n0 = n0.max(shfl_xor_sync(u32::MAX, n0, 1));
                        n0 = n0.max(shfl_xor_sync(u32::MAX, n0, 2));
                        n1 = n1.max(shfl_xor_sync(u32::MAX, n1, 1));
                        n1 = n1.max(shfl_xor_sync(u32::MAX, n1, 2));
                        n0 = m0.max(n0 * scale_log2);
                        n1 = m1.max(n1 * scale_log2);
                        let (a0, a1) = ((m0 - n0).exp2(), (m1 - n1).exp2());
                        m0 = n0;
                        m1 = n1;
                        // P = 2^(S scale - m), and this thread's part of the row sums.
                        let (mut s0, mut s1) = (0.0f32, 0.0f32);
                        for i in 0..64 {
                            if (i / 2) % 2 == 0 {
                                let p = (sc.x[i] * scale_log2 - m0).exp2();
                                sc.x[i] = p;
                                s0 += p;
                            } else {
                                let p = (sc.x[i] * scale_log2 - m1).exp2();
                                sc.x[i] = p;
                                s1 += p;
                            }
                        }
                        l0 = l0 * a0 + s0;
                        l1 = l1 * a1 + s1;
                        // P j - 1 V j - 1 done: its stage of V is free, O may be rescaled and
                        // the registers of P taken for P j.
                        wgmma_wait_group(0);
                        if j > 0 {
                            empty_v[((j - 1) % $stages) as usize].arrive();
                        }
                        for i in 0..$d / 2 {
                            if (i / 2) % 2 == 0 {
                                acc.x[i] *= a0;
                            } else {
                                acc.x[i] *= a1;
                            }
                        }
                        p0.load_acc(sc, 0);
                        p1.load_acc(sc, 1);
                        p2.load_acc(sc, 2);
                        p3.load_acc(sc, 3);
                        p4.load_acc(sc, 4);
                        p5.load_acc(sc, 5);
                        p6.load_acc(sc, 6);
                        p7.load_acc(sc, 7);
                    }
                    // The last block's P V, and its stage of V released.
                    if mine > 0 {
                        let sp = ((mine - 1) % $stages) as usize;
                        full_v[sp].wait(((mine - 1) / $stages) % 2);
                        let vt = qsize + 2 * sp * tile + tile;
                        let tile_v = &smem[vt..vt + tile];
                        wgmma_fence();
                        acc.wgmma_trans_b(p0, tile_v, 0);
                        acc.wgmma_trans_b(p1, tile_v, 1);
                        acc.wgmma_trans_b(p2, tile_v, 2);
                        acc.wgmma_trans_b(p3, tile_v, 3);
                        acc.wgmma_trans_b(p4, tile_v, 4);
                        acc.wgmma_trans_b(p5, tile_v, 5);
                        acc.wgmma_trans_b(p6, tile_v, 6);
                        acc.wgmma_trans_b(p7, tile_v, 7);
                        wgmma_commit_group();
                        wgmma_wait_group(0);
                        empty_v[sp].arrive();
                    }
                    // The key blocks past this warpgroup's last query: the other warpgroups
                    // use them, and the producer refills a stage only once every consumer
                    // has arrived, so it waits for each stage to land and releases it.
                    // (Waiting first keeps this warpgroup's arrival in the stage's round:
                    // the producer fills round j only after round j - stages is released.)
                    for j in mine..blocks_kv {
                        let s = (j % $stages) as usize;
                        full_k[s].wait((j / $stages) % 2);
                        empty_k[s].arrive();
                        full_v[s].wait((j / $stages) % 2);
                        empty_v[s].arrive();
                    }
                }
                // The rows' denominators over the quad, then O = acc / l as bf16 pairs.
                l0 += shfl_xor_sync(u32::MAX, l0, 1);
                l0 += shfl_xor_sync(u32::MAX, l0, 2);
                l1 += shfl_xor_sync(u32::MAX, l1, 1);
                l1 += shfl_xor_sync(u32::MAX, l1, 2);
                let (i0, i1) = (1.0 / l0, 1.0 / l1);
                let row = first_q as usize + r0;
                for j in 0..$d / 4 {
                    let r = row + 8 * (j % 2);
                    let col = 8 * (j / 2) + 2 * quad;
                    let inv = if j % 2 == 0 { i0 } else { i1 };
                    let pair = bf16x2::new(
                        bf16::from_f32(acc.x[2 * j] * inv),
                        bf16::from_f32(acc.x[2 * j + 1] * inv),
                    );
                    // Rows of the last query block past L are not this head's.
                    if r < (row0 + len) as usize {
                        o[(r * $d + col) / 2] = pair;
                    }
                }
            }
        }
    };
}

/// The device function `tile_of`, once in each module of kernels: block `tile`'s (head,
/// query block). Heads go in groups of 8: a group's blocks run together (8 heads' K and V
/// stay in L2), its query blocks one after another for every head of the group; a causal
/// run takes them longest first, so that the last blocks of the run are the short ones.
macro_rules! tile_of_device {
    ($($opt:ident)?) => {
        /// Block `tile`'s (head, query block), in groups of 8 heads.
        #[gpu_device($($opt)?)]
        pub fn tile_of(tile: u32, blocks_q: u32, heads: u32, causal: bool) -> (u32, u32) {
            let per_group = 8 * blocks_q;
            let first = (tile / per_group) * 8;
            let in_group = (heads - first).min(8);
            let i = tile % per_group;
            let rank = i / in_group;
            let qb = if causal { blocks_q - 1 - rank } else { rank };
            (first + i % in_group, qb)
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use warpspeed::prelude::*;
    tile_of_device!();
    attention_kernel!(attention_d64, 64, M64N64K16, 4, false, 3, 256, 512, 24, 160);
    attention_kernel!(
        attention_d128,
        128,
        M64N128K16,
        3,
        true,
        2,
        128,
        384,
        40,
        232
    );
}

/// The same kernels `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use warpspeed::prelude::*;
    tile_of_device!(unchecked);
    attention_kernel!(
        attention_d64,
        64,
        M64N64K16,
        4,
        false,
        3,
        256,
        512,
        24,
        160,
        unchecked
    );
    attention_kernel!(
        attention_d128,
        128,
        M64N128K16,
        3,
        true,
        2,
        128,
        384,
        40,
        232,
        unchecked
    );
}

/// Why the kernels cannot take this shape (batch, heads, length, head dim), if they cannot.
pub fn attention_shape_error(b: usize, h: usize, len: usize, d: usize) -> Option<String> {
    let ok = b > 0
        && h > 0
        && len > 0
        && len.is_multiple_of(BN)
        && (d == 64 || d == 128)
        && b * h * len < 1 << 31
        && b * h < 1 << 31;
    (!ok).then(|| {
        format!(
            "attention: L ({len}) must be a multiple of {BN}, D ({d}) 64 or 128, and B·H·L ({}) below 2^31",
            b * h * len
        )
    })
}

/// One block per (head, 128 query rows), and the shared memory of Q and the ring.
pub fn attention_config(b: usize, h: usize, len: usize, d: usize) -> LaunchConfig {
    let bm = block_rows(d);
    let qrows = bm.div_ceil(128) * 128;
    LaunchConfig::new(len.div_ceil(bm) * b * h, 128 * (1 + bm / 64))
        .with_shared_mem((qrows + 2 * stages(d) * BN) * d * 2)
}

/// log2(e) / sqrt(d): the scale that puts `Q Kᵀ / sqrt(d)` in log2 units for `exp2`.
pub fn scale_log2(d: usize) -> f32 {
    std::f32::consts::LOG2_E / (d as f32).sqrt()
}

/// Attention of head `hd` (a [L, D] slice of each of q, k, v, [B·H·L, D] in all) in f64,
/// on all the CPU's cores: the reference of the example and the bench.
pub fn attention_reference(
    q: &[warpspeed::bf16],
    k: &[warpspeed::bf16],
    v: &[warpspeed::bf16],
    hd: usize,
    len: usize,
    d: usize,
    causal: bool,
) -> Vec<f64> {
    let at =
        |m: &[warpspeed::bf16], r: usize, c: usize| f64::from(m[(hd * len + r) * d + c].to_f32());
    let scale = 1.0 / (d as f64).sqrt();
    let mut out = vec![0.0; len * d];
    crate::common::par_rows(&mut out, d, |r, row| {
        let keys = if causal { r + 1 } else { len };
        let s: Vec<f64> = (0..keys)
            .map(|j| (0..d).map(|c| at(q, r, c) * at(k, j, c)).sum::<f64>() * scale)
            .collect();
        let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let p: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
        let l: f64 = p.iter().sum();
        for (j, pj) in p.iter().enumerate() {
            for (c, o) in row.iter_mut().enumerate() {
                *o += pj * at(v, j, c) / l;
            }
        }
    });
    out
}

/// `|O - O_ref| / |O_ref|` (Frobenius) of head `hd` of `o` (pairs of columns) against its
/// reference: below 1e-2 for a correct kernel (P is rounded to bf16 before `P V`, as in
/// every flash attention).
pub fn attention_error(
    o: &[warpspeed::bf16x2],
    hd: usize,
    len: usize,
    d: usize,
    want: &[f64],
) -> f64 {
    let got = o[hd * len * d / 2..(hd + 1) * len * d / 2]
        .iter()
        .flat_map(|p| [f64::from(p.lo().to_f32()), f64::from(p.hi().to_f32())]);
    let (mut diff, mut norm) = (0.0, 0.0);
    for (g, w) in got.zip(want) {
        diff += (g - w) * (g - w);
        norm += w * w;
    }
    (diff / norm).sqrt()
}

/// A kernel of the family's `launch` (maps of Q, K, V; O as pairs; heads, L, causal,
/// log2(e) / sqrt(D)).
pub type AttentionLaunch = fn(
    &warpspeed::Device,
    LaunchConfig,
    &warpspeed::TensorMap<warpspeed::bf16>,
    &warpspeed::TensorMap<warpspeed::bf16>,
    &warpspeed::TensorMap<warpspeed::bf16>,
    &mut warpspeed::DeviceBuffer<warpspeed::bf16x2>,
    u32,
    u32,
    bool,
    f32,
) -> warpspeed::Result<()>;

/// The checked and the unchecked kernel of head dimension `d` (64 or 128).
pub fn attention_launches(d: usize) -> [AttentionLaunch; 2] {
    match d {
        64 => [
            checked::attention_d64::launch,
            unchecked::attention_d64::launch,
        ],
        _ => [
            checked::attention_d128::launch,
            unchecked::attention_d128::launch,
        ],
    }
}

/// Q, K and V of `n` elements each, random in [-2, 2) (rounded to bf16), the same for a
/// shape in the example and the bench.
pub fn attention_inputs(n: usize, len: usize, d: usize, causal: bool) -> [Vec<warpspeed::bf16>; 3] {
    let mut rng = crate::common::XorShift::new((len + d) as u64 + u64::from(causal));
    std::array::from_fn(|_| {
        (0..n)
            .map(|_| {
                warpspeed::bf16::from_f32((rng.next_u32() >> 8) as f32 / (1u32 << 22) as f32 - 2.0)
            })
            .collect()
    })
}

/// The FLOPs of attention: 4·B·H·L²·D, half of it causal.
pub fn attention_flop(heads: usize, len: usize, d: usize, causal: bool) -> f64 {
    4.0 * heads as f64 * (len * len) as f64 * d as f64 / if causal { 2.0 } else { 1.0 }
}
