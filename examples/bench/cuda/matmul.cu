// The f32 matrix multiplications of examples/kernels/matmul.rs, written by hand (A is m x k,
// B is k x n, row-major; usize = unsigned long long). Compiled with warpspeed's options
// (--fmad=false), so `acc += a * b` rounds the product and the sum separately, as Rust does.

extern "C" __global__ void matmul_naive_hand(float* __restrict__ c, const float* __restrict__ a,
                                             const float* __restrict__ b, unsigned long long m,
                                             unsigned long long k, unsigned long long n) {
    unsigned long long col = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long row = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (unsigned long long i = 0; i < k; i++) acc += a[row * k + i] * b[i * n + col];
        c[row * n + col] = acc;
    }
}

// Blocks of 16x16 threads: 16x16 tiles of A and B (zeros outside) in shared memory.
extern "C" __global__ void matmul_tiled_hand(float* __restrict__ c, const float* __restrict__ a,
                                             const float* __restrict__ b, unsigned long long m,
                                             unsigned long long k, unsigned long long n) {
    __shared__ float sa[16][16];
    __shared__ float sb[16][16];
    unsigned long long tx = threadIdx.x, ty = threadIdx.y;
    unsigned long long col = (unsigned long long)blockIdx.x * 16 + tx;
    unsigned long long row = (unsigned long long)blockIdx.y * 16 + ty;
    float acc = 0.0f;
    unsigned long long tiles = (k + 15) / 16;
    for (unsigned long long t = 0; t < tiles; t++) {
        unsigned long long ak = t * 16 + tx;
        sa[ty][tx] = row < m && ak < k ? a[row * k + ak] : 0.0f;
        unsigned long long bk = t * 16 + ty;
        sb[ty][tx] = bk < k && col < n ? b[bk * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 16; i++) acc += sa[ty][i] * sb[i][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[row * n + col] = acc;
}
