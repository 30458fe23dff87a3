// The fp8 conversions of runtime/src/prelude_fp8.cuh as GPUs before sm_89 run them (the
// integer arithmetic, no cvt), compiled for the host by tests/fp8.rs
// (`c_software_path_matches_the_simulator`) with the few CUDA builtins they use defined
// here. Writes to stdout, raw little-endian: for each code 0..=255 the e4m3 and e5m2 f16 bits
// (u16 each) and f32 bits (u32 each); for each f16 bit pattern the e4m3 and e5m2 codes; then
// for each f32 bit pattern of a fixed xorshift sequence, its bits (u32) and both codes.
#include <cstdio>
#include <cstring>
#include <cstdint>
#define __device__
#define __forceinline__ inline
#define __align__(n) alignas(n)
static unsigned int __float_as_uint(float f) { unsigned int u; memcpy(&u, &f, 4); return u; }
static float __uint_as_float(unsigned int u) { float f; memcpy(&f, &u, 4); return f; }
static int __clz(unsigned int x) { return x ? __builtin_clz(x) : 32; }
// prelude.cuh's f16 helpers the fp8 block uses (the f16-to-float conversion is exact).
struct ws_f16 { unsigned short bits; };
static ws_f16 ws_f16_of_bits(unsigned short b) { ws_f16 h; h.bits = b; return h; }
static bool ws_f16_bits_nan(unsigned short h) { return (h & 0x7fffu) > 0x7c00u; }
static float ws_cvt_f32_f16(unsigned short h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
static float ws_f16_to_f32(ws_f16 h) {
    if (ws_f16_bits_nan(h.bits)) return __uint_as_float(((unsigned int)(h.bits & 0x8000u) << 16) | 0x7fc00000u | ((unsigned int)(h.bits & 0x3ffu) << 13));
    return ws_cvt_f32_f16(h.bits);
}
// And its bf16 ones (the fp8 block converts through them): bf16 is f32's top half; to
// bf16 rounds to nearest even, a NaN kept quiet.
struct ws_bf16 { unsigned short bits; };
static float ws_bf16_to_f32(ws_bf16 h) { return __uint_as_float((unsigned int)h.bits << 16); }
static ws_bf16 ws_bf16_from_f32(float x) {
    const unsigned int u = __float_as_uint(x);
    ws_bf16 h;
    h.bits = (u & 0x7fffffffu) > 0x7f800000u ? (unsigned short)((u >> 16) | 0x40u)
                                              : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    return h;
}
template <typename T> struct ws_word;
// And its `ws_all_bits`, which the fp8 block specialises for its two types.
template <typename T> struct ws_all_bits { static constexpr bool value = false; };
#define WS_ALL_BITS(T) template <> struct ws_all_bits<T> { static constexpr bool value = true; };
#include PRELUDE_FP8
static void put(const void *p, size_t n) { fwrite(p, 1, n, stdout); }
int main() {
    for (unsigned int c = 0; c < 256; c++) {
        const ws_e4m3 a = ws_e4m3_from_bits((unsigned char)c);
        const ws_e5m2 b = ws_e5m2_from_bits((unsigned char)c);
        const unsigned short ha = ws_e4m3_to_f16(a).bits, hb = ws_e5m2_to_f16(b).bits;
        const float fa = ws_e4m3_to_f32(a), fb = ws_e5m2_to_f32(b);
        put(&ha, 2); put(&hb, 2); put(&fa, 4); put(&fb, 4);
    }
    for (unsigned int h = 0; h < 65536; h++) {
        const ws_f16 x = ws_f16_of_bits((unsigned short)h);
        const unsigned char a = ws_e4m3_from_f16(x).bits, b = ws_e5m2_from_f16(x).bits;
        put(&a, 1); put(&b, 1);
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < (1 << 20); i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        unsigned int u = (unsigned int)s;
        // Every other one with an exponent near the fp8 ranges (2^-27 .. 2^20).
        if (i % 2) u = (u & 0x807fffffu) | (((u >> 23) % 48u + 100u) << 23);
        const float x = __uint_as_float(u);
        const unsigned char a = ws_e4m3_from_f32(x).bits, b = ws_e5m2_from_f32(x).bits;
        put(&u, 4); put(&a, 1); put(&b, 1);
    }
    return 0;
}
