// ---- tensor cores (docs/tensor-cores.md): a fragment is its lane's elements `x`, in the
// order of the PTX ISA's fragment tables (warpspeed::mma::fragment_owner). Two 16-bit
// elements share a .b32 register, the lower index in the low half. The helpers are
// templates, instantiated only by a kernel that calls them, so that a kernel without
// tensor cores still compiles for GPUs before sm_80. CUDA only: outside the host C++ test of
// the semantics (WS_HOST_SHIM).
#ifndef WS_HOST_SHIM
template <typename T, int N> struct ws_frag { T x[N]; };
// 16-bit fragments (f16, bf16) are held packed, two elements a .b32 word, as the
// instructions read and write them: `x[i]` is the half `i % 2` of word `i / 2`, through a
// reference object (`ws_half_ref`). Held one element a register instead, an attention
// kernel's P (8 wgmma A fragments) took 64 registers where 32 do, and spilled; and every
// wgmma that read one repacked it first.
template <typename H> struct ws_half_ref {
    unsigned int* w;
    unsigned int hi;
    __device__ __forceinline__ operator H() const { H h; h.bits = (unsigned short)(*w >> (16u * hi)); return h; }
    __device__ __forceinline__ const ws_half_ref& operator=(H v) const {
        const unsigned int s = 16u * hi;
        *w = (*w & ~(0xffffu << s)) | ((unsigned int)v.bits << s);
        return *this;
    }
    __device__ __forceinline__ const ws_half_ref& operator=(const ws_half_ref& o) const { return *this = (H)o; }
    // `*ws_at(f.x, i, ..)` is the element itself.
    __device__ __forceinline__ ws_half_ref operator*() const { return *this; }
};
template <typename H, int N> struct ws_half_arr {
    unsigned int w[N / 2];
    __device__ __forceinline__ ws_half_ref<H> operator[](unsigned long long i) { return ws_half_ref<H>{&w[i / 2], (unsigned int)(i % 2)}; }
    __device__ __forceinline__ H operator[](unsigned long long i) const { H h; h.bits = (unsigned short)(w[i / 2] >> (16u * (unsigned int)(i % 2))); return h; }
};
template <int N> struct ws_frag<ws_f16, N> { ws_half_arr<ws_f16, N> x; };
template <int N> struct ws_frag<ws_bf16, N> { ws_half_arr<ws_bf16, N> x; };
// The checked element accesses of prelude.cuh for a packed fragment.
template <typename H, int N> __device__ __forceinline__ ws_half_ref<H> ws_at(ws_half_arr<H, N>& a, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(i < n, 1)) return a[i];
    ws_oob_report(i, n, line, file);
    return ws_half_ref<H>{(unsigned int*)(void*)ws_oob_sink, 0u};
}
template <typename H, int N> __device__ __forceinline__ H ws_ld(const ws_half_arr<H, N>& a, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(i < n, 1)) return a[i];
    ws_oob_report(i, n, line, file);
    H h; h.bits = 0; return h;
}
template <typename H> __device__ __forceinline__ unsigned int ws_frag_pack(H lo, H hi) {
    return (unsigned int)lo.bits | ((unsigned int)hi.bits << 16);
}
template <typename H> __device__ __forceinline__ unsigned int ws_frag_pack(ws_half_ref<H> lo, ws_half_ref<H> hi) {
    return ws_frag_pack((H)lo, (H)hi);
}
template <typename H> __device__ __forceinline__ void ws_frag_unpack(unsigned int w, H* lo, H* hi) {
    lo->bits = (unsigned short)(w & 0xffffu);
    hi->bits = (unsigned short)(w >> 16);
}
// Elements 2 j and 2 j + 1 of a 16-bit fragment from one .b32 word (lo in the low half).
template <typename T, int N> __device__ __forceinline__ void ws_frag_set_pair(ws_frag<T, N>* f, int j, unsigned int w) {
    ws_frag_unpack(w, &f->x[2 * j], &f->x[2 * j + 1]);
}
template <int N> __device__ __forceinline__ void ws_frag_set_pair(ws_frag<ws_f16, N>* f, int j, unsigned int w) { f->x.w[j] = w; }
template <int N> __device__ __forceinline__ void ws_frag_set_pair(ws_frag<ws_bf16, N>* f, int j, unsigned int w) { f->x.w[j] = w; }
// `a.load_acc(acc, j)`: a wgmma's register A (8 16-bit elements a thread) from columns
// 16 j .. 16 j + 15 of an f32 wgmma accumulator, whose layout is the same element for
// element (warpspeed::mma::wgmma_a_owner): x[e] = T::from_f32(acc.x[8 j + e]) but that a
// NaN becomes the canonical NaN 0x7fff, as `cvt.rn.{bf16,f16}x2.f32` gives it (measured on
// an H100). Two elements an instruction, and no branch: a branch here (a NaN test choosing
// the element-wise conversion) made ptxas wait for every wgmma in flight before the
// softmax around it. `slabs` = N / 16.
__device__ __forceinline__ unsigned int ws_cvt_pair_f32(float lo, float hi, ws_bf16*) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned int w; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo)); return w;
#else
    const unsigned int l = ws_cvt_bf16_f32(lo), h = ws_cvt_bf16_f32(hi);
    return ((lo != lo) ? 0x7fffu : l) | (((hi != hi) ? 0x7fffu : h) << 16);
#endif
}
__device__ __forceinline__ unsigned int ws_cvt_pair_f32(float lo, float hi, ws_f16*) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned int w; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo)); return w;
#else
    const unsigned int l = ws_f16_from_f32(lo).bits, h = ws_f16_from_f32(hi).bits;
    return ((lo != lo) ? 0x7fffu : l) | (((hi != hi) ? 0x7fffu : h) << 16);
#endif
}
template <typename T, int N> __device__ __forceinline__ void ws_frag_load_acc(ws_frag<T, 8>* a, const ws_frag<float, N>& acc, unsigned long long j, unsigned long long slabs, unsigned int line, const char* file) {
    if (j >= slabs) { ws_oob_report(j, slabs, line, file); return; }
    const float* x = &acc.x[8 * j];
    for (int e = 0; e < 4; e++) ws_frag_set_pair(a, e, ws_cvt_pair_f32(x[2 * e], x[2 * e + 1], (T*)0));
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k16_f32_f16(D* d, const ws_frag<ws_f16, 8>& a, const ws_frag<ws_f16, 4>& b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d->x[0]), "+f"(d->x[1]), "+f"(d->x[2]), "+f"(d->x[3])
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(a.x[4], a.x[5])), "r"(ws_frag_pack(a.x[6], a.x[7])),
          "r"(ws_frag_pack(b.x[0], b.x[1])), "r"(ws_frag_pack(b.x[2], b.x[3])));
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k16_f32_bf16(D* d, const ws_frag<ws_bf16, 8>& a, const ws_frag<ws_bf16, 4>& b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d->x[0]), "+f"(d->x[1]), "+f"(d->x[2]), "+f"(d->x[3])
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(a.x[4], a.x[5])), "r"(ws_frag_pack(a.x[6], a.x[7])),
          "r"(ws_frag_pack(b.x[0], b.x[1])), "r"(ws_frag_pack(b.x[2], b.x[3])));
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k8_f32_bf16(D* d, const ws_frag<ws_bf16, 4>& a, const ws_frag<ws_bf16, 2>& b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
        : "+f"(d->x[0]), "+f"(d->x[1]), "+f"(d->x[2]), "+f"(d->x[3])
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(b.x[0], b.x[1])));
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k16_f16_f16(D* d, const ws_frag<ws_f16, 8>& a, const ws_frag<ws_f16, 4>& b) {
    unsigned int c0 = ws_frag_pack(d->x[0], d->x[1]), c1 = ws_frag_pack(d->x[2], d->x[3]);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
        : "+r"(c0), "+r"(c1)
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(a.x[4], a.x[5])), "r"(ws_frag_pack(a.x[6], a.x[7])),
          "r"(ws_frag_pack(b.x[0], b.x[1])), "r"(ws_frag_pack(b.x[2], b.x[3])));
    ws_frag_set_pair(d, 0, c0);
    ws_frag_set_pair(d, 1, c1);
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k8_f32_f16(D* d, const ws_frag<ws_f16, 4>& a, const ws_frag<ws_f16, 2>& b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
        : "+f"(d->x[0]), "+f"(d->x[1]), "+f"(d->x[2]), "+f"(d->x[3])
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(b.x[0], b.x[1])));
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k8_f16_f16(D* d, const ws_frag<ws_f16, 4>& a, const ws_frag<ws_f16, 2>& b) {
    unsigned int c0 = ws_frag_pack(d->x[0], d->x[1]), c1 = ws_frag_pack(d->x[2], d->x[3]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};"
        : "+r"(c0), "+r"(c1)
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(b.x[0], b.x[1])));
    ws_frag_set_pair(d, 0, c0);
    ws_frag_set_pair(d, 1, c1);
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k8_f32_tf32(D* d, const ws_frag<float, 4>& a, const ws_frag<float, 2>& b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d->x[0]), "+f"(d->x[1]), "+f"(d->x[2]), "+f"(d->x[3])
        : "r"(__float_as_uint(a.x[0])), "r"(__float_as_uint(a.x[1])),
          "r"(__float_as_uint(a.x[2])), "r"(__float_as_uint(a.x[3])),
          "r"(__float_as_uint(b.x[0])), "r"(__float_as_uint(b.x[1])));
}
// m16n8k32: 8-bit A and B elements, four to a .b32 register, the lowest index in the low
// byte. Integers accumulate into .s32, wrapping (no .satfinite); fp8 into .f32, sm_89 and
// later (runtime/src/cuda/compile/arch.rs refuses such a kernel on older GPUs; compiled for
// one anyway, the helper traps).
__device__ __forceinline__ unsigned int ws_mma_byte(signed char v) { return (unsigned char)v; }
__device__ __forceinline__ unsigned int ws_mma_byte(unsigned char v) { return v; }
__device__ __forceinline__ unsigned int ws_mma_byte(ws_e4m3 v) { return v.bits; }
__device__ __forceinline__ unsigned int ws_mma_byte(ws_e5m2 v) { return v.bits; }
template <typename E> __device__ __forceinline__ unsigned int ws_frag_pack4(const E* x) {
    return ws_mma_byte(x[0]) | (ws_mma_byte(x[1]) << 8) | (ws_mma_byte(x[2]) << 16) | (ws_mma_byte(x[3]) << 24);
}
// The asm of one m16n8k32 (`con` "r" for .s32, "f" for .f32), D = C = *d.
#define WS_MMA_K32(ptx, con) \
    asm volatile(ptx " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
        : "+" con(d->x[0]), "+" con(d->x[1]), "+" con(d->x[2]), "+" con(d->x[3]) \
        : "r"(ws_frag_pack4(a.x)), "r"(ws_frag_pack4(a.x + 4)), "r"(ws_frag_pack4(a.x + 8)), "r"(ws_frag_pack4(a.x + 12)), \
          "r"(ws_frag_pack4(b.x)), "r"(ws_frag_pack4(b.x + 4)))
#if __CUDA_ARCH__ >= 890
#define WS_MMA_K32_FP8(ptx) WS_MMA_K32(ptx, "f")
#else
#define WS_MMA_K32_FP8(ptx) __trap()
#endif
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_s32_s8(D* d, const ws_frag<signed char, 16>& a, const ws_frag<signed char, 8>& b) {
    WS_MMA_K32("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "r");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_s32_u8(D* d, const ws_frag<unsigned char, 16>& a, const ws_frag<unsigned char, 8>& b) {
    WS_MMA_K32("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", "r");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_s32_s8_u8(D* d, const ws_frag<signed char, 16>& a, const ws_frag<unsigned char, 8>& b) {
    WS_MMA_K32("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", "r");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_s32_u8_s8(D* d, const ws_frag<unsigned char, 16>& a, const ws_frag<signed char, 8>& b) {
    WS_MMA_K32("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", "r");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_f32_e4m3(D* d, const ws_frag<ws_e4m3, 16>& a, const ws_frag<ws_e4m3, 8>& b) {
    WS_MMA_K32_FP8("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_f32_e5m2(D* d, const ws_frag<ws_e5m2, 16>& a, const ws_frag<ws_e5m2, 8>& b) {
    WS_MMA_K32_FP8("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_f32_e4m3_e5m2(D* d, const ws_frag<ws_e4m3, 16>& a, const ws_frag<ws_e5m2, 8>& b) {
    WS_MMA_K32_FP8("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32");
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k32_f32_e5m2_e4m3(D* d, const ws_frag<ws_e5m2, 16>& a, const ws_frag<ws_e4m3, 8>& b) {
    WS_MMA_K32_FP8("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32");
}
#undef WS_MMA_K32_FP8
#undef WS_MMA_K32
// `frag.ldmatrix(&tile, row)`: lanes 0..8 * num each give the start of one 8-element row
// of the shared array (lanes 0-7 matrix 0, 8-15 matrix 1, ...), checked as the sub-slice
// `&tile[row..row + 8]` (a failing lane reads row 0 instead, after recording the failure);
// the other lanes' rows are not read, as PTX says. A row must be 16-byte aligned.
template <typename T> __device__ __forceinline__ unsigned int ws_ldmatrix_addr(T* tile, unsigned long long len, unsigned long long row, unsigned int num, unsigned int line, const char* file) {
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    if (lane < 8u * num && !ws_range_ok(row, row + 8ull, len, line, file)) row = 0ull;
    unsigned int addr;
    asm("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; cvt.u32.u64 %0, ws_a; }" : "=r"(addr) : "l"(tile + row));
    return addr;
}
template <typename F, typename T> __device__ __forceinline__ void ws_ldmatrix_x1(F* f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    unsigned int r[1];
    const unsigned int addr = ws_ldmatrix_addr(tile, len, row, 1u, line, file);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr) : "memory");
    for (int j = 0; j < 1; ++j) ws_frag_set_pair(f, j, r[j]);
}
template <typename F, typename T> __device__ __forceinline__ void ws_ldmatrix_x2(F* f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    unsigned int r[2];
    const unsigned int addr = ws_ldmatrix_addr(tile, len, row, 2u, line, file);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
    for (int j = 0; j < 2; ++j) ws_frag_set_pair(f, j, r[j]);
}
template <typename F, typename T> __device__ __forceinline__ void ws_ldmatrix_x4(F* f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    unsigned int r[4];
    const unsigned int addr = ws_ldmatrix_addr(tile, len, row, 4u, line, file);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
    for (int j = 0; j < 4; ++j) ws_frag_set_pair(f, j, r[j]);
}
template <typename F, typename T> __device__ __forceinline__ void ws_ldmatrix_x1_trans(F* f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    unsigned int r[1];
    const unsigned int addr = ws_ldmatrix_addr(tile, len, row, 1u, line, file);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr) : "memory");
    for (int j = 0; j < 1; ++j) ws_frag_set_pair(f, j, r[j]);
}
template <typename F, typename T> __device__ __forceinline__ void ws_ldmatrix_x2_trans(F* f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    unsigned int r[2];
    const unsigned int addr = ws_ldmatrix_addr(tile, len, row, 2u, line, file);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
    for (int j = 0; j < 2; ++j) ws_frag_set_pair(f, j, r[j]);
}
template <typename F, typename T> __device__ __forceinline__ void ws_ldmatrix_x4_trans(F* f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    unsigned int r[4];
    const unsigned int addr = ws_ldmatrix_addr(tile, len, row, 4u, line, file);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
    for (int j = 0; j < 4; ++j) ws_frag_set_pair(f, j, r[j]);
}
// `frag.stmatrix(&mut tile, row)` (sm_90): as ldmatrix, the other way. A lane whose row
// fails its check stores into a sink of its own instead, so nothing outside the array is
// written.
template <typename T> __device__ __forceinline__ unsigned int ws_stmatrix_addr(T* tile, unsigned long long len, unsigned long long row, unsigned int num, unsigned int line, const char* file) {
    __shared__ __align__(16) T ws_sink[8 * 32];
    unsigned int lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    T* p = tile + row;
    if (lane < 8u * num && !ws_range_ok(row, row + 8ull, len, line, file)) p = ws_sink + 8u * lane;
    unsigned int addr;
    asm("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; cvt.u32.u64 %0, ws_a; }" : "=r"(addr) : "l"(p));
    return addr;
}
template <typename F, typename T> __device__ __forceinline__ void ws_stmatrix_x1(const F& f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    const unsigned int addr = ws_stmatrix_addr(tile, len, row, 1u, line, file);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(addr), "r"(ws_frag_pack(f.x[0], f.x[1])) : "memory");
}
template <typename F, typename T> __device__ __forceinline__ void ws_stmatrix_x2(const F& f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    const unsigned int addr = ws_stmatrix_addr(tile, len, row, 2u, line, file);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" :: "r"(addr), "r"(ws_frag_pack(f.x[0], f.x[1])), "r"(ws_frag_pack(f.x[2], f.x[3])) : "memory");
}
template <typename F, typename T> __device__ __forceinline__ void ws_stmatrix_x4(const F& f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    const unsigned int addr = ws_stmatrix_addr(tile, len, row, 4u, line, file);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(ws_frag_pack(f.x[0], f.x[1])), "r"(ws_frag_pack(f.x[2], f.x[3])), "r"(ws_frag_pack(f.x[4], f.x[5])), "r"(ws_frag_pack(f.x[6], f.x[7])) : "memory");
}
template <typename F, typename T> __device__ __forceinline__ void ws_stmatrix_x1_trans(const F& f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    const unsigned int addr = ws_stmatrix_addr(tile, len, row, 1u, line, file);
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(addr), "r"(ws_frag_pack(f.x[0], f.x[1])) : "memory");
}
template <typename F, typename T> __device__ __forceinline__ void ws_stmatrix_x2_trans(const F& f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    const unsigned int addr = ws_stmatrix_addr(tile, len, row, 2u, line, file);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" :: "r"(addr), "r"(ws_frag_pack(f.x[0], f.x[1])), "r"(ws_frag_pack(f.x[2], f.x[3])) : "memory");
}
template <typename F, typename T> __device__ __forceinline__ void ws_stmatrix_x4_trans(const F& f, T* tile, unsigned long long len, unsigned long long row, unsigned int line, const char* file) {
    const unsigned int addr = ws_stmatrix_addr(tile, len, row, 4u, line, file);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(ws_frag_pack(f.x[0], f.x[1])), "r"(ws_frag_pack(f.x[2], f.x[3])), "r"(ws_frag_pack(f.x[4], f.x[5])), "r"(ws_frag_pack(f.x[6], f.x[7])) : "memory");
}
#endif // WS_HOST_SHIM
