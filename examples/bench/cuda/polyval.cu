// Horner's method at many points (examples/kernels/polyval.rs), written by hand; with
// warpspeed's options (--fmad=false) `val * x + c` rounds twice, as in Rust.

extern "C" __global__ void polyval_f32_hand(float* __restrict__ result,
                                            const float* __restrict__ x, unsigned long long n,
                                            const float* __restrict__ coeffs,
                                            unsigned long long ncoeffs) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = x[i];
    float val = coeffs[0];
    for (unsigned long long k = 1; k < ncoeffs; k++) val = val * xi + coeffs[k];
    result[i] = val;
}
