// ---- Hopper (sm_90): mbarriers and TMA (docs/tensor-cores.md, "Hopper: mbarriers and TMA").
// `SharedArray::<Mbarrier, N>` is an array of `ws_mbarrier` (the 8-byte mbarrier object);
// a `&TensorMap<T>` parameter is a `const __grid_constant__ ws_tensor_map` (the 128-byte
// CUtensorMap, 64-byte aligned) and its box word: the box's elements in the low 32 bits,
// the tile alignment it needs (128, or 1024 under the 128-byte swizzle) in the high ones.
// Every helper needs sm_90; compiled for an older GPU a kernel calling one traps.
#ifndef WS_HOST_SHIM
typedef unsigned long long ws_mbarrier;
struct __align__(64) ws_tensor_map { unsigned long long opaque[16]; };
__device__ __forceinline__ unsigned int ws_smem_addr(const void* p) {
    unsigned int a;
    asm("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; cvt.u32.u64 %0, ws_a; }" : "=r"(a) : "l"(p));
    return a;
}
__device__ __forceinline__ void ws_mbarrier_init(ws_mbarrier* bar, unsigned int count) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(ws_smem_addr(bar)), "r"(count) : "memory");
#else
    __trap();
#endif
}
__device__ __forceinline__ void ws_mbarrier_arrive(ws_mbarrier* bar) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(ws_smem_addr(bar)) : "memory");
#else
    __trap();
#endif
}
__device__ __forceinline__ void ws_mbarrier_arrive_expect_tx(ws_mbarrier* bar, unsigned int bytes) {
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"(ws_smem_addr(bar)), "r"(bytes) : "memory");
#else
    __trap();
#endif
}
// Whether the phase of parity `parity` has completed (acquire, cta).
__device__ __forceinline__ bool ws_mbarrier_try_wait(ws_mbarrier* bar, unsigned int parity) {
#if __CUDA_ARCH__ >= 900
    unsigned int done;
    asm volatile("{ .reg .pred ws_p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 ws_p, [%1], %2; selp.u32 %0, 1, 0, ws_p; }" : "=r"(done) : "r"(ws_smem_addr(bar)), "r"(parity & 1u) : "memory");
    return done != 0u;
#else
    __trap();
    return true;
#endif
}
__device__ __forceinline__ void ws_mbarrier_wait(ws_mbarrier* bar, unsigned int parity) {
    while (!ws_mbarrier_try_wait(bar, parity)) {}
}
__device__ __forceinline__ void ws_fence_mbarrier_init() {
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
    __trap();
#endif
}
__device__ __forceinline__ void ws_fence_proxy_async() {
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
    __trap();
#endif
}
// `tma_load_2d(dst, map, row, col, bar)`: the box at (row, col) into `dst` (`dn` elements),
// completing its bytes on `bar`. A tile of another length than the box, or not aligned as
// the map needs, is recorded as an out-of-bounds index (length: index `dn`, length the box's
// elements; alignment: index the address mod the alignment, length the alignment),
// nothing is copied, and the box's bytes complete on `bar` all the same.
template <typename T> __device__ __forceinline__ void ws_tma_load_2d(T* dst, unsigned long long dn, const ws_tensor_map* map, unsigned long long box, int row, int col, ws_mbarrier* bar, unsigned int line, const char* file) {
    const unsigned long long elems = box & 0xffffffffull;
    const unsigned int align = (unsigned int)(box >> 32);
    const unsigned int d = ws_smem_addr(dst);
    // The TMA needs the box's first column at a 16-byte boundary of its row (else the
    // instruction faults: an illegal instruction, measured on an H100).
    const long long col_bytes = (long long)col * (long long)sizeof(T);
    const unsigned long long col_rem = (unsigned long long)(((col_bytes % 16) + 16) % 16);
    const bool bad_len = dn != elems, bad_align = d % align != 0u, bad_col = col_rem != 0ull;
    if (bad_len || bad_align || bad_col) {
        if (bad_len) ws_oob_report(dn, elems, line, file);
        else if (bad_align) ws_oob_report(d % align, align, line, file);
        else ws_oob_report(col_rem, 16ull, line, file);
#if __CUDA_ARCH__ >= 900
        // The box's bytes still complete, so the waiters do not hang on a copy never made.
        asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], %1;" :: "r"(ws_smem_addr(bar)), "r"((unsigned int)(elems * sizeof(T))) : "memory");
#endif
        return;
    }
#if __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(d), "l"((unsigned long long)map), "r"(col), "r"(row), "r"(ws_smem_addr(bar)) : "memory");
#else
    __trap();
#endif
}
#endif // WS_HOST_SHIM
