// ---- textures (docs/textures.md): `tex.fetch(x, y)` of a `Texture2D<T>` parameter.
// A texture arrives as four parameters: the texture object (cudaTextureObject_t, a 64-bit
// handle), its width and height, and its address mode (0 wrap, 1 clamp, 2 border). The
// object reads pitch-linear memory with point sampling and unnormalised coordinates; it
// clamps or reads a zero border itself, but CUDA wraps only normalised coordinates, so
// wrap is an exact Euclidean remainder here, before the fetch (most coordinates are in
// range and skip it). Texel i covers [i, i + 1): its centre i + 0.5 is exact in f32 for
// every width a texture may have, and a coordinate that rounds is outside either way.
__device__ __forceinline__ int ws_tex_wrap(int c, int n) {
    if ((unsigned int)c < (unsigned int)n) return c;
    int r = c % n;
    return r < 0 ? r + n : r;
}
// tex.2d.v4 writes four channels; a one-channel texture fills the first, and the other
// three go to registers local to the asm block (so C declares no unused variables).
__device__ __forceinline__ unsigned int ws_tex2d_u32(unsigned long long t, float x, float y) {
    unsigned int r;
    asm("{ .reg .u32 ws_u1, ws_u2, ws_u3;\n\t"
        "tex.2d.v4.u32.f32 {%0, ws_u1, ws_u2, ws_u3}, [%1, {%2, %3}]; }"
        : "=r"(r) : "l"(t), "f"(x), "f"(y));
    return r;
}
__device__ __forceinline__ int ws_tex2d_s32(unsigned long long t, float x, float y) {
    int r;
    asm("{ .reg .s32 ws_s1, ws_s2, ws_s3;\n\t"
        "tex.2d.v4.s32.f32 {%0, ws_s1, ws_s2, ws_s3}, [%1, {%2, %3}]; }"
        : "=r"(r) : "l"(t), "f"(x), "f"(y));
    return r;
}
// The channel of one texel as T: integer formats come back zero- (unsigned) or
// sign-extended (signed) to 32 bits, so the cast keeps the value. An f32 texture is a
// 32-bit unsigned integer texture to the texture unit (the runtime creates it so), read
// as its bits: point sampling needs no float path, and the bits come back as they are
// (NaN payloads, subnormals), as a load would.
template <typename T> struct ws_texel;
template <> struct ws_texel<unsigned char>  { static __device__ __forceinline__ unsigned char  read(unsigned long long t, float x, float y) { return (unsigned char)ws_tex2d_u32(t, x, y); } };
template <> struct ws_texel<unsigned short> { static __device__ __forceinline__ unsigned short read(unsigned long long t, float x, float y) { return (unsigned short)ws_tex2d_u32(t, x, y); } };
template <> struct ws_texel<unsigned int>   { static __device__ __forceinline__ unsigned int   read(unsigned long long t, float x, float y) { return ws_tex2d_u32(t, x, y); } };
template <> struct ws_texel<signed char>    { static __device__ __forceinline__ signed char    read(unsigned long long t, float x, float y) { return (signed char)ws_tex2d_s32(t, x, y); } };
template <> struct ws_texel<short>          { static __device__ __forceinline__ short          read(unsigned long long t, float x, float y) { return (short)ws_tex2d_s32(t, x, y); } };
template <> struct ws_texel<int>            { static __device__ __forceinline__ int            read(unsigned long long t, float x, float y) { return ws_tex2d_s32(t, x, y); } };
template <> struct ws_texel<float>          { static __device__ __forceinline__ float          read(unsigned long long t, float x, float y) { return __uint_as_float(ws_tex2d_u32(t, x, y)); } };
template <typename T>
__device__ __forceinline__ T ws_tex2d_fetch(unsigned long long tex, int w, int h, int mode, int x, int y) {
    if (mode == 0) {
        x = ws_tex_wrap(x, w);
        y = ws_tex_wrap(y, h);
    }
    return ws_texel<T>::read(tex, (float)x + 0.5f, (float)y + 0.5f);
}
