// The f32 matrix multiplications of examples/kernels/matmul.rs, written by hand (A is m x k,
// B is k x n, row-major; usize = unsigned long long). Compiled with warpspeed's options
// (--fmad=false), so `acc += a * b` rounds the product and the sum separately, as Rust does;
// `fmaf` is Rust's `mul_add`.

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
extern "C" __global__ void __launch_bounds__(256) matmul_tiled_hand(float* __restrict__ c, const float* __restrict__ a,
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

// Register-tiled (docs/matmul.md): blocks of 16x16 threads, a 128x128 tile of C per block and
// 8x8 elements per thread in registers; 128x8 slabs of A (transposed, rows padded to 132) and
// 8x128 slabs of B in two shared buffers; the next slab's loads in flight in registers while
// the current one is multiplied; zeros outside A and B, no stores outside C.
extern "C" __global__ void __launch_bounds__(256)
    matmul_reg_hand(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
                    unsigned long long m, unsigned long long k, unsigned long long n) {
    __shared__ float sa[16][132];
    __shared__ float sb[16][128];
    unsigned long long tx = threadIdx.x, ty = threadIdx.y;
    unsigned long long tid = ty * 16 + tx;
    unsigned long long bm = (unsigned long long)blockIdx.y * 128;
    unsigned long long bn = (unsigned long long)blockIdx.x * 128;
    unsigned long long a_row = tid / 2, a_col = tid % 2 * 4;
    unsigned long long b_row = tid / 32, b_col = tid % 32;
    float pa[4], pb[4];
#pragma unroll
    for (unsigned long long j = 0; j < 4; j++) {
        unsigned long long row = bm + a_row, col = a_col + j;
        pa[j] = row < m && col < k ? a[row * k + col] : 0.0f;
        col = bn + b_col + 32 * j;
        pb[j] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
    }
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; i++) acc[i] = 0.0f;
    unsigned long long slabs = (k + 7) / 8;
    for (unsigned long long s = 0; s < slabs; s++) {
        unsigned long long buf = s % 2 * 8;
#pragma unroll
        for (unsigned long long j = 0; j < 4; j++) {
            sa[buf + a_col + j][a_row] = pa[j];
            sb[buf + b_row][b_col + 32 * j] = pb[j];
        }
        __syncthreads();
        unsigned long long ka = (s + 1) * 8 + a_col, kb = (s + 1) * 8 + b_row;
#pragma unroll
        for (unsigned long long j = 0; j < 4; j++) {
            unsigned long long row = bm + a_row, col = ka + j;
            pa[j] = row < m && col < k ? a[row * k + col] : 0.0f;
            col = bn + b_col + 32 * j;
            pb[j] = kb < k && col < n ? b[kb * n + col] : 0.0f;
        }
#pragma unroll
        for (unsigned long long kk = 0; kk < 8; kk++) {
            float fa[8], fb[8];
#pragma unroll
            for (unsigned long long i = 0; i < 4; i++) {
                fa[i] = sa[buf + kk][ty * 4 + i];
                fa[4 + i] = sa[buf + kk][64 + ty * 4 + i];
                fb[i] = sb[buf + kk][tx * 4 + i];
                fb[4 + i] = sb[buf + kk][64 + tx * 4 + i];
            }
#pragma unroll
            for (unsigned long long i = 0; i < 8; i++)
#pragma unroll
                for (unsigned long long j = 0; j < 8; j++)
                    acc[i * 8 + j] = fmaf(fa[i], fb[j], acc[i * 8 + j]);
        }
    }
#pragma unroll
    for (unsigned long long i = 0; i < 8; i++) {
        unsigned long long row = bm + i / 4 * 64 + ty * 4 + i % 4;
#pragma unroll
        for (unsigned long long j = 0; j < 8; j++) {
            unsigned long long col = bn + j / 4 * 64 + tx * 4 + j % 4;
            if (row < m && col < n) c[row * n + col] = acc[i * 8 + j];
        }
    }
}
