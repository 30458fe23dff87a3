// The 256-bin byte histograms of examples/kernels/histogram.rs, (a) to (e), written by
// hand: the same partitioning, the same atomics, usize = unsigned long long. No headers.

// (a) global atomics, block partitioning: thread t counts bytes t * section ..
extern "C" __global__ void hist_global_block(const unsigned char* __restrict__ buffer,
                                             unsigned long long n,
                                             unsigned int* __restrict__ histo) {
    unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long section = (n + threads - 1) / threads;
    unsigned long long start = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * section;
    for (unsigned long long k = 0; k < section; k++) {
        if (start + k < n) atomicAdd(&histo[buffer[start + k]], 1u);
    }
}

// (b) global atomics, interleaved (grid-stride loop).
extern "C" __global__ void hist_global_interleaved(const unsigned char* __restrict__ buffer,
                                                   unsigned long long n,
                                                   unsigned int* __restrict__ histo) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        atomicAdd(&histo[buffer[i]], 1u);
    }
}

// Shared bins: zeroed by the block, merged into the global bins (one atomic per non-zero
// bin and block).
__device__ void zero_bins(unsigned int* bins) {
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) bins[b] = 0u;
    __syncthreads();
}

__device__ void merge_bins(const unsigned int* bins, unsigned int* __restrict__ histo) {
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned int count = bins[b];
        if (count > 0) atomicAdd(&histo[b], count);
    }
}

// (c) privatised: per-block bins in shared memory.
extern "C" __global__ void hist_privatized(const unsigned char* __restrict__ buffer,
                                           unsigned long long n,
                                           unsigned int* __restrict__ histo) {
    __shared__ unsigned int bins[256];
    zero_bins(bins);
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        atomicAdd(&bins[buffer[i]], 1u);
    }
    merge_bins(bins, histo);
}

// (d) privatised with aggregation: one shared atomic per run of equal bytes.
extern "C" __global__ void hist_aggregated(const unsigned char* __restrict__ buffer,
                                           unsigned long long n,
                                           unsigned int* __restrict__ histo) {
    __shared__ unsigned int bins[256];
    zero_bins(bins);
    int prev = -1;
    unsigned int accumulator = 0;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        int bin = buffer[i];
        if (bin != prev) {
            if (accumulator > 0) atomicAdd(&bins[prev], accumulator);
            prev = bin;
            accumulator = 1;
        } else {
            accumulator++;
        }
    }
    if (accumulator > 0) atomicAdd(&bins[prev], accumulator);
    merge_bins(bins, histo);
}

// (e) privatised, 4 bytes per load: `words` holds the `len` bytes as little-endian words.
extern "C" __global__ void hist_words(const unsigned int* __restrict__ words,
                                      unsigned long long nwords, unsigned long long len,
                                      unsigned int* __restrict__ histo) {
    __shared__ unsigned int bins[256];
    zero_bins(bins);
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < nwords; i += stride) {
        unsigned int w = words[i];
        if (4 * i + 4 <= len) {
            atomicAdd(&bins[w & 0xffu], 1u);
            atomicAdd(&bins[(w >> 8) & 0xffu], 1u);
            atomicAdd(&bins[(w >> 16) & 0xffu], 1u);
            atomicAdd(&bins[w >> 24], 1u);
        } else {
            for (unsigned long long k = 0; k < len - 4 * i; k++) {
                atomicAdd(&bins[(w >> (8 * k)) & 0xffu], 1u);
            }
        }
    }
    merge_bins(bins, histo);
}
