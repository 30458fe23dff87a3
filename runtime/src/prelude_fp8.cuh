// ---- fp8 storage types: `e4m3` (CUDA's __nv_fp8_e4m3) and `e5m2` (__nv_fp8_e5m2), without
// cuda_fp8.h. Loads, stores and conversions only (a kernel computes in float or f16). To fp8:
// round to nearest even, then saturate to the largest finite value (an infinity too), as
// `cvt.rn.satfinite.{e4m3,e5m2}x2.{f32,f16x2}`; from fp8: exact (`cvt.rn.f16x2.*x2`). A NaN
// is handled before the cvt, as the f16 conversions' are: it keeps its sign and, quiet, the
// payload bit that fits (e4m3's one NaN is S.1111.111; e5m2's S.11111.1p). On sm_89 and
// later the conversions are the cvt instructions; before, the same integer arithmetic as the
// simulator's (runtime/src/fp8.rs), which gives the same bits. docs/semantics.md, "fp8".
// GPU only, as prelude.cuh's f16 section it builds on (the property test's host C++,
// tests/semantics_prop.rs, has no f16); tests/fp8.rs compiles it for the host on its own.
#ifndef WS_HOST_SHIM
struct __align__(1) ws_e4m3 { unsigned char bits; };
struct __align__(1) ws_e5m2 { unsigned char bits; };
WS_ALL_BITS(ws_e4m3) WS_ALL_BITS(ws_e5m2)
__device__ __forceinline__ ws_e4m3 ws_e4m3_from_bits(unsigned char b) { ws_e4m3 x; x.bits = b; return x; }
__device__ __forceinline__ ws_e5m2 ws_e5m2_from_bits(unsigned char b) { ws_e5m2 x; x.bits = b; return x; }
__device__ __forceinline__ unsigned char ws_e4m3_to_bits(ws_e4m3 x) { return x.bits; }
__device__ __forceinline__ unsigned char ws_e5m2_to_bits(ws_e5m2 x) { return x.bits; }
// `inf`: the format has infinities (e5m2), so S.11111.00 is not a NaN.
__device__ __forceinline__ bool ws_fp8_is_nan(unsigned int b, bool inf) { return inf ? (b & 0x7fu) > 0x7cu : (b & 0x7fu) == 0x7fu; }
// The NaN for a float NaN of bits u: its sign, quiet, and (e5m2) the payload bit below the quiet bit.
__device__ __forceinline__ unsigned char ws_fp8_nan_of_f32(unsigned int u, bool inf) {
    const unsigned int sign = (u >> 24) & 0x80u;
    return (unsigned char)(inf ? sign | 0x7eu | ((u >> 21) & 1u) : sign | 0x7fu);
}
// float bits u rounded to nearest even, then saturated to code `max` (runtime/src/fp8.rs
// `round_f32_bits`, line for line).
__device__ __forceinline__ unsigned char ws_fp8_round_f32_bits(unsigned int u, unsigned int man, int bias, unsigned int max, bool inf) {
    const unsigned int sign = (u >> 24) & 0x80u;
    const unsigned int a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return ws_fp8_nan_of_f32(u, inf);
    int e; unsigned int m;
    if (a >= 0x00800000u) { e = (int)(a >> 23) - 127; m = (a & 0x007fffffu) | 0x00800000u; } else { e = -126; m = a; }
    const int emin = 1 - bias;
    const int shift = 23 - (int)man + (e < emin ? emin - e : 0);
    if (shift > 25) return (unsigned char)sign;
    unsigned int n = m >> shift;
    const unsigned int rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (n & 1u))) n += 1u;
    unsigned int code = e >= emin ? ((unsigned int)(e + bias) << man) + n - (1u << man) : n;
    if (code > max) code = max;
    return (unsigned char)(sign | code);
}
// The f16 bits of code b: exact; a NaN quiet with its sign and payload (fp8.rs `to_f16_bits`).
__device__ __forceinline__ unsigned short ws_fp8_to_f16_bits(unsigned int b, bool inf) {
    const unsigned int sign = (b & 0x80u) << 8;
    if (inf) return (unsigned short)((b << 8) | (ws_fp8_is_nan(b, true) ? 0x0200u : 0u));
    const unsigned int a = b & 0x7fu;
    if (a == 0x7fu) return (unsigned short)(sign | 0x7e00u);
    const unsigned int e = a >> 3, m = a & 7u;
    if (e == 0u) {
        if (m == 0u) return (unsigned short)sign;
        const unsigned int p = 31u - (unsigned int)__clz(m);
        return (unsigned short)(sign | (p + 6u) << 10 | (m - (1u << p)) << (10u - p));
    }
    return (unsigned short)(sign | (e + 8u) << 10 | m << 7);
}
// The conversions of non-NaN values: the cvt instructions on sm_89 and later (the first
// source goes to the high byte, so the value is the second), else the arithmetic above.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define WS_FP8_CVT(T, FMT, MAN, BIAS, MAX, INF) \
__device__ __forceinline__ unsigned char T##_cvt_f32(float x) { unsigned short r; asm("cvt.rn.satfinite." FMT "x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(x)); return (unsigned char)(r & 0xffu); } \
__device__ __forceinline__ unsigned char T##_cvt_f16(unsigned short h) { unsigned short r; asm("cvt.rn.satfinite." FMT "x2.f16x2 %0, %1;" : "=h"(r) : "r"((unsigned int)h)); return (unsigned char)(r & 0xffu); } \
__device__ __forceinline__ unsigned short T##_cvt_to_f16(unsigned char b) { unsigned int r; asm("cvt.rn.f16x2." FMT "x2 %0, %1;" : "=r"(r) : "h"((unsigned short)b)); return (unsigned short)(r & 0xffffu); }
#else
#define WS_FP8_CVT(T, FMT, MAN, BIAS, MAX, INF) \
__device__ __forceinline__ unsigned char T##_cvt_f32(float x) { return ws_fp8_round_f32_bits(__float_as_uint(x), MAN, BIAS, MAX, INF); } \
__device__ __forceinline__ unsigned char T##_cvt_f16(unsigned short h) { return ws_fp8_round_f32_bits(__float_as_uint(ws_cvt_f32_f16(h)), MAN, BIAS, MAX, INF); } \
__device__ __forceinline__ unsigned short T##_cvt_to_f16(unsigned char b) { return ws_fp8_to_f16_bits(b, INF); }
#endif
WS_FP8_CVT(ws_e4m3, "e4m3", 3u, 7, 0x7eu, false)
WS_FP8_CVT(ws_e5m2, "e5m2", 2u, 15, 0x7bu, true)
// e4m3::from_f32, e4m3::from_f16, x.to_f16(), x.to_f32(), and e5m2's: a NaN by the rule
// above, any other value by the conversion.
__device__ __forceinline__ ws_e4m3 ws_e4m3_from_f32(float x) {
    const unsigned int u = __float_as_uint(x);
    return ws_e4m3_from_bits((u & 0x7fffffffu) > 0x7f800000u ? ws_fp8_nan_of_f32(u, false) : ws_e4m3_cvt_f32(x));
}
__device__ __forceinline__ ws_e5m2 ws_e5m2_from_f32(float x) {
    const unsigned int u = __float_as_uint(x);
    return ws_e5m2_from_bits((u & 0x7fffffffu) > 0x7f800000u ? ws_fp8_nan_of_f32(u, true) : ws_e5m2_cvt_f32(x));
}
__device__ __forceinline__ ws_e4m3 ws_e4m3_from_f16(ws_f16 h) {
    return ws_e4m3_from_bits(ws_f16_bits_nan(h.bits) ? ws_fp8_nan_of_f32(__float_as_uint(ws_f16_to_f32(h)), false) : ws_e4m3_cvt_f16(h.bits));
}
__device__ __forceinline__ ws_e5m2 ws_e5m2_from_f16(ws_f16 h) {
    return ws_e5m2_from_bits(ws_f16_bits_nan(h.bits) ? ws_fp8_nan_of_f32(__float_as_uint(ws_f16_to_f32(h)), true) : ws_e5m2_cvt_f16(h.bits));
}
__device__ __forceinline__ ws_f16 ws_e4m3_to_f16(ws_e4m3 x) {
    return ws_f16_of_bits(ws_fp8_is_nan(x.bits, false) ? ws_fp8_to_f16_bits(x.bits, false) : ws_e4m3_cvt_to_f16(x.bits));
}
__device__ __forceinline__ ws_f16 ws_e5m2_to_f16(ws_e5m2 x) {
    return ws_f16_of_bits(ws_fp8_is_nan(x.bits, true) ? ws_fp8_to_f16_bits(x.bits, true) : ws_e5m2_cvt_to_f16(x.bits));
}
__device__ __forceinline__ float ws_e4m3_to_f32(ws_e4m3 x) { return ws_f16_to_f32(ws_e4m3_to_f16(x)); }
__device__ __forceinline__ float ws_e5m2_to_f32(ws_e5m2 x) { return ws_f16_to_f32(ws_e5m2_to_f16(x)); }
// bf16: every bf16 is an f32 and every fp8 value a bf16, so both go through f32.
__device__ __forceinline__ ws_e4m3 ws_e4m3_from_bf16(ws_bf16 h) { return ws_e4m3_from_f32(ws_bf16_to_f32(h)); }
__device__ __forceinline__ ws_e5m2 ws_e5m2_from_bf16(ws_bf16 h) { return ws_e5m2_from_f32(ws_bf16_to_f32(h)); }
__device__ __forceinline__ ws_bf16 ws_e4m3_to_bf16(ws_e4m3 x) { return ws_bf16_from_f32(ws_e4m3_to_f32(x)); }
__device__ __forceinline__ ws_bf16 ws_e5m2_to_bf16(ws_e5m2 x) { return ws_bf16_from_f32(ws_e5m2_to_f32(x)); }
#undef WS_FP8_CVT
// Shuffles and match_any move an fp8 value as a word (ws_word in prelude.cuh).
template <> struct ws_word<ws_e4m3> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(ws_e4m3 v) { return v.bits; }
    static __device__ __forceinline__ ws_e4m3 from(unsigned int w) { return ws_e4m3_from_bits((unsigned char)w); } };
template <> struct ws_word<ws_e5m2> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(ws_e5m2 v) { return v.bits; }
    static __device__ __forceinline__ ws_e5m2 from(unsigned int w) { return ws_e5m2_from_bits((unsigned char)w); } };
#endif // WS_HOST_SHIM
