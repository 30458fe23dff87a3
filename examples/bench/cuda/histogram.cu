// The 256-bin byte histograms of examples/kernels/histogram.rs, (a) to (f), written by
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
    unsigned char prev = 0;  // the run's bin; an empty run (accumulator 0) is never added
    unsigned int accumulator = 0;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < n; i += stride) {
        int bin = buffer[i];
        if (bin != (int)prev) {
            if (accumulator > 0) atomicAdd(&bins[prev], accumulator);
            prev = (unsigned char)bin;
            accumulator = 1;
        } else {
            accumulator++;
        }
    }
    if (accumulator > 0) atomicAdd(&bins[prev], accumulator);
    merge_bins(bins, histo);
}

// (e) privatised, 4 bytes per load: `words` holds the `len` bytes as little-endian words;
// the grid counts the len / 4 full words, the first thread the 0 to 3 bytes after them.
extern "C" __global__ void hist_words(const unsigned int* __restrict__ words,
                                      unsigned long long nwords, unsigned long long len,
                                      unsigned int* __restrict__ histo) {
    __shared__ unsigned int bins[256];
    zero_bins(bins);
    unsigned long long full = len / 4 < nwords ? len / 4 : nwords;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned long long i = first; i < full; i += stride) {
        unsigned int w = words[i];
        atomicAdd(&bins[w & 0xffu], 1u);
        atomicAdd(&bins[(w >> 8) & 0xffu], 1u);
        atomicAdd(&bins[(w >> 16) & 0xffu], 1u);
        atomicAdd(&bins[w >> 24], 1u);
    }
    if (first == 0 && full < nwords) {
        unsigned int w = words[full];
        for (unsigned long long k = 0; k < len % 4; k++) {
            atomicAdd(&bins[(w >> (8 * k)) & 0xffu], 1u);
        }
    }
    merge_bins(bins, histo);
}

// (f) per-lane columns: bin b of lane l at cols[b * 32 + l] (bank l), so a warp's 32 shared
// atomics hit 32 banks whatever the bytes; 4 independent words per thread and round; 16
// equal bytes count with one atomic. 1024 threads per block (32 KiB of bins for 32 warps).
extern "C" __global__ void hist_lanes(const unsigned int* __restrict__ words,
                                      unsigned long long nwords, unsigned long long len,
                                      unsigned int* __restrict__ histo) {
    __shared__ unsigned int cols[256 * 32];
    for (unsigned int k = threadIdx.x; k < 256 * 32; k += blockDim.x) cols[k] = 0u;
    __syncthreads();
    unsigned int lane = threadIdx.x & 31u;
    unsigned long long full = len / 4 < nwords ? len / 4 : nwords;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long i = first;
    if (3 * stride < full) {
        for (unsigned long long limit = full - 3 * stride; i < limit; i += 4 * stride) {
            unsigned int w[4] = {words[i], words[i + stride], words[i + 2 * stride],
                                 words[i + 3 * stride]};
            unsigned int diff = w[0] ^ ((w[0] & 0xffu) * 0x01010101u);
#pragma unroll
            for (int j = 1; j < 4; j++) diff |= w[j] ^ w[0];
            if (diff == 0) {
                atomicAdd(&cols[(w[0] & 0xffu) * 32 + lane], 16u);
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++) {
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        atomicAdd(&cols[((w[j] >> (8 * k)) & 0xffu) * 32 + lane], 1u);
                    }
                }
            }
        }
    }
    for (; i < full; i += stride) {
        unsigned int w = words[i];
#pragma unroll
        for (int k = 0; k < 4; k++) atomicAdd(&cols[((w >> (8 * k)) & 0xffu) * 32 + lane], 1u);
    }
    if (first == 0 && full < nwords) {
        unsigned int w = words[full];
        for (unsigned long long k = 0; k < len % 4; k++) {
            atomicAdd(&cols[((w >> (8 * k)) & 0xffu) * 32 + lane], 1u);
        }
    }
    __syncthreads();
    // Bin b sums its 32 columns from column b % 32 on: a warp's lanes read 32 banks.
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned int count = 0;
        for (unsigned int l = 0; l < 32; l++) count += cols[b * 32 + ((b + l) & 31u)];
        if (count > 0) atomicAdd(&histo[b], count);
    }
}
