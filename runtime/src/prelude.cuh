// ---- warpspeed prelude: gives C the semantics of Rust's integer and float operations.
// Self-contained on purpose: NVRTC as users get it has no CUDA headers to include.

// The unsigned type, at least 32 bits wide, in which T's arithmetic wraps without
// undefined behaviour (C promotes u8/i16 to int, and signed overflow is undefined).
template <typename T> struct ws_int;
template <> struct ws_int<signed char>        { typedef unsigned int type;       enum { bits = 8,  is_signed = 1 }; };
template <> struct ws_int<unsigned char>      { typedef unsigned int type;       enum { bits = 8,  is_signed = 0 }; };
template <> struct ws_int<short>              { typedef unsigned int type;       enum { bits = 16, is_signed = 1 }; };
template <> struct ws_int<unsigned short>     { typedef unsigned int type;       enum { bits = 16, is_signed = 0 }; };
template <> struct ws_int<int>                { typedef unsigned int type;       enum { bits = 32, is_signed = 1 }; };
template <> struct ws_int<unsigned int>       { typedef unsigned int type;       enum { bits = 32, is_signed = 0 }; };
template <> struct ws_int<long long>          { typedef unsigned long long type; enum { bits = 64, is_signed = 1 }; };
template <> struct ws_int<unsigned long long> { typedef unsigned long long type; enum { bits = 64, is_signed = 0 }; };

// Wrapping +, -, * (Rust's release-mode overflow and wrapping_add/sub/mul).
template <typename T> __device__ __forceinline__ T ws_add(T a, T b) { typedef typename ws_int<T>::type U; return (T)((U)a + (U)b); }
template <typename T> __device__ __forceinline__ T ws_sub(T a, T b) { typedef typename ws_int<T>::type U; return (T)((U)a - (U)b); }
template <typename T> __device__ __forceinline__ T ws_mul(T a, T b) { typedef typename ws_int<T>::type U; return (T)((U)a * (U)b); }
template <typename T> __device__ __forceinline__ T ws_neg(T a) { typedef typename ws_int<T>::type U; return (T)((U)0 - (U)a); }
// Division truncates in both languages; MIN / -1 wraps to MIN (Rust's wrapping_div)
// instead of C's undefined behaviour, and MIN % -1 is 0.
template <typename T> __device__ __forceinline__ T ws_div(T a, T b) { return (ws_int<T>::is_signed && b == (T)-1) ? ws_neg(a) : (T)(a / b); }
template <typename T> __device__ __forceinline__ T ws_rem(T a, T b) { return (ws_int<T>::is_signed && b == (T)-1) ? (T)0 : (T)(a % b); }
// Shifts mask the amount to the width, as Rust's `<<`, `>>` and wrapping_shl/shr do.
// A left shift goes through the unsigned type (shifting a negative int is undefined in C);
// a right shift of a signed value is arithmetic, as in Rust.
template <typename T> __device__ __forceinline__ T ws_shl(T a, unsigned int s) { typedef typename ws_int<T>::type U; return (T)((U)a << (s & (ws_int<T>::bits - 1))); }
template <typename T> __device__ __forceinline__ T ws_shr(T a, unsigned int s) { return (T)(a >> (s & (ws_int<T>::bits - 1))); }
template <typename T> __device__ __forceinline__ T ws_abs(T a) { return a < (T)0 ? ws_neg(a) : a; }
template <typename T> __device__ __forceinline__ T ws_min(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ __forceinline__ T ws_max(T a, T b) { return b < a ? a : b; }

// Float to int saturates like Rust's `as` and maps NaN to 0: NaN is made 0 first (cvt.rzi
// turns it into MIN or MAX for some widths), the cvt.rzi intrinsics saturate to 32/64 bits,
// and the clamps narrow 8- and 16-bit results further.
__device__ __forceinline__ float ws_nan0f(float x) { return x != x ? 0.0f : x; }
__device__ __forceinline__ double ws_nan0d(double x) { return x != x ? 0.0 : x; }
__device__ __forceinline__ int ws_clamp_i(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
__device__ __forceinline__ unsigned int ws_clamp_u(unsigned int v, unsigned int hi) { return v > hi ? hi : v; }

// count_ones, leading_zeros, trailing_zeros for 32 and 64 bits; narrower types are
// widened by the emitter, which corrects leading_zeros and trailing_zeros for the width.
__device__ __forceinline__ unsigned int ws_ctz32(unsigned int x) { return x == 0u ? 32u : (unsigned int)(__ffs((int)x) - 1); }
__device__ __forceinline__ unsigned int ws_ctz64(unsigned long long x) { return x == 0ull ? 64u : (unsigned int)(__ffsll((long long)x) - 1); }

// f32::powi and f64::powi: repeated squaring in the order LLVM's powi uses, so the
// rounding matches Rust's.
__device__ __forceinline__ float ws_powi_f32(float a, int b) {
    const bool recip = b < 0; float r = 1.0f;
    for (;;) { if (b & 1) r *= a; b /= 2; if (b == 0) break; a *= a; }
    return recip ? 1.0f / r : r;
}
__device__ __forceinline__ double ws_powi_f64(double a, int b) {
    const bool recip = b < 0; double r = 1.0;
    for (;;) { if (b & 1) r *= a; b /= 2; if (b == 0) break; a *= a; }
    return recip ? 1.0 / r : r;
}
// ---- index intrinsics (thread_idx(), grid_1d(), ...): values, as the kernel language has them
struct ws_dim3 { unsigned int x, y, z; };
struct ws_usize2 { unsigned long long _0, _1; };
struct ws_usize3 { unsigned long long _0, _1, _2; };
__device__ __forceinline__ ws_dim3 ws_thread_idx() { ws_dim3 d = { threadIdx.x, threadIdx.y, threadIdx.z }; return d; }
__device__ __forceinline__ ws_dim3 ws_block_idx() { ws_dim3 d = { blockIdx.x, blockIdx.y, blockIdx.z }; return d; }
__device__ __forceinline__ ws_dim3 ws_block_dim() { ws_dim3 d = { blockDim.x, blockDim.y, blockDim.z }; return d; }
__device__ __forceinline__ ws_dim3 ws_grid_dim() { ws_dim3 d = { gridDim.x, gridDim.y, gridDim.z }; return d; }
__device__ __forceinline__ unsigned long long ws_grid_1d() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ ws_usize2 ws_grid_2d() { ws_usize2 g = { ws_grid_1d(), (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y }; return g; }
__device__ __forceinline__ ws_usize3 ws_grid_3d() { ws_usize3 g = { ws_grid_1d(), (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y, (unsigned long long)blockIdx.z * blockDim.z + threadIdx.z }; return g; }
__device__ __forceinline__ unsigned long long ws_grid_stride_1d() { return (unsigned long long)gridDim.x * blockDim.x; }
