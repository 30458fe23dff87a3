// The hand-written twin of examples/kernels/gemm_hopper.rs (the bench's `gemm (wgmma)` rows):
// the same algorithm in CUDA C with inline PTX. C (m x n, 16-bit, two columns a 32-bit
// element) = A (m x k) * B^T with B given n x k, both through 128-byte-swizzled TMA tensor
// maps, f32 accumulation. A persistent kernel: 3 warpgroups a block, warpgroup 0 the TMA
// producer (one thread), warpgroups 1 and 2 the wgmma consumers (64 x 256 each), a ring of
// 4 stages of (128 + 256) x 64 elements with full/empty mbarriers, tiles in groups of 16
// tile rows. Header-free for NVRTC; needs sm_90a.

// (ws_hand_tmap, hand_smem, hand_wait, hand_tma, hand_desc: hopper.cuh, which the bench puts
// in front of this file.)

#define HAND_WGMMA(NAME, TYPE) \
__device__ __forceinline__ void NAME(float* d, unsigned long long da, unsigned long long db) { \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " " \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0; }" \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
        : "l"(da), "l"(db)); \
}
HAND_WGMMA(hand_wgmma_bf16, "bf16")
HAND_WGMMA(hand_wgmma_f16, "f16")

__device__ __forceinline__ unsigned hand_round_bf16(float f) {
    unsigned u = __float_as_uint(f);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
__device__ __forceinline__ unsigned hand_round_f16(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

#define HAND_GEMM(NAME, WGMMA, ROUND) \
extern "C" __global__ void __launch_bounds__(384, 1) \
NAME(const __grid_constant__ ws_hand_tmap ma, const __grid_constant__ ws_hand_tmap mb, unsigned* c, unsigned m, unsigned n, unsigned k) { \
    extern __shared__ __align__(1024) unsigned char hand_smem_raw[]; \
    unsigned short* smem = (unsigned short*)hand_smem_raw; \
    __shared__ __align__(8) unsigned long long full[4], empty[4]; \
    const unsigned t = threadIdx.x, a_slab = 128 * 64, b_slab = 256 * 64; \
    if (t == 0) { \
        for (int s = 0; s < 4; s++) { \
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(hand_smem(&full[s]))); \
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(hand_smem(&empty[s]))); \
        } \
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); \
    } \
    __syncthreads(); \
    const unsigned tiles_m = m / 128, tiles_n = n / 256, tiles = tiles_m * tiles_n, steps = k / 64; \
    if (t / 128 == 0) { \
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;"); \
        if (t == 0) { \
            unsigned i = 0; \
            for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) { \
                unsigned per_group = 16 * tiles_n, first_m = tile / per_group * 16; \
                unsigned rows_here = tiles_m - first_m < 16 ? tiles_m - first_m : 16, within = tile % per_group; \
                int bm = (first_m + within % rows_here) * 128, bn = within / rows_here * 256; \
                for (unsigned kk = 0; kk < steps; kk++, i++) { \
                    unsigned s = i % 4; \
                    if (i >= 4) hand_wait(&empty[s], (i / 4 + 1) % 2); \
                    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" \
                                 :: "r"(hand_smem(&full[s])), "r"((a_slab + b_slab) * 2) : "memory"); \
                    hand_tma(smem + s * a_slab, &ma, kk * 64, bm, &full[s]); \
                    hand_tma(smem + 4 * a_slab + s * b_slab, &mb, kk * 64, bn, &full[s]); \
                } \
            } \
        } \
    } else { \
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;"); \
        const unsigned half = t / 128 - 1, lane = t % 32; \
        float d[128]; \
        unsigned i = 0; \
        for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) { \
            unsigned per_group = 16 * tiles_n, first_m = tile / per_group * 16; \
            unsigned rows_here = tiles_m - first_m < 16 ? tiles_m - first_m : 16, within = tile % per_group; \
            unsigned bm = (first_m + within % rows_here) * 128, bn = within / rows_here * 256; \
            _Pragma("unroll") for (int j = 0; j < 128; j++) d[j] = 0.f; \
            for (unsigned kk = 0; kk < steps; kk++, i++) { \
                unsigned s = i % 4; \
                hand_wait(&full[s], (i / 4) % 2); \
                const unsigned short* sa = smem + s * a_slab + half * 64 * 64; \
                const unsigned short* sb = smem + 4 * a_slab + s * b_slab; \
                asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); \
                _Pragma("unroll") for (int q = 0; q < 4; q++) WGMMA(d, hand_desc(sa + q * 16), hand_desc(sb + q * 16)); \
                asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); \
                asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); \
                if (t % 128 == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(hand_smem(&empty[s])) : "memory"); \
            } \
            unsigned long long row0 = bm + half * 64 + 16 * ((t % 128) / 32) + lane / 4, col0 = bn + 2 * (lane % 4); \
            _Pragma("unroll") for (int j = 0; j < 64; j++) { \
                unsigned long long r = row0 + 8 * (j % 2), col = col0 + 8 * (j / 2); \
                c[(r * n + col) / 2] = ROUND(d[2 * j]) | (ROUND(d[2 * j + 1]) << 16); \
            } \
        } \
    } \
}
HAND_GEMM(gemm_hopper_bf16_hand, hand_wgmma_bf16, hand_round_bf16)
HAND_GEMM(gemm_hopper_f16_hand, hand_wgmma_f16, hand_round_f16)
