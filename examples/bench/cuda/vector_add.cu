// Vector add (examples/kernels/vector_add.rs) and an empty kernel (launch overhead),
// written by hand. No headers.

extern "C" __global__ void vector_add_hand(const float* __restrict__ a,
                                           const float* __restrict__ b,
                                           float* __restrict__ out, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

extern "C" __global__ void empty_hand() {}
