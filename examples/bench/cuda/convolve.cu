// The 2-D convolutions of examples/kernels/convolve.rs, written by hand (usize = unsigned
// long long; zeros outside the image; --fmad=false like warpspeed's kernels).

extern "C" __global__ void convolve_naive_hand(float* __restrict__ result,
                                               const float* __restrict__ mask,
                                               const float* __restrict__ image,
                                               unsigned long long rows, unsigned long long cols,
                                               unsigned long long mask_rows,
                                               unsigned long long mask_cols) {
    unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long i = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= rows || j >= cols) return;
    unsigned long long dr = mask_rows / 2, dc = mask_cols / 2;
    float s = 0.0f;
    for (unsigned long long k = 0; k < mask_rows; k++) {
        for (unsigned long long l = 0; l < mask_cols; l++) {
            if (i + dr >= k && i + dr - k < rows && j + dc >= l && j + dc - l < cols) {
                s += mask[k * mask_cols + l] * image[(i + dr - k) * cols + (j + dc - l)];
            }
        }
    }
    result[i * cols + j] = s;
}

// Blocks of 32x32 threads: the mask (<= 13x13) and the block's tile with its halo
// (<= 44x44) in shared memory.
extern "C" __global__ void __launch_bounds__(1024) convolve_shared_hand(float* __restrict__ result,
                                                const float* __restrict__ mask,
                                                const float* __restrict__ image,
                                                unsigned long long rows, unsigned long long cols,
                                                unsigned long long mask_rows,
                                                unsigned long long mask_cols) {
    __shared__ float tile[44][44];
    __shared__ float smask[169];
    unsigned long long tx = threadIdx.x, ty = threadIdx.y;
    unsigned long long t = ty * 32 + tx;
    unsigned long long i0 = (unsigned long long)blockIdx.y * 32;
    unsigned long long j0 = (unsigned long long)blockIdx.x * 32;
    if (mask_rows > 13 || mask_cols > 13) return;
    unsigned long long dr = mask_rows / 2, dc = mask_cols / 2;
    if (t < mask_rows * mask_cols) smask[t] = mask[t];
    unsigned long long tile_rows = 32 + 2 * dr, tile_cols = 32 + 2 * dc;
    for (unsigned long long r = ty; r < tile_rows; r += 32) {
        for (unsigned long long c = tx; c < tile_cols; c += 32) {
            bool inside = i0 + r >= dr && i0 + r - dr < rows && j0 + c >= dc && j0 + c - dc < cols;
            tile[r][c] = inside ? image[(i0 + r - dr) * cols + (j0 + c - dc)] : 0.0f;
        }
    }
    __syncthreads();
    unsigned long long i = i0 + ty, j = j0 + tx;
    if (i < rows && j < cols) {
        float s = 0.0f;
        unsigned long long kn = mask_rows < 2 * dr + 1 ? mask_rows : 2 * dr + 1;
        unsigned long long ln = mask_cols < 2 * dc + 1 ? mask_cols : 2 * dc + 1;
        for (unsigned long long k = 0; k < kn; k++) {
            for (unsigned long long l = 0; l < ln; l++) {
                s += smask[k * mask_cols + l] * tile[ty + 2 * dr - k][tx + 2 * dc - l];
            }
        }
        result[i * cols + j] = s;
    }
}
