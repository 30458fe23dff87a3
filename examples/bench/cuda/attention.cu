// The hand-written twin of examples/kernels/attention.rs (the bench's `attention` rows): the
// same flash-attention forward in CUDA C with inline PTX, bf16 Q, K, V, O of [B, H, L, D]
// seen as [B*H*L, D] through 128B-swizzled TMA maps (boxes of 128 rows x 64 columns), O two
// columns a 32-bit element. Warpgroup 0 is the TMA producer (one thread: Q once, then K and
// V through a ring of stages, each tile on its own full mbarrier); the consumer warpgroups
// (64 query rows each) compute S = Q K^T (wgmma m64n128k16), the online softmax in log2
// units, and O += P V with P from registers and V MN-major. D = 128: 2 consumers, 3 stages,
// P V waited for at the next turn of the loop; D = 64: 3 consumers, 4 stages, waited for at
// the end of the turn, each consumer computing only its own key blocks. Blocks in the order
// of the warpspeed kernel's `tile_of`. Header-free for NVRTC (hopper.cuh in front); sm_90a.

// S = Q K^T: m64n128k16, A and B K-major from 128B-swizzled descriptors, D += A B^T.
__device__ __forceinline__ void hand_wgmma_qk(float* d, unsigned long long da, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db));
}
// O += P V at D = 128: m64n128k16, A (P) from 4 registers of packed bf16 pairs, B (V) MN-major
// (imm-trans-b = 1) from a descriptor.
__device__ __forceinline__ void hand_wgmma_pv128(float* d, const unsigned* a, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}
// O += P V at D = 64: m64n64k16, A (P) from 4 registers of packed bf16 pairs, B (V) MN-major
// (imm-trans-b = 1) from a descriptor.
__device__ __forceinline__ void hand_wgmma_pv64(float* d, const unsigned* a, unsigned long long db) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1; }"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

template <int D> struct HandAttn;
template <> struct HandAttn<128> { enum { WGS = 2, STAGES = 3, QROWS = 128, OVERLAP = 1 }; };
template <> struct HandAttn<64> { enum { WGS = 3, STAGES = 4, QROWS = 256, OVERLAP = 0 }; };

template <int D> __device__ __forceinline__ void hand_pv(float* acc, const unsigned* p, unsigned long long db);
template <> __device__ __forceinline__ void hand_pv<128>(float* acc, const unsigned* p, unsigned long long db) { hand_wgmma_pv128(acc, p, db); }
template <> __device__ __forceinline__ void hand_pv<64>(float* acc, const unsigned* p, unsigned long long db) { hand_wgmma_pv64(acc, p, db); }

// An MN-major 128B-swizzled V tile (D / 64 column blocks of 128 rows), at its 16-key slab j:
// leading byte offset = one column block (128 rows of 128 bytes), stride 1024 (8 rows).
__device__ __forceinline__ unsigned long long hand_desc_mn(const void* tile, unsigned j) {
    return (((hand_smem(tile) & 0x3FFFF) >> 4) | ((16384ull >> 4) << 16) | ((1024ull >> 4) << 32) | (1ull << 62)) + 128ull * j;
}
__device__ __forceinline__ unsigned hand_pack_bf16(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ void hand_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void hand_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void hand_wait_group() { asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }

// S of one key block into `sc` (zeroed first): D / 64 column blocks of Q and K, 4 slabs each.
template <int D> __device__ __forceinline__ void hand_qk(float* sc, const unsigned short* q, const unsigned short* k) {
    _Pragma("unroll") for (int i = 0; i < 64; i++) sc[i] = 0.f;
    hand_fence();
    _Pragma("unroll") for (int c = 0; c < D / 64; c++) {
        _Pragma("unroll") for (int kk = 0; kk < 4; kk++)
            hand_wgmma_qk(sc, hand_desc(q + c * HandAttn<D>::QROWS * 64 + kk * 16), hand_desc(k + c * 128 * 64 + kk * 16));
    }
    hand_commit();
}
// O += P V of one key block: the 8 slabs of 16 keys.
template <int D> __device__ __forceinline__ void hand_pv_block(float* acc, unsigned (*p)[4], const unsigned short* v) {
    _Pragma("unroll") for (int j = 0; j < 8; j++) hand_pv<D>(acc, p[j], hand_desc_mn(v, j));
    hand_commit();
}
// The causal mask, the rows' new maxima and P = 2^(S scale - m) in `sc`; returns the
// rescale factors of O and adds this block's row sums to l.
template <int D> __device__ __forceinline__ void hand_softmax(float* sc, bool mask, int lim, unsigned quad, float scale,
                                                             float& m0, float& m1, float& l0, float& l1, float& a0, float& a1) {
    if (mask) {
        _Pragma("unroll") for (int i = 0; i < 64; i++) {
            int c = 8 * (i / 4) + i % 2 - 8 * ((i / 2) % 2);
            if (c > lim) sc[i] = -__int_as_float(0x7f800000);
        }
    }
    float n0 = -__int_as_float(0x7f800000), n1 = n0;
    _Pragma("unroll") for (int i = 0; i < 64; i++) {
        if ((i / 2) % 2 == 0) n0 = fmaxf(n0, sc[i]); else n1 = fmaxf(n1, sc[i]);
    }
    n0 = fmaxf(n0, __shfl_xor_sync(0xffffffffu, n0, 1));
    n0 = fmaxf(n0, __shfl_xor_sync(0xffffffffu, n0, 2));
    n1 = fmaxf(n1, __shfl_xor_sync(0xffffffffu, n1, 1));
    n1 = fmaxf(n1, __shfl_xor_sync(0xffffffffu, n1, 2));
    n0 = fmaxf(m0, n0 * scale);
    n1 = fmaxf(m1, n1 * scale);
    a0 = exp2f(m0 - n0);
    a1 = exp2f(m1 - n1);
    m0 = n0;
    m1 = n1;
    float s0 = 0.f, s1 = 0.f;
    _Pragma("unroll") for (int i = 0; i < 64; i++) {
        if ((i / 2) % 2 == 0) { sc[i] = exp2f(sc[i] * scale - m0); s0 += sc[i]; }
        else { sc[i] = exp2f(sc[i] * scale - m1); s1 += sc[i]; }
    }
    l0 = l0 * a0 + s0;
    l1 = l1 * a1 + s1;
    (void)quad;
}
template <int D> __device__ __forceinline__ void hand_rescale_and_take_p(float* acc, const float* sc, unsigned (*p)[4], float a0, float a1) {
    _Pragma("unroll") for (int i = 0; i < D / 2; i++) acc[i] *= (i / 2) % 2 == 0 ? a0 : a1;
    _Pragma("unroll") for (int j = 0; j < 8; j++) {
        _Pragma("unroll") for (int w = 0; w < 4; w++) p[j][w] = hand_pack_bf16(sc[8 * j + 2 * w], sc[8 * j + 2 * w + 1]);
    }
}

template <int D>
__device__ __forceinline__ void hand_attention(const ws_hand_tmap* mq, const ws_hand_tmap* mk, const ws_hand_tmap* mv,
                                               unsigned* o, unsigned heads, unsigned len, bool causal, float scale) {
    enum { WGS = HandAttn<D>::WGS, STAGES = HandAttn<D>::STAGES, QROWS = HandAttn<D>::QROWS };
    extern __shared__ __align__(1024) unsigned char hand_smem_raw[];
    unsigned short* smem = (unsigned short*)hand_smem_raw;
    __shared__ __align__(8) unsigned long long full_q, full_k[STAGES], full_v[STAGES], empty_k[STAGES], empty_v[STAGES];
    const unsigned tile = 128 * D, qsize = QROWS * D, t = threadIdx.x;
    if (t == 0) {
        hand_bar_init(&full_q, 1);
        for (int s = 0; s < STAGES; s++) {
            hand_bar_init(&full_k[s], 1);
            hand_bar_init(&full_v[s], 1);
            hand_bar_init(&empty_k[s], 128 * WGS);
            hand_bar_init(&empty_v[s], 128 * WGS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const unsigned bm = 64 * WGS, blocks_q = (len + bm - 1) / bm;
    // The (head, query block) of this block: heads in groups of 8, causal blocks longest first.
    const unsigned per_group = 8 * blocks_q, first = blockIdx.x / per_group * 8;
    const unsigned in_group = heads - first < 8 ? heads - first : 8, within = blockIdx.x % per_group;
    const unsigned rank = within / in_group, head = first + within % in_group;
    const unsigned qb = causal ? blocks_q - 1 - rank : rank;
    const unsigned keys = len / 128;
    const unsigned causal_kv = (qb * bm + bm - 1) / 128 + 1;
    const unsigned blocks_kv = causal && causal_kv < keys ? causal_kv : keys;
    const unsigned row0 = head * len, first_q = row0 + qb * bm;
    if (t < 128) {
        if (D == 128) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        else asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (t == 0) {
            hand_expect_tx(&full_q, qsize * 2);
            for (int c = 0; c < D / 64; c++)
                for (int b = 0; b < QROWS / 128; b++)
                    hand_tma(smem + c * QROWS * 64 + b * 128 * 64, mq, c * 64, first_q + b * 128, &full_q);
            for (unsigned j = 0; j < blocks_kv; j++) {
                const unsigned s = j % STAGES, kt = qsize + 2 * s * tile;
                const int key = row0 + j * 128;
                if (j >= STAGES) hand_wait(&empty_k[s], (j / STAGES + 1) % 2);
                hand_expect_tx(&full_k[s], tile * 2);
                for (int c = 0; c < D / 64; c++) hand_tma(smem + kt + c * 128 * 64, mk, c * 64, key, &full_k[s]);
                if (j >= STAGES) hand_wait(&empty_v[s], (j / STAGES + 1) % 2);
                hand_expect_tx(&full_v[s], tile * 2);
                for (int c = 0; c < D / 64; c++) hand_tma(smem + kt + tile + c * 128 * 64, mv, c * 64, key, &full_v[s]);
            }
        }
        return;
    }
    if (D == 128) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    else asm volatile("setmaxnreg.inc.sync.aligned.u32 160;");
    const unsigned half = (t - 128) / 128, wg = __shfl_sync(0xffffffffu, half, 0);
    const unsigned lane = t % 32, g = lane / 4, quad = lane % 4;
    const unsigned r0 = half * 64 + 16 * ((t % 128) / 32) + g;
    const unsigned first_row = qb * bm + 64 * wg;
    const unsigned own_kv = (first_row + 63) / 128 + 1;
    const unsigned mine = first_row >= len ? 0 : causal ? (own_kv < keys ? own_kv : keys) : keys;
    const unsigned short* q = smem + half * 64 * 64;
    hand_wait(&full_q, 0);
    float acc[D / 2];
    _Pragma("unroll") for (int i = 0; i < D / 2; i++) acc[i] = 0.f;
    float m0 = -__int_as_float(0x7f800000), m1 = m0, l0 = 0.f, l1 = 0.f;
    unsigned p[8][4];
    float sc[64];
    if (HandAttn<D>::OVERLAP) {
        // P V of block j - 1 runs behind S of block j and the softmax; waited for at turn j + 1.
        float a0 = 1.f, a1 = 1.f;
        for (unsigned j = 0; j < blocks_kv; j++) {
            const unsigned s = j % STAGES, kt = qsize + 2 * s * tile;
            if (j > 0) {
                hand_wait_group<0>();
                if (j >= 2) hand_arrive(&empty_v[(j - 2) % STAGES]);
                hand_rescale_and_take_p<D>(acc, sc, p, a0, a1);
            }
            hand_wait(&full_k[s], (j / STAGES) % 2);
            hand_qk<D>(sc, q, smem + kt);
            if (j > 0) {
                const unsigned sp = (j - 1) % STAGES;
                hand_wait(&full_v[sp], ((j - 1) / STAGES) % 2);
                hand_pv_block<D>(acc, p, smem + qsize + 2 * sp * tile + tile);
            } else {
                hand_commit();
            }
            hand_wait_group<1>();
            hand_arrive(&empty_k[s]);
            const int lim = (int)(qb * bm) + (int)r0 - (int)(j * 128) - 2 * (int)quad;
            hand_softmax<D>(sc, causal && (j + 1) * 128 > first_row + 1, lim, quad, scale, m0, m1, l0, l1, a0, a1);
        }
        hand_wait_group<0>();
        hand_rescale_and_take_p<D>(acc, sc, p, a0, a1);
        const unsigned sp = (blocks_kv - 1) % STAGES;
        hand_wait(&full_v[sp], ((blocks_kv - 1) / STAGES) % 2);
        hand_fence();
        hand_pv_block<D>(acc, p, smem + qsize + 2 * sp * tile + tile);
        hand_wait_group<0>();
    } else {
        // P V of block j - 1 behind S of block j, waited for at the end of the turn.
        for (unsigned j = 0; j < mine; j++) {
            const unsigned s = j % STAGES, kt = qsize + 2 * s * tile;
            hand_wait(&full_k[s], (j / STAGES) % 2);
            hand_qk<D>(sc, q, smem + kt);
            if (j > 0) {
                const unsigned sp = (j - 1) % STAGES;
                hand_wait(&full_v[sp], ((j - 1) / STAGES) % 2);
                hand_pv_block<D>(acc, p, smem + qsize + 2 * sp * tile + tile);
            } else {
                hand_commit();
            }
            hand_wait_group<1>();
            hand_arrive(&empty_k[s]);
            float a0, a1;
            const int lim = (int)(qb * bm) + (int)r0 - (int)(j * 128) - 2 * (int)quad;
            hand_softmax<D>(sc, causal && (j + 1) * 128 > first_row + 1, lim, quad, scale, m0, m1, l0, l1, a0, a1);
            hand_wait_group<0>();
            if (j > 0) hand_arrive(&empty_v[(j - 1) % STAGES]);
            hand_rescale_and_take_p<D>(acc, sc, p, a0, a1);
        }
        if (mine > 0) {
            const unsigned sp = (mine - 1) % STAGES;
            hand_wait(&full_v[sp], ((mine - 1) / STAGES) % 2);
            hand_fence();
            hand_pv_block<D>(acc, p, smem + qsize + 2 * sp * tile + tile);
            hand_wait_group<0>();
            hand_arrive(&empty_v[sp]);
        }
        // The ring's blocks past this warpgroup's last query: waited for and released.
        for (unsigned j = mine; j < blocks_kv; j++) {
            const unsigned s = j % STAGES;
            hand_wait(&full_k[s], (j / STAGES) % 2);
            hand_arrive(&empty_k[s]);
            hand_wait(&full_v[s], (j / STAGES) % 2);
            hand_arrive(&empty_v[s]);
        }
    }
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
    const float i0 = 1.f / l0, i1 = 1.f / l1;
    const unsigned long long row = first_q + r0;
    _Pragma("unroll") for (int j = 0; j < D / 4; j++) {
        const unsigned long long r = row + 8 * (j % 2), col = 8 * (j / 2) + 2 * quad;
        const float inv = j % 2 == 0 ? i0 : i1;
        if (r < (unsigned long long)(row0 + len)) o[(r * D + col) / 2] = hand_pack_bf16(acc[2 * j] * inv, acc[2 * j + 1] * inv);
    }
}

extern "C" __global__ void __launch_bounds__(384, 1)
attention_d128_hand(const __grid_constant__ ws_hand_tmap mq, const __grid_constant__ ws_hand_tmap mk, const __grid_constant__ ws_hand_tmap mv,
                    unsigned* o, unsigned heads, unsigned len, unsigned causal, float scale) {
    hand_attention<128>(&mq, &mk, &mv, o, heads, len, causal != 0, scale);
}
extern "C" __global__ void __launch_bounds__(512, 1)
attention_d64_hand(const __grid_constant__ ws_hand_tmap mq, const __grid_constant__ ws_hand_tmap mk, const __grid_constant__ ws_hand_tmap mv,
                   unsigned* o, unsigned heads, unsigned len, unsigned causal, float scale) {
    hand_attention<64>(&mq, &mk, &mv, o, heads, len, causal != 0, scale);
}
