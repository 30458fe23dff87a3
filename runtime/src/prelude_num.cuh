// ---- numeric methods (`x.rotate_left(3)`, `x.saturating_add(y)`, `f.to_bits()`, ...).
// The table that says which method becomes which helper is macros/src/ir/methods.rs; the
// list users read is docs/methods.md, generated from it. Outside WS_HOST_SHIM on purpose:
// tests/semantics_prop.rs runs these helpers as host C++ under UBSan too.
//
// Integer helpers compute in ws_int<T>::type (unsigned, at least 32 bits) on the value's
// bits zero-extended to its width, and convert back: no promotion to int changes a result
// and no signed overflow is undefined. Where Rust panics (ilog2 of 0, isqrt of a negative,
// a zero divisor) the simulator reports it; the GPU value is the one docs/methods.md names.

// The unsigned and signed types of T's width (abs_diff, unsigned_abs, cast_signed).
template <typename T> struct ws_twin;
template <> struct ws_twin<signed char>        { typedef unsigned char u;      typedef signed char s; };
template <> struct ws_twin<unsigned char>      { typedef unsigned char u;      typedef signed char s; };
template <> struct ws_twin<short>              { typedef unsigned short u;     typedef short s; };
template <> struct ws_twin<unsigned short>     { typedef unsigned short u;     typedef short s; };
template <> struct ws_twin<int>                { typedef unsigned int u;       typedef int s; };
template <> struct ws_twin<unsigned int>       { typedef unsigned int u;       typedef int s; };
template <> struct ws_twin<long long>          { typedef unsigned long long u; typedef long long s; };
template <> struct ws_twin<unsigned long long> { typedef unsigned long long u; typedef long long s; };

// T's bits, zero-extended into ws_int<T>::type.
template <typename T> __device__ __forceinline__ typename ws_int<T>::type ws_ubits(T a) {
    typedef typename ws_int<T>::type U;
    return (U)a & (~(U)0 >> (sizeof(U) * 8 - ws_int<T>::bits));
}
template <typename T> __device__ __forceinline__ T ws_tmax() {
    typedef typename ws_int<T>::type U;
    return (T)(~(U)0 >> (sizeof(U) * 8 - ws_int<T>::bits + (ws_int<T>::is_signed ? 1 : 0)));
}
template <typename T> __device__ __forceinline__ T ws_tmin() {
    typedef typename ws_int<T>::type U;
    return ws_int<T>::is_signed ? (T)((U)ws_tmax<T>() + (U)1) : (T)0;
}
template <typename T> __device__ __forceinline__ bool ws_is_neg(T a) { return ws_int<T>::is_signed && (ws_ubits(a) >> (ws_int<T>::bits - 1)) != 0; }

// Bit counts on the 32- and 64-bit unsigned types.
__device__ __forceinline__ unsigned int ws_popc(unsigned int x) { return (unsigned int)__popc(x); }
__device__ __forceinline__ unsigned int ws_popc(unsigned long long x) { return (unsigned int)__popcll(x); }
__device__ __forceinline__ unsigned int ws_clz(unsigned int x) { return (unsigned int)__clz((int)x); }
__device__ __forceinline__ unsigned int ws_clz(unsigned long long x) { return (unsigned int)__clzll((long long)x); }
__device__ __forceinline__ unsigned int ws_ctz(unsigned int x) { return ws_ctz32(x); }
__device__ __forceinline__ unsigned int ws_ctz(unsigned long long x) { return ws_ctz64(x); }
__device__ __forceinline__ unsigned int ws_brev(unsigned int x) { return __brev(x); }
__device__ __forceinline__ unsigned long long ws_brev(unsigned long long x) { return __brevll(x); }
__device__ __forceinline__ unsigned int ws_bswap32(unsigned int x) { return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24); }
// The bits ws_int<T>::type has above T's width.
template <typename T> __device__ __forceinline__ unsigned int ws_pad() { return (unsigned int)(sizeof(typename ws_int<T>::type) * 8 - ws_int<T>::bits); }

template <typename T> __device__ __forceinline__ unsigned int ws_count_ones(T a) { return ws_popc(ws_ubits(a)); }
template <typename T> __device__ __forceinline__ unsigned int ws_count_zeros(T a) { return (unsigned int)ws_int<T>::bits - ws_count_ones(a); }
template <typename T> __device__ __forceinline__ unsigned int ws_leading_zeros(T a) { return ws_clz(ws_ubits(a)) - ws_pad<T>(); }
template <typename T> __device__ __forceinline__ unsigned int ws_trailing_zeros(T a) { const unsigned int z = ws_ctz(ws_ubits(a)); return z < (unsigned int)ws_int<T>::bits ? z : (unsigned int)ws_int<T>::bits; }
template <typename T> __device__ __forceinline__ unsigned int ws_leading_ones(T a) { return ws_leading_zeros((T)~a); }
template <typename T> __device__ __forceinline__ unsigned int ws_trailing_ones(T a) { return ws_trailing_zeros((T)~a); }
template <typename T> __device__ __forceinline__ T ws_rotate_left(T a, unsigned int n) {
    typedef typename ws_int<T>::type U;
    const unsigned int b = ws_int<T>::bits;
    n &= b - 1u;
    const U x = ws_ubits(a);
    return (T)((x << n) | (x >> ((b - n) & (b - 1u))));
}
template <typename T> __device__ __forceinline__ T ws_rotate_right(T a, unsigned int n) {
    const unsigned int b = ws_int<T>::bits;
    return ws_rotate_left(a, (b - (n & (b - 1u))) & (b - 1u));
}
template <typename T> __device__ __forceinline__ T ws_swap_bytes(T a) {
    typedef typename ws_int<T>::type U;
    const U x = ws_ubits(a);
    if (ws_int<T>::bits == 8) return a;
    if (ws_int<T>::bits == 16) return (T)(((x >> 8) | (x << 8)) & (U)0xffffu);
    if (ws_int<T>::bits == 32) return (T)ws_bswap32((unsigned int)x);
    const unsigned long long w = (unsigned long long)x;
    return (T)(((unsigned long long)ws_bswap32((unsigned int)w) << 32) | (unsigned long long)ws_bswap32((unsigned int)(w >> 32)));
}
template <typename T> __device__ __forceinline__ T ws_reverse_bits(T a) { return (T)(ws_brev(ws_ubits(a)) >> ws_pad<T>()); }

// Sign and magnitude.
template <typename T> __device__ __forceinline__ typename ws_twin<T>::u ws_unsigned_abs(T a) {
    typedef typename ws_int<T>::type U;
    return (typename ws_twin<T>::u)(ws_is_neg(a) ? (U)0 - (U)a : (U)a);
}
template <typename T> __device__ __forceinline__ typename ws_twin<T>::u ws_abs_diff(T a, T b) {
    typedef typename ws_int<T>::type U;
    return (typename ws_twin<T>::u)(a < b ? (U)b - (U)a : (U)a - (U)b);
}
template <typename T> __device__ __forceinline__ T ws_signum(T a) { return a > (T)0 ? (T)1 : (ws_is_neg(a) ? (T)-1 : (T)0); }
template <typename T> __device__ __forceinline__ typename ws_twin<T>::s ws_cast_signed(T a) { return (typename ws_twin<T>::s)a; }
template <typename T> __device__ __forceinline__ typename ws_twin<T>::u ws_cast_unsigned(T a) { return (typename ws_twin<T>::u)a; }
// Ord::clamp and f32::clamp (Rust panics when lo > hi or a bound is NaN; the GPU then
// gives this expression's value; a NaN `a` stays NaN).
template <typename T> __device__ __forceinline__ T ws_clamp(T a, T lo, T hi) { return a < lo ? lo : (a > hi ? hi : a); }

// Powers and products (wrapping, as Rust's release builds and wrapping_pow; the ring of
// integers modulo 2^n does not care in which order the factors are multiplied).
template <typename T> __device__ __forceinline__ T ws_pow(T a, unsigned int e) {
    T r = (T)1;
    while (e != 0u) { if (e & 1u) r = ws_mul(r, a); e >>= 1; if (e != 0u) a = ws_mul(a, a); }
    return r;
}
// a * b wrapped, and whether the exact product overflowed T.
template <typename T> __device__ __forceinline__ T ws_mul_ovf(T a, T b, bool* o) {
    const T r = ws_mul(a, b);
    if (ws_int<T>::bits <= 32) {
        if (ws_int<T>::is_signed) *o = (long long)a * (long long)b != (long long)r;
        else *o = (unsigned long long)a * (unsigned long long)b != (unsigned long long)r;
    } else if (ws_int<T>::is_signed) {
        *o = __mul64hi((long long)a, (long long)b) != ((long long)r < 0ll ? -1ll : 0ll);
    } else {
        *o = __umul64hi((unsigned long long)a, (unsigned long long)b) != 0ull;
    }
    return r;
}
template <typename T> __device__ __forceinline__ T ws_saturating_add(T a, T b) {
    const T r = ws_add(a, b);
    if (ws_int<T>::is_signed) return (ws_is_neg(a) == ws_is_neg(b) && ws_is_neg(r) != ws_is_neg(a)) ? (ws_is_neg(a) ? ws_tmin<T>() : ws_tmax<T>()) : r;
    return ws_ubits(r) < ws_ubits(a) ? ws_tmax<T>() : r;
}
template <typename T> __device__ __forceinline__ T ws_saturating_sub(T a, T b) {
    const T r = ws_sub(a, b);
    if (ws_int<T>::is_signed) return (ws_is_neg(a) != ws_is_neg(b) && ws_is_neg(r) != ws_is_neg(a)) ? (ws_is_neg(a) ? ws_tmin<T>() : ws_tmax<T>()) : r;
    return ws_ubits(a) < ws_ubits(b) ? (T)0 : r;
}
template <typename T> __device__ __forceinline__ T ws_saturating_mul(T a, T b) {
    bool o = false;
    const T r = ws_mul_ovf(a, b, &o);
    return o ? (ws_is_neg(a) != ws_is_neg(b) ? ws_tmin<T>() : ws_tmax<T>()) : r;
}
// As Rust's checked_pow, saturated: MIN for a negative base and an odd exponent.
template <typename T> __device__ __forceinline__ T ws_saturating_pow(T a, unsigned int e) {
    const T sat = (ws_is_neg(a) && (e & 1u)) ? ws_tmin<T>() : ws_tmax<T>();
    if (e == 0u) return (T)1;
    T base = a, acc = (T)1;
    bool o = false;
    for (;;) {
        if (e & 1u) {
            acc = ws_mul_ovf(acc, base, &o);
            if (o) return sat;
            if (e == 1u) return acc;
        }
        e /= 2u;
        base = ws_mul_ovf(base, base, &o);
        if (o) return sat;
    }
}
template <typename T> __device__ __forceinline__ T ws_saturating_neg(T a) { return a == ws_tmin<T>() ? ws_tmax<T>() : ws_neg(a); }
template <typename T> __device__ __forceinline__ T ws_saturating_abs(T a) { return a == ws_tmin<T>() ? ws_tmax<T>() : ws_abs(a); }
template <typename T> __device__ __forceinline__ T ws_saturating_div(T a, T b) { return (ws_int<T>::is_signed && b == (T)-1 && a == ws_tmin<T>()) ? ws_tmax<T>() : (T)(a / b); }

// Euclidean division, wrapping (MIN.div_euclid(-1) is MIN, as wrapping_div_euclid).
template <typename T> __device__ __forceinline__ T ws_div_euclid(T a, T b) {
    T q = ws_div(a, b);
    if (ws_is_neg(ws_rem(a, b))) q = ws_is_neg(b) ? ws_add(q, (T)1) : ws_sub(q, (T)1);
    return q;
}
template <typename T> __device__ __forceinline__ T ws_rem_euclid(T a, T b) {
    const T r = ws_rem(a, b);
    return ws_is_neg(r) ? ws_add(r, ws_abs(b)) : r;
}
template <typename T> __device__ __forceinline__ T ws_div_ceil(T a, T b) { const T q = (T)(a / b); return (T)(a % b) != (T)0 ? (T)(q + (T)1) : q; }
template <typename T> __device__ __forceinline__ T ws_next_multiple_of(T a, T b) { const T r = (T)(a % b); return r == (T)0 ? a : ws_add(a, (T)(b - r)); }
template <typename T> __device__ __forceinline__ bool ws_is_multiple_of(T a, T b) { return b == (T)0 ? a == (T)0 : (T)(a % b) == (T)0; }
// (a + b) / 2 without overflow: floor for unsigned, toward zero for signed (as Rust).
template <typename T> __device__ __forceinline__ T ws_midpoint(T a, T b) {
    T t = (T)((a & b) + ((a ^ b) >> 1));
    if (ws_is_neg(t) && ((a ^ b) & 1)) t = (T)(t + 1);
    return t;
}
template <typename T> __device__ __forceinline__ T ws_unbounded_shl(T a, unsigned int s) { return s >= (unsigned int)ws_int<T>::bits ? (T)0 : ws_shl(a, s); }
template <typename T> __device__ __forceinline__ T ws_unbounded_shr(T a, unsigned int s) { return s >= (unsigned int)ws_int<T>::bits ? (ws_is_neg(a) ? (T)-1 : (T)0) : ws_shr(a, s); }

// Powers of two and logarithms (ilog of a value <= 0 or base < 2: u32::MAX on the GPU).
template <typename T> __device__ __forceinline__ bool ws_is_power_of_two(T a) { const typename ws_int<T>::type x = ws_ubits(a); return x != 0u && (x & (x - 1u)) == 0u; }
template <typename T> __device__ __forceinline__ T ws_next_power_of_two(T a) {
    typedef typename ws_int<T>::type U;
    const U x = ws_ubits(a);
    if (x <= 1u) return (T)1;
    const unsigned int p = (unsigned int)ws_int<T>::bits - ws_leading_zeros((T)(x - 1u));
    return p >= (unsigned int)ws_int<T>::bits ? (T)0 : (T)((U)1 << p);
}
template <typename T> __device__ __forceinline__ unsigned int ws_ilog2(T a) {
    return (a == (T)0 || ws_is_neg(a)) ? 0xffffffffu : (unsigned int)ws_int<T>::bits - 1u - ws_leading_zeros(a);
}
template <typename T> __device__ __forceinline__ unsigned int ws_ilog(T a, T base) {
    if (a == (T)0 || ws_is_neg(a) || base < (T)2) return 0xffffffffu;
    unsigned int n = 0u;
    while (a >= base) { a = (T)(a / base); n++; }
    return n;
}
template <typename T> __device__ __forceinline__ unsigned int ws_ilog10(T a) { return ws_ilog(a, (T)10); }
// floor(sqrt(a)): the double square root, corrected by at most a step (the square root of
// a 64-bit value may round up across an integer). A negative `a` gives -1 on the GPU.
template <typename T> __device__ __forceinline__ T ws_isqrt(T a) {
    typedef typename ws_int<T>::type U;
    if (ws_is_neg(a)) return (T)-1;
    const U x = (U)a;
    U r = (U)sqrt((double)x);
    while (r > 0u && r > x / r) r--;
    while (r + 1u <= x / (r + 1u)) r++;
    return (T)r;
}

// ---- float methods Rust defines exactly, on bits where it can (they then hold under
// fast_math too). f32 and f64 overloads of one name.
__device__ __forceinline__ unsigned int ws_to_bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned long long ws_to_bits(double x) { return (unsigned long long)__double_as_longlong(x); }
__device__ __forceinline__ float ws_f32_from_bits(unsigned int b) { return __uint_as_float(b); }
__device__ __forceinline__ double ws_f64_from_bits(unsigned long long b) { return __longlong_as_double((long long)b); }
__device__ __forceinline__ bool ws_is_nan(float x) { return (ws_to_bits(x) & 0x7fffffffu) > 0x7f800000u; }
__device__ __forceinline__ bool ws_is_nan(double x) { return (ws_to_bits(x) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
__device__ __forceinline__ bool ws_is_infinite(float x) { return (ws_to_bits(x) & 0x7fffffffu) == 0x7f800000u; }
__device__ __forceinline__ bool ws_is_infinite(double x) { return (ws_to_bits(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
__device__ __forceinline__ bool ws_is_finite(float x) { return (ws_to_bits(x) & 0x7fffffffu) < 0x7f800000u; }
__device__ __forceinline__ bool ws_is_finite(double x) { return (ws_to_bits(x) & 0x7fffffffffffffffull) < 0x7ff0000000000000ull; }
__device__ __forceinline__ bool ws_is_normal(float x) { const unsigned int e = (ws_to_bits(x) >> 23) & 0xffu; return e != 0u && e != 0xffu; }
__device__ __forceinline__ bool ws_is_normal(double x) { const unsigned long long e = (ws_to_bits(x) >> 52) & 0x7ffull; return e != 0ull && e != 0x7ffull; }
__device__ __forceinline__ bool ws_is_subnormal(float x) { const unsigned int b = ws_to_bits(x) & 0x7fffffffu; return b != 0u && b < 0x00800000u; }
__device__ __forceinline__ bool ws_is_subnormal(double x) { const unsigned long long b = ws_to_bits(x) & 0x7fffffffffffffffull; return b != 0ull && b < 0x0010000000000000ull; }
__device__ __forceinline__ bool ws_is_sign_negative(float x) { return (ws_to_bits(x) >> 31) != 0u; }
__device__ __forceinline__ bool ws_is_sign_negative(double x) { return (ws_to_bits(x) >> 63) != 0ull; }
__device__ __forceinline__ bool ws_is_sign_positive(float x) { return !ws_is_sign_negative(x); }
__device__ __forceinline__ bool ws_is_sign_positive(double x) { return !ws_is_sign_negative(x); }
// f32::signum: NaN stays NaN, else ±1 with x's sign (so -0.0 gives -1.0).
__device__ __forceinline__ float ws_fsignum(float x) { return ws_is_nan(x) ? x : copysignf(1.0f, x); }
__device__ __forceinline__ double ws_fsignum(double x) { return ws_is_nan(x) ? x : copysign(1.0, x); }
__device__ __forceinline__ float ws_fract(float x) { return x - truncf(x); }
__device__ __forceinline__ double ws_fract(double x) { return x - trunc(x); }
__device__ __forceinline__ float ws_recip(float x) { return 1.0f / x; }
__device__ __forceinline__ double ws_recip(double x) { return 1.0 / x; }
// Rust's constants: f32 180/pi is 57.2957795... rounded once; f64 computes 180.0 / PI.
__device__ __forceinline__ float ws_to_degrees(float x) { return x * 57.2957795130823208767981548141051703f; }
__device__ __forceinline__ double ws_to_degrees(double x) { return x * (180.0 / 3.14159265358979323846264338327950288); }
__device__ __forceinline__ float ws_to_radians(float x) { return x * (3.14159265358979323846264338327950288f / 180.0f); }
__device__ __forceinline__ double ws_to_radians(double x) { return x * (3.14159265358979323846264338327950288 / 180.0); }
__device__ __forceinline__ float ws_flog(float x, float b) { return logf(x) / logf(b); }
__device__ __forceinline__ double ws_flog(double x, double b) { return log(x) / log(b); }
// f32::rem_euclid / div_euclid, as Rust's std writes them.
__device__ __forceinline__ float ws_frem_euclid(float a, float b) { const float r = fmodf(a, b); return r < 0.0f ? r + fabsf(b) : r; }
__device__ __forceinline__ double ws_frem_euclid(double a, double b) { const double r = fmod(a, b); return r < 0.0 ? r + fabs(b) : r; }
__device__ __forceinline__ float ws_fdiv_euclid(float a, float b) { const float q = truncf(a / b); if (fmodf(a, b) < 0.0f) return b > 0.0f ? q - 1.0f : q + 1.0f; return q; }
__device__ __forceinline__ double ws_fdiv_euclid(double a, double b) { const double q = trunc(a / b); if (fmod(a, b) < 0.0) return b > 0.0 ? q - 1.0 : q + 1.0; return q; }
// f32::next_up / next_down on the bits.
__device__ __forceinline__ float ws_next_up(float x) {
    const unsigned int b = ws_to_bits(x), abs = b & 0x7fffffffu;
    if (ws_is_nan(x) || b == 0x7f800000u) return x;
    return ws_f32_from_bits(abs == 0u ? 1u : (b == abs ? b + 1u : b - 1u));
}
__device__ __forceinline__ double ws_next_up(double x) {
    const unsigned long long b = ws_to_bits(x), abs = b & 0x7fffffffffffffffull;
    if (ws_is_nan(x) || b == 0x7ff0000000000000ull) return x;
    return ws_f64_from_bits(abs == 0ull ? 1ull : (b == abs ? b + 1ull : b - 1ull));
}
__device__ __forceinline__ float ws_next_down(float x) {
    const unsigned int b = ws_to_bits(x), abs = b & 0x7fffffffu;
    if (ws_is_nan(x) || b == 0xff800000u) return x;
    return ws_f32_from_bits(abs == 0u ? 0x80000001u : (b == abs ? b - 1u : b + 1u));
}
__device__ __forceinline__ double ws_next_down(double x) {
    const unsigned long long b = ws_to_bits(x), abs = b & 0x7fffffffffffffffull;
    if (ws_is_nan(x) || b == 0xfff0000000000000ull) return x;
    return ws_f64_from_bits(abs == 0ull ? 0x8000000000000001ull : (b == abs ? b - 1ull : b + 1ull));
}
__device__ __forceinline__ float ws_powi(float a, int b) { return ws_powi_f32(a, b); }
__device__ __forceinline__ double ws_powi(double a, int b) { return ws_powi_f64(a, b); }
template <typename T> __device__ __forceinline__ bool ws_is_positive(T a) { return a > (T)0; }
template <typename T> __device__ __forceinline__ T ws_to_le(T a) { return a; }
// f32::sin_cos: the tuple `(sin, cos)`, a ws_tuple2 as every kernel tuple.
__device__ __forceinline__ ws_tuple2<float, float> ws_sin_cos(float x) { ws_tuple2<float, float> r; sincosf(x, &r._0, &r._1); return r; }
__device__ __forceinline__ ws_tuple2<double, double> ws_sin_cos(double x) { ws_tuple2<double, double> r; sincos(x, &r._0, &r._1); return r; }
// ---- f16's math, as CUDA's half math (hexp, hsin, ...) computes it: the float function of
// the widened value, rounded once to the nearest f16 (cvt.rn.f16.f32, ties to even). The
// simulator does the same with Rust's f32 functions (runtime/src/half_math.rs). The
// predicates, signum, copysign, next_up and next_down read f16's own bits: through float,
// an f16 subnormal is normal, and the next float rounds back to the same f16. GPU only,
// as prelude.cuh's f16 section (the property test's host C++ has no f16).
#ifndef WS_HOST_SHIM
__device__ __forceinline__ ws_f16 ws_f16_clamp(ws_f16 a, ws_f16 lo, ws_f16 hi) { return ws_f16_via_f32(ws_clamp<float>(ws_cvt_f32_f16(a.bits), ws_cvt_f32_f16(lo.bits), ws_cvt_f32_f16(hi.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_mul_add(ws_f16 a, ws_f16 b, ws_f16 c) { return ws_f16_via_f32(fmaf(ws_cvt_f32_f16(a.bits), ws_cvt_f32_f16(b.bits), ws_cvt_f32_f16(c.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_powi(ws_f16 a, int n) { return ws_f16_via_f32(ws_powi_f32(ws_cvt_f32_f16(a.bits), n)); }
__device__ __forceinline__ ws_f16 ws_f16_recip(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(ws_recip(x)); }
__device__ __forceinline__ ws_f16 ws_f16_round_ties_even(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(rintf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_fract(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(ws_fract(x)); }
__device__ __forceinline__ ws_f16 ws_f16_to_degrees(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(ws_to_degrees(x)); }
__device__ __forceinline__ ws_f16 ws_f16_to_radians(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(ws_to_radians(x)); }
__device__ __forceinline__ ws_f16 ws_f16_div_euclid(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_via_f32(ws_fdiv_euclid(x, y)); }
__device__ __forceinline__ ws_f16 ws_f16_rem_euclid(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_via_f32(ws_frem_euclid(x, y)); }
__device__ __forceinline__ ws_f16 ws_f16_signum(ws_f16 a) { return ws_f16_bits_nan(a.bits) ? a : ws_f16_of_bits((unsigned short)((a.bits & 0x8000u) | 0x3c00u)); }
__device__ __forceinline__ ws_f16 ws_f16_copysign(ws_f16 a, ws_f16 b) { return ws_f16_of_bits((unsigned short)((a.bits & 0x7fffu) | (b.bits & 0x8000u))); }
__device__ __forceinline__ ws_f16 ws_f16_next_up(ws_f16 a) {
    const unsigned int b = a.bits, abs = b & 0x7fffu;
    if (ws_f16_bits_nan(a.bits) || b == 0x7c00u) return a;
    return ws_f16_of_bits((unsigned short)(abs == 0u ? 1u : (b == abs ? b + 1u : b - 1u)));
}
__device__ __forceinline__ ws_f16 ws_f16_next_down(ws_f16 a) {
    const unsigned int b = a.bits, abs = b & 0x7fffu;
    if (ws_f16_bits_nan(a.bits) || b == 0xfc00u) return a;
    return ws_f16_of_bits((unsigned short)(abs == 0u ? 0x8001u : (b == abs ? b - 1u : b + 1u)));
}
__device__ __forceinline__ bool ws_f16_is_nan(ws_f16 a) { return ws_f16_bits_nan(a.bits); }
__device__ __forceinline__ bool ws_f16_is_infinite(ws_f16 a) { return (a.bits & 0x7fffu) == 0x7c00u; }
__device__ __forceinline__ bool ws_f16_is_finite(ws_f16 a) { return (a.bits & 0x7fffu) < 0x7c00u; }
__device__ __forceinline__ bool ws_f16_is_normal(ws_f16 a) { return (a.bits & 0x7c00u) != 0u && (a.bits & 0x7c00u) != 0x7c00u; }
__device__ __forceinline__ bool ws_f16_is_subnormal(ws_f16 a) { return (a.bits & 0x7fffu) != 0u && (a.bits & 0x7fffu) < 0x0400u; }
__device__ __forceinline__ bool ws_f16_is_sign_positive(ws_f16 a) { return (a.bits & 0x8000u) == 0u; }
__device__ __forceinline__ bool ws_f16_is_sign_negative(ws_f16 a) { return (a.bits & 0x8000u) != 0u; }
__device__ __forceinline__ unsigned short ws_f16_to_bits(ws_f16 a) { return a.bits; }
__device__ __forceinline__ ws_f16 ws_f16_exp(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(expf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_exp2(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(exp2f(x)); }
__device__ __forceinline__ ws_f16 ws_f16_exp_m1(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(expm1f(x)); }
__device__ __forceinline__ ws_f16 ws_f16_ln(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(logf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_log2(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(log2f(x)); }
__device__ __forceinline__ ws_f16 ws_f16_log10(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(log10f(x)); }
__device__ __forceinline__ ws_f16 ws_f16_ln_1p(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(log1pf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_cbrt(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(cbrtf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_sin(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(sinf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_cos(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(cosf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_tan(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(tanf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_asin(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(asinf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_acos(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(acosf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_atan(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(atanf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_sinh(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(sinhf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_cosh(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(coshf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_tanh(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(tanhf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_asinh(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(asinhf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_acosh(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(acoshf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_atanh(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); return ws_f16_via_f32(atanhf(x)); }
__device__ __forceinline__ ws_f16 ws_f16_log(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_via_f32(ws_flog(x, y)); }
__device__ __forceinline__ ws_f16 ws_f16_powf(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_via_f32(powf(x, y)); }
__device__ __forceinline__ ws_f16 ws_f16_hypot(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_via_f32(hypotf(x, y)); }
__device__ __forceinline__ ws_f16 ws_f16_atan2(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_via_f32(atan2f(x, y)); }
__device__ __forceinline__ ws_tuple2<ws_f16, ws_f16> ws_f16_sin_cos(ws_f16 a) { const float x = ws_cvt_f32_f16(a.bits); ws_tuple2<ws_f16, ws_f16> r; r._0 = ws_f16_via_f32(sinf(x)); r._1 = ws_f16_via_f32(cosf(x)); return r; }
// ---- bf16's math: the same, for bfloat16 (the float function, rounded once to the
// nearest bf16; runtime/src/half_math.rs computes the same on the simulator), on bf16's
// own bits (exponent mask 0x7f80, smallest normal 0x0080).
__device__ __forceinline__ ws_bf16 ws_bf16_clamp(ws_bf16 a, ws_bf16 lo, ws_bf16 hi) { return ws_bf16_via_f32(ws_clamp<float>(ws_cvt_f32_bf16(a.bits), ws_cvt_f32_bf16(lo.bits), ws_cvt_f32_bf16(hi.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_mul_add(ws_bf16 a, ws_bf16 b, ws_bf16 c) { return ws_bf16_via_f32(fmaf(ws_cvt_f32_bf16(a.bits), ws_cvt_f32_bf16(b.bits), ws_cvt_f32_bf16(c.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_powi(ws_bf16 a, int n) { return ws_bf16_via_f32(ws_powi_f32(ws_cvt_f32_bf16(a.bits), n)); }
__device__ __forceinline__ ws_bf16 ws_bf16_recip(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(ws_recip(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_round_ties_even(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(rintf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_fract(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(ws_fract(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_to_degrees(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(ws_to_degrees(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_to_radians(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(ws_to_radians(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_div_euclid(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_via_f32(ws_fdiv_euclid(x, y)); }
__device__ __forceinline__ ws_bf16 ws_bf16_rem_euclid(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_via_f32(ws_frem_euclid(x, y)); }
__device__ __forceinline__ ws_bf16 ws_bf16_signum(ws_bf16 a) { return ws_bf16_bits_nan(a.bits) ? a : ws_bf16_of_bits((unsigned short)((a.bits & 0x8000u) | 0x3f80u)); }
__device__ __forceinline__ ws_bf16 ws_bf16_copysign(ws_bf16 a, ws_bf16 b) { return ws_bf16_of_bits((unsigned short)((a.bits & 0x7fffu) | (b.bits & 0x8000u))); }
__device__ __forceinline__ ws_bf16 ws_bf16_next_up(ws_bf16 a) {
    const unsigned int b = a.bits, abs = b & 0x7fffu;
    if (ws_bf16_bits_nan(a.bits) || b == 0x7f80u) return a;
    return ws_bf16_of_bits((unsigned short)(abs == 0u ? 1u : (b == abs ? b + 1u : b - 1u)));
}
__device__ __forceinline__ ws_bf16 ws_bf16_next_down(ws_bf16 a) {
    const unsigned int b = a.bits, abs = b & 0x7fffu;
    if (ws_bf16_bits_nan(a.bits) || b == 0xff80u) return a;
    return ws_bf16_of_bits((unsigned short)(abs == 0u ? 0x8001u : (b == abs ? b - 1u : b + 1u)));
}
__device__ __forceinline__ bool ws_bf16_is_nan(ws_bf16 a) { return ws_bf16_bits_nan(a.bits); }
__device__ __forceinline__ bool ws_bf16_is_infinite(ws_bf16 a) { return (a.bits & 0x7fffu) == 0x7f80u; }
__device__ __forceinline__ bool ws_bf16_is_finite(ws_bf16 a) { return (a.bits & 0x7fffu) < 0x7f80u; }
__device__ __forceinline__ bool ws_bf16_is_normal(ws_bf16 a) { return (a.bits & 0x7f80u) != 0u && (a.bits & 0x7f80u) != 0x7f80u; }
__device__ __forceinline__ bool ws_bf16_is_subnormal(ws_bf16 a) { return (a.bits & 0x7fffu) != 0u && (a.bits & 0x7fffu) < 0x0080u; }
__device__ __forceinline__ bool ws_bf16_is_sign_positive(ws_bf16 a) { return (a.bits & 0x8000u) == 0u; }
__device__ __forceinline__ bool ws_bf16_is_sign_negative(ws_bf16 a) { return (a.bits & 0x8000u) != 0u; }
__device__ __forceinline__ unsigned short ws_bf16_to_bits(ws_bf16 a) { return a.bits; }
__device__ __forceinline__ ws_bf16 ws_bf16_exp(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(expf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_exp2(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(exp2f(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_exp_m1(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(expm1f(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_ln(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(logf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_log2(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(log2f(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_log10(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(log10f(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_ln_1p(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(log1pf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_cbrt(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(cbrtf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_sin(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(sinf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_cos(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(cosf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_tan(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(tanf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_asin(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(asinf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_acos(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(acosf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_atan(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(atanf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_sinh(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(sinhf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_cosh(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(coshf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_tanh(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(tanhf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_asinh(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(asinhf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_acosh(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(acoshf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_atanh(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); return ws_bf16_via_f32(atanhf(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_log(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_via_f32(ws_flog(x, y)); }
__device__ __forceinline__ ws_bf16 ws_bf16_powf(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_via_f32(powf(x, y)); }
__device__ __forceinline__ ws_bf16 ws_bf16_hypot(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_via_f32(hypotf(x, y)); }
__device__ __forceinline__ ws_bf16 ws_bf16_atan2(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_via_f32(atan2f(x, y)); }
__device__ __forceinline__ ws_tuple2<ws_bf16, ws_bf16> ws_bf16_sin_cos(ws_bf16 a) { const float x = ws_cvt_f32_bf16(a.bits); ws_tuple2<ws_bf16, ws_bf16> r; r._0 = ws_bf16_via_f32(sinf(x)); r._1 = ws_bf16_via_f32(cosf(x)); return r; }
#endif // WS_HOST_SHIM
// ---- end of the prelude: the kernel follows
