// Scans, written by hand: the kernels of examples/kernels/scan.rs as a CUDA programmer would
// write them (usize = unsigned long long, the same shared-memory layout, the same
// barriers). No headers (NVRTC has none).

// Seed 000's naive (Hillis-Steele) inclusive scan of 1024 f64 in one block of 1024
// threads: read, barrier, write; 10 steps.
extern "C" __global__ void naive_prefix_hand(const double* __restrict__ vec,
                                             double* __restrict__ out) {
    __shared__ double sum_buf[1024];
    unsigned long long tid = threadIdx.x;
    sum_buf[tid] = vec[tid];
    unsigned long long iter = 1;
    for (int step = 0; step < 10; step++) {
        __syncthreads();
        double v = tid >= iter ? sum_buf[tid] + sum_buf[tid - iter] : sum_buf[tid];
        __syncthreads();
        sum_buf[tid] = v;
        iter *= 2;
    }
    __syncthreads();
    out[tid] = sum_buf[tid];
}

// The Blelloch scan of one tile of 2 * blockDim.x u32 per block (wrapping +): the tile
// in shared memory with one padding slot every 32 elements, up-sweep, the total to
// sums[block], down-sweep, the inclusive scan adds each element back. Past the end of
// `input` the tile holds 0.
#define PAD(i) ((i) + ((i) >> 5))

extern "C" __global__ void blelloch_tiles_u32_hand(const unsigned int* __restrict__ input,
                                                   unsigned long long n,
                                                   unsigned int* __restrict__ out,
                                                   unsigned int* __restrict__ sums,
                                                   bool inclusive) {
    __shared__ unsigned int temp[2112];
    unsigned int tid = threadIdx.x;
    unsigned int half = blockDim.x;
    unsigned int tile = 2 * half;
    unsigned long long base = (unsigned long long)blockIdx.x * tile;
    unsigned int ai = tid, bi = tid + half;
    unsigned long long ga = base + ai, gb = base + bi;
    unsigned int xa = ga < n ? input[ga] : 0u;
    unsigned int xb = gb < n ? input[gb] : 0u;
    temp[PAD(ai)] = xa;
    temp[PAD(bi)] = xb;

    unsigned int offset = 1;
    for (unsigned int d = half; d > 0; d /= 2) {
        __syncthreads();
        if (tid < d) {
            unsigned int i = (offset * (2 * tid + 1) - 1) & 2047u;
            unsigned int j = (offset * (2 * tid + 2) - 1) & 2047u;
            temp[PAD(j)] += temp[PAD(i)];
        }
        offset *= 2;
    }
    __syncthreads();
    if (tid == 0) {
        unsigned int last = PAD(tile - 1);
        sums[blockIdx.x] = temp[last];
        temp[last] = 0u;
    }

    for (unsigned int d = 1; d < tile; d *= 2) {
        offset /= 2;
        __syncthreads();
        if (tid < d) {
            unsigned int i = (offset * (2 * tid + 1) - 1) & 2047u;
            unsigned int j = (offset * (2 * tid + 2) - 1) & 2047u;
            unsigned int left = temp[PAD(i)];
            temp[PAD(i)] = temp[PAD(j)];
            temp[PAD(j)] += left;
        }
    }
    __syncthreads();

    unsigned int ea = temp[PAD(ai)], eb = temp[PAD(bi)];
    if (ga < n) out[ga] = inclusive ? ea + xa : ea;
    if (gb < n) out[gb] = inclusive ? eb + xb : eb;
}

// Adds offsets[i >> tile_log2] (the scanned totals of the tiles before i's) to data[i].
extern "C" __global__ void add_tile_offsets_u32_hand(unsigned int* __restrict__ data,
                                                     unsigned long long n,
                                                     const unsigned int* __restrict__ offsets,
                                                     unsigned int tile_log2) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += offsets[i >> tile_log2];
}

// Seed 000's host-synchronised work-efficient scan (examples/kernels/scan.rs,
// seed_scan_plan): level k of the up-sweep and of the down-sweep, one thread per pair,
// reading the previous level from *_old; and the copy between the levels, which can set the
// last element to `last`.
extern "C" __global__ void seed_up_sweep_hand(double* __restrict__ x,
                                              const double* __restrict__ x_old,
                                              unsigned long long n, unsigned int k) {
    unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long two_k = 1ull << k, two_k1 = 1ull << (k + 1);
    unsigned long long j = tid * two_k1;
    if (j + two_k1 - 1 < n) x[j + two_k1 - 1] = x_old[j + two_k - 1] + x_old[j + two_k1 - 1];
}

extern "C" __global__ void seed_down_sweep_hand(double* __restrict__ y,
                                                const double* __restrict__ y_old,
                                                unsigned long long n, unsigned int k) {
    unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long two_k = 1ull << k, two_k1 = 1ull << (k + 1);
    unsigned long long j = tid * two_k1;
    if (j + two_k1 - 1 < n) {
        y[j + two_k - 1] = y_old[j + two_k1 - 1];
        y[j + two_k1 - 1] = y_old[j + two_k1 - 1] + y_old[j + two_k - 1];
    }
}

extern "C" __global__ void copy_f64_hand(double* __restrict__ dst,
                                         const double* __restrict__ src, unsigned long long n,
                                         unsigned int set_last, double last) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = set_last && i + 1 == n ? last : src[i];
}
