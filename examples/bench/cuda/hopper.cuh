// What the hand-written Hopper twins share (examples/bench/hand.rs puts this file in front of
// gemm_hopper.cu and attention.cu): a CUtensorMap passed by value, shared-memory addresses,
// mbarrier waits and arrivals, 2-D TMA loads, and the descriptor of a K-major 128B-swizzled
// tile. Header-free for NVRTC; needs sm_90a.

struct __align__(64) ws_hand_tmap { unsigned long long x[16]; };

__device__ __forceinline__ unsigned hand_smem(const void* p) {
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
__device__ __forceinline__ void hand_wait(unsigned long long* b, unsigned parity) {
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                 :: "r"(hand_smem(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void hand_tma(void* dst, const ws_hand_tmap* map, int c0, int c1, unsigned long long* b) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(hand_smem(dst)), "l"(map), "r"(c0), "r"(c1), "r"(hand_smem(b)) : "memory");
}
// A K-major operand with the 128-byte swizzle: rows of 128 bytes, 8-row groups 1024 apart.
__device__ __forceinline__ unsigned long long hand_desc(const void* p) {
    return ((hand_smem(p) & 0x3FFFF) >> 4) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ void hand_bar_init(unsigned long long* b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(hand_smem(b)), "r"(count));
}
__device__ __forceinline__ void hand_arrive(unsigned long long* b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(hand_smem(b)) : "memory");
}
__device__ __forceinline__ void hand_expect_tx(unsigned long long* b, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(hand_smem(b)), "r"(bytes) : "memory");
}
