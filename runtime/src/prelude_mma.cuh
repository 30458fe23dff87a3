// ---- tensor cores (docs/tensor-cores.md): a fragment is its lane's elements `x`, in the
// order of the PTX ISA's fragment tables (warpspeed::mma::fragment_owner). Two 16-bit
// elements share a .b32 register, the lower index in the low half. The helpers are
// templates, instantiated only by a kernel that calls them, so that a kernel without
// tensor cores still compiles for GPUs before sm_80.
template <typename T, int N> struct ws_frag { T x[N]; };
__device__ __forceinline__ unsigned int ws_frag_pack(ws_f16 lo, ws_f16 hi) {
    return (unsigned int)lo.bits | ((unsigned int)hi.bits << 16);
}
__device__ __forceinline__ void ws_frag_unpack(unsigned int w, ws_f16* lo, ws_f16* hi) {
    lo->bits = (unsigned short)(w & 0xffffu);
    hi->bits = (unsigned short)(w >> 16);
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k16_f32_f16(D* d, const ws_frag<ws_f16, 8>& a, const ws_frag<ws_f16, 4>& b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d->x[0]), "+f"(d->x[1]), "+f"(d->x[2]), "+f"(d->x[3])
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(a.x[4], a.x[5])), "r"(ws_frag_pack(a.x[6], a.x[7])),
          "r"(ws_frag_pack(b.x[0], b.x[1])), "r"(ws_frag_pack(b.x[2], b.x[3])));
}
template <typename D> __device__ __forceinline__ void ws_mma_m16n8k16_f16_f16(D* d, const ws_frag<ws_f16, 8>& a, const ws_frag<ws_f16, 4>& b) {
    unsigned int c0 = ws_frag_pack(d->x[0], d->x[1]), c1 = ws_frag_pack(d->x[2], d->x[3]);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
        : "+r"(c0), "+r"(c1)
        : "r"(ws_frag_pack(a.x[0], a.x[1])), "r"(ws_frag_pack(a.x[2], a.x[3])),
          "r"(ws_frag_pack(a.x[4], a.x[5])), "r"(ws_frag_pack(a.x[6], a.x[7])),
          "r"(ws_frag_pack(b.x[0], b.x[1])), "r"(ws_frag_pack(b.x[2], b.x[3])));
    ws_frag_unpack(c0, &d->x[0], &d->x[1]);
    ws_frag_unpack(c1, &d->x[2], &d->x[3]);
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
    ws_frag_unpack(c0, &d->x[0], &d->x[1]);
    ws_frag_unpack(c1, &d->x[2], &d->x[3]);
}
