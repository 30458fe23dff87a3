// Vector add (examples/kernels/vector_add.rs), on float and on float4, a copy of float4s,
// and an empty kernel (launch overhead), written by hand. No headers: float4 is this file's
// own struct, aligned as CUDA's, so each access is one ld.global.v4.f32 / st.global.v4.f32.

struct __align__(16) float4_hand { float x, y, z, w; };

extern "C" __global__ void vector_add_hand(const float* __restrict__ a,
                                           const float* __restrict__ b,
                                           float* __restrict__ out, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

extern "C" __global__ void vector_add4_hand(const float4_hand* __restrict__ a,
                                            const float4_hand* __restrict__ b,
                                            float4_hand* __restrict__ out, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float4_hand x = a[i], y = b[i];
        float4_hand r;
        r.x = x.x + y.x; r.y = x.y + y.y; r.z = x.z + y.z; r.w = x.w + y.w;
        out[i] = r;
    }
}

extern "C" __global__ void copy4_hand(const float4_hand* __restrict__ src,
                                      float4_hand* __restrict__ dst, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}

extern "C" __global__ void empty_hand() {}
