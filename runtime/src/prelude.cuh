// ---- warpspeed prelude: gives C the semantics of Rust's integer and float operations.
// Self-contained on purpose: NVRTC as users get it has no CUDA headers to include.

// Checks proven at launch (docs/bounds.md, "Proven at launch"): a check the macro could
// not prove is written `(WS_P(n) ? plain : checked)`; the launch evaluates the conditions
// of site n on the sizes, lengths and block it has and, when they hold, compiles the
// kernel with bit n of WS_PROVEN set, so the check folds away. Unset: every check stays.
#ifndef WS_PROVEN
#define WS_PROVEN 0ull
#endif
#define WS_P(n) ((WS_PROVEN >> (n)) & 1ull)

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
// ptxas (CUDA 13.0, sm_90) leaves `neg.s16`'s result unextended: `(-x) as i64` of
// x = i16::MIN gave 32768 on an H100 although the PTX (`neg.s16`, `cvt.s64.s16`) is right.
// So 16-bit negation (and `abs`, which uses it) goes through a 32-bit `neg` that the
// compiler cannot narrow. 8-bit negation is right as it is (tests/narrow_ints.rs).
#ifndef WS_HOST_SHIM
template <> __device__ __forceinline__ short ws_neg<short>(short a) { int r; asm("neg.s32 %0, %1;" : "=r"(r) : "r"((int)a)); return (short)r; }
#endif
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
// Rust's array copies (`let b = a;`, `b = a;`), which C does not assign: element by element.
template <typename T> __device__ __forceinline__ void ws_copy(T& d, const T& s) { d = s; }
template <typename T, unsigned long long N> __device__ __forceinline__ void ws_copy(T (&d)[N], const T (&s)[N]) {
    for (unsigned long long i = 0; i < N; ++i) ws_copy(d[i], s[i]);
}
// Rust's tuples (values, returns of device functions): aggregates with fields `_0`, `_1`, ...
template <typename A> struct ws_tuple1 { A _0; };
template <typename A, typename B> struct ws_tuple2 { A _0; B _1; };
template <typename A, typename B, typename C> struct ws_tuple3 { A _0; B _1; C _2; };
template <typename A, typename B, typename C, typename D> struct ws_tuple4 { A _0; B _1; C _2; D _3; };
template <typename A, typename B, typename C, typename D, typename E> struct ws_tuple5 { A _0; B _1; C _2; D _3; E _4; };
template <typename A, typename B, typename C, typename D, typename E, typename F> struct ws_tuple6 { A _0; B _1; C _2; D _3; E _4; F _5; };
typedef ws_tuple2<unsigned long long, unsigned long long> ws_usize2;
typedef ws_tuple3<unsigned long long, unsigned long long, unsigned long long> ws_usize3;
__device__ __forceinline__ ws_dim3 ws_thread_idx() { ws_dim3 d = { threadIdx.x, threadIdx.y, threadIdx.z }; return d; }
__device__ __forceinline__ ws_dim3 ws_block_idx() { ws_dim3 d = { blockIdx.x, blockIdx.y, blockIdx.z }; return d; }
__device__ __forceinline__ ws_dim3 ws_block_dim() { ws_dim3 d = { blockDim.x, blockDim.y, blockDim.z }; return d; }
__device__ __forceinline__ ws_dim3 ws_grid_dim() { ws_dim3 d = { gridDim.x, gridDim.y, gridDim.z }; return d; }
__device__ __forceinline__ unsigned long long ws_grid_1d() { return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ ws_usize2 ws_grid_2d() { ws_usize2 g = { ws_grid_1d(), (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y }; return g; }
__device__ __forceinline__ ws_usize3 ws_grid_3d() { ws_usize3 g = { ws_grid_1d(), (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y, (unsigned long long)blockIdx.z * blockDim.z + threadIdx.z }; return g; }
__device__ __forceinline__ unsigned long long ws_grid_stride_1d() { return (unsigned long long)gridDim.x * blockDim.x; }

// The helpers below use CUDA-only builtins; the host C++ test of the integer and float
// semantics (tests/semantics_prop.rs) compiles the prelude with WS_HOST_SHIM and uses none.
#ifndef WS_HOST_SHIM
// ---- bounds checks: `s[i]` is `*ws_at(s, i, len, line, file)`. A failing access records
// the first failure of the launch in `ws_oob` (read and reset by the host at the next
// synchronisation) and goes to `ws_oob_sink` instead, so no memory is corrupted and the
// context stays usable. The sink is as large as a block's static shared memory, so a
// failing row of a 2-D shared tile is a valid place too.
struct ws_oob_t {
    unsigned int state;   // 0 free, 1 being written, 2 written
    unsigned int line;
    unsigned long long index;
    unsigned long long len;
    const char* file;
    unsigned int block[3];
    unsigned int thread[3];
    // Null for an index; for a slice shorter than a device function's `#[len(..)]`,
    // "function\tparameter\tdeclared length" (`index` is then the declared length).
    const char* decl;
};
__device__ ws_oob_t ws_oob;
// Set by the host when it loads the module: a flag in page-locked host memory mapped into
// the device, one per device. A written record also raises it, so a synchronisation reads
// the records (a device-to-host copy each) only when one of them was written.
__device__ unsigned int* ws_oob_dirty;
__device__ __align__(16) unsigned long long ws_oob_sink[6144]; // 16: a vector store may land here
// Inlined at each check (its stores stay in the cold branch): a call there costs the hot
// path more (measured on an H200: Life with checks 1.28x unchecked with a call, 1.20x inlined).
__device__ __forceinline__ void ws_oob_record(unsigned long long i, unsigned long long n, unsigned int line, const char* file, const char* decl) {
    if (atomicCAS(&ws_oob.state, 0u, 1u) == 0u) {
        ws_oob.line = line; ws_oob.index = i; ws_oob.len = n; ws_oob.file = file; ws_oob.decl = decl;
        ws_oob.block[0] = blockIdx.x; ws_oob.block[1] = blockIdx.y; ws_oob.block[2] = blockIdx.z;
        ws_oob.thread[0] = threadIdx.x; ws_oob.thread[1] = threadIdx.y; ws_oob.thread[2] = threadIdx.z;
        __threadfence();
        atomicExch(&ws_oob.state, 2u);
        if (ws_oob_dirty) { __threadfence_system(); *(volatile unsigned int*)ws_oob_dirty = 1u; }
    }
}
__device__ __forceinline__ void ws_oob_report(unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    ws_oob_record(i, n, line, file, (const char*)0);
}
// A device function's `#[len(..)]` at its entry: the declared length in saturating
// arithmetic (past u64::MAX is longer than any slice), and the report of a slice shorter
// than that (the function then returns without touching memory).
__device__ __forceinline__ unsigned long long ws_len_add(unsigned long long a, unsigned long long b) { unsigned long long s = a + b; return s < a ? ~0ull : s; }
__device__ __forceinline__ unsigned long long ws_len_mul(unsigned long long a, unsigned long long b) { return __umul64hi(a, b) != 0ull ? ~0ull : a * b; }
template <typename T> __device__ __forceinline__ T ws_zero() { return T(); }
// A condition `p - n >= 0` of a check proven at a loop's entry, each side summed with
// ws_len_add/ws_len_mul: a saturated `n` may have overflowed and proves nothing; a
// saturated `p` is past every unsaturated `n`.
__device__ __forceinline__ bool ws_ge_sat(unsigned long long p, unsigned long long n) { return n != ~0ull && p >= n; }
__device__ __noinline__ void ws_len_report(unsigned long long need, unsigned long long n, unsigned int line, const char* file, const char* decl) {
    ws_oob_record(need, n, line, file, decl);
}
template <typename T> __device__ __forceinline__ T* ws_at(T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(i < n, 1)) return p + i;
    ws_oob_report(i, n, line, file);
    return (T*)(void*)ws_oob_sink;
}
// A sub-slice `&x[a..b]` of a slice of `n` elements: Rust's check, `a <= b <= n`. A bad
// range is recorded as an out-of-bounds index (start past end: index `a`, length `b`; end
// past the length: index `b`, length `n`) and the caller makes the sub-slice empty.
__device__ __forceinline__ bool ws_range_ok(unsigned long long a, unsigned long long b, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(a <= b && b <= n, 1)) return true;
    if (a > b) ws_oob_report(a, b, line, file); else ws_oob_report(b, n, line, file);
    return false;
}
// `ws_at` for shared memory (a shared array, a row of a shared tile, dynamic shared
// memory). A failing access goes to a sink in shared memory of the element's own type (one
// per type, in kernels that keep such a check), so both results of the check are shared
// addresses and the access stays ld.shared/st.shared/atom.shared. Merged with the global
// `ws_oob_sink`, the pointer would be generic, and every access through it a generic one
// (measured on an H200: Life in one block's shared memory 3.8x slower than unchecked).
template <typename T> __device__ __forceinline__ T* ws_shared_sink() { __shared__ T sink; return &sink; }
template <typename T> __device__ __forceinline__ T* ws_at_shared(T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(i < n, 1)) return p + i;
    ws_oob_report(i, n, line, file);
    return ws_shared_sink<T>();
}
// A read `s[i]` as a value: the load stays a load from `p` (so a `const __restrict__`
// parameter keeps the read-only data cache); a failing read gives 0 and is recorded.
template <typename T> __device__ __forceinline__ T ws_ld(const T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(i < n, 1)) return p[i];
    ws_oob_report(i, n, line, file);
    return T();
}

// A read `s[i]` in a loop that only reads memory (docs/bounds.md, "Deferred reports"): the
// load issues whatever `i` is (at `p[0]` when `i` is out of bounds, or not at all when the
// slice is empty), a failing read gives 0, and its report waits in `d`, in registers, until
// the loop ends (`ws_defer_flush`). The next step's loads then need not wait for this
// index to be known good: an SpMV's `x[col[k]]` checked with a branch at each step ran
// 1.4x its unchecked time on an H200, deferred 1.04x.
struct ws_defer { unsigned long long i, n; const char* file; unsigned int line; bool bad; };
// A device function's checks of global memory (docs/bounds.md, "Checks in device
// functions"): the first failure of the thread waits in the kernel's `ws_dk`, passed to
// every device function, and the kernel records it when it returns. A failing access goes
// to the sink, as `ws_at`'s does, but no report is made on the way: a loop that calls
// the function then has no atomic or fence inside, which would order every access to
// memory. A read of a writable slice goes through the same pointer as its writes, so
// that the compiler may carry a write to the next read and keep the element in registers
// across the loop: seed 002's pi kernel, drawing twice a step from `states[i]`, ran 4.9x
// its unchecked time on an H200 with the reports in the loop, 1.3x with them deferred.
// How the failure is noted was measured on an H200 both ways. With selects (no branch),
// as `ws_ld_d` does, the pi kernel ran 1.30x unchecked, and 1.62x behind a branch; but
// Life's eight reads of a cell's neighbours from a read-only slice ran 2.24x with
// selects, 1.54x behind a branch (1.56x with a report at each read). So writable slices
// note with selects, read-only ones behind a branch.
__device__ __forceinline__ bool ws_note_sel(ws_defer& d, bool ok, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    const bool first = !ok && !d.bad;
    d.i = first ? i : d.i; d.n = first ? n : d.n; d.line = first ? line : d.line; d.file = first ? file : d.file;
    d.bad = d.bad || !ok;
    return ok;
}
template <typename T> __device__ __forceinline__ T ws_ld_d(const T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file, ws_defer& d) {
    const bool ok = i < n;
    const T v = n != 0ull ? p[ok ? i : 0ull] : T();
    ws_note_sel(d, ok, i, n, line, file);
    return ok ? v : T();
}
__device__ __forceinline__ bool ws_note(ws_defer& d, bool ok, unsigned long long i, unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(!ok, 0)) {
        if (!d.bad) { d.i = i; d.n = n; d.line = line; d.file = file; }
        d.bad = true;
    }
    return ok;
}
template <typename T> __device__ __forceinline__ T* ws_at_k(T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file, ws_defer& d) {
    return ws_note_sel(d, i < n, i, n, line, file) ? p + i : (T*)(void*)ws_oob_sink;
}
// Whether every bit pattern of `T` is a value of it: the integers, the floats (halves,
// fp8 and vectors too), and the `#[gpu_struct]`s of such fields (each struct's C says so
// after its layout checks, runtime/src/gpu_struct.rs). Not `bool`, whose bytes other than
// 0 and 1 the compiler may assume never occur.
template <typename T> struct ws_all_bits { static constexpr bool value = false; };
template <typename T, decltype(sizeof(0)) N> struct ws_all_bits<T[N]> { static constexpr bool value = ws_all_bits<T>::value; };
#define WS_ALL_BITS(T) template <> struct ws_all_bits<T> { static constexpr bool value = true; };
WS_ALL_BITS(signed char) WS_ALL_BITS(short) WS_ALL_BITS(int) WS_ALL_BITS(long long)
WS_ALL_BITS(unsigned char) WS_ALL_BITS(unsigned short) WS_ALL_BITS(unsigned int) WS_ALL_BITS(unsigned long long)
WS_ALL_BITS(float) WS_ALL_BITS(double)
// A failing read of a writable slice reads the sink, which failing writes also reach:
// its value is not specified (the launch returns `Err` in any case), except where some bit
// patterns are not values (`ws_all_bits`), where it is `T()`. No select on the value: the
// compiler carries a write to the next read through the one pointer, and the element
// stays in registers across a loop with nothing added to each step's chain of
// dependences. Seed 002's pi kernel (a state of two u64 words, two draws a step) ran
// 1.29x its unchecked time on an H200 with the select, 1.07x without.
template <typename T> __device__ __forceinline__ T ws_ld_k(T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file, ws_defer& d) {
    const T v = *ws_at_k(p, i, n, line, file, d);
    if constexpr (ws_all_bits<T>::value) return v;
    else return i < n ? v : T();
}
// A read-only slice keeps its load from the slice itself (the read-only cache), as `ws_ld`.
template <typename T> __device__ __forceinline__ T ws_ld_k(const T* p, unsigned long long i, unsigned long long n, unsigned int line, const char* file, ws_defer& d) {
    if (__builtin_expect(ws_note(d, i < n, i, n, line, file), 1)) return p[i];
    return T();
}
__device__ __forceinline__ void ws_defer_flush(const ws_defer& d) {
    if (d.bad) ws_oob_report(d.i, d.n, d.line, d.file);
}

// ---- load4 / store4: the four elements of a four-element slice as one access where the
// address allows it (docs/vectors.md). B = 4 * sizeof(T) bytes move as one 4- or 8-byte
// access, or as B / 16 16-byte accesses for 32, 48 and 64 bytes, when the address is a
// multiple of min(B, 16); otherwise (another B, or a misaligned address: a view at an odd
// offset) as four element accesses, so every address is correct. The bits are copied
// between the wide words and the elements (`memcpy`, which the compiler folds
// into register moves), so any element type works: scalars, halves, `#[gpu_struct]`s.
// A length other than 4 is recorded as an out-of-bounds index (shorter: index 3 of its
// length; longer: index its length of length 4) and nothing is moved; `&x[i..i + 4]`'s
// length folds to 4 and the test with it.
struct __align__(16) ws_b16 { unsigned int x, y, z, w; };
struct __align__(8) ws_b8 { unsigned int x, y; };
template <typename T> struct ws_quad {
    static constexpr unsigned long long bytes = 4ull * sizeof(T);
    static constexpr bool one = bytes == 4ull || bytes == 8ull || bytes == 16ull;
    static constexpr bool wide = bytes == 32ull || bytes == 48ull || bytes == 64ull;
    static constexpr unsigned long long align = bytes < 16ull ? bytes : 16ull;
};
__device__ __forceinline__ bool ws_quad_len(unsigned long long n, unsigned int line, const char* file) {
    if (__builtin_expect(n == 4ull, 1)) return true;
    if (n < 4ull) ws_oob_report(3ull, n, line, file); else ws_oob_report(n, 4ull, line, file);
    return false;
}
template <typename T> __device__ __forceinline__ ws_tuple4<T, T, T, T> ws_load4(const T* p, unsigned long long n, unsigned int line, const char* file) {
    typedef ws_quad<T> Q;
    ws_tuple4<T, T, T, T> r;
    if (!ws_quad_len(n, line, file)) { r._0 = T(); r._1 = T(); r._2 = T(); r._3 = T(); return r; }
    if constexpr (Q::one || Q::wide) {
        if (((unsigned long long)p & (Q::align - 1ull)) == 0ull) {
            if constexpr (Q::bytes == 4ull) { unsigned int v = *(const unsigned int*)p; memcpy(&r, &v, 4); }
            else if constexpr (Q::bytes == 8ull) { ws_b8 v = *(const ws_b8*)p; memcpy(&r, &v, 8); }
            else {
                ws_b16 v[Q::bytes / 16ull];
#pragma unroll
                for (unsigned int k = 0; k < Q::bytes / 16ull; ++k) v[k] = ((const ws_b16*)p)[k];
                memcpy(&r, v, Q::bytes);
            }
            return r;
        }
    }
    r._0 = p[0]; r._1 = p[1]; r._2 = p[2]; r._3 = p[3];
    return r;
}
template <typename T> __device__ __forceinline__ void ws_store4(T* p, unsigned long long n, T a, T b, T c, T d, unsigned int line, const char* file) {
    typedef ws_quad<T> Q;
    if (!ws_quad_len(n, line, file)) return;
    if constexpr (Q::one || Q::wide) {
        if (((unsigned long long)p & (Q::align - 1ull)) == 0ull) {
            ws_tuple4<T, T, T, T> r;
            r._0 = a; r._1 = b; r._2 = c; r._3 = d;
            if constexpr (Q::bytes == 4ull) { unsigned int v; memcpy(&v, &r, 4); *(unsigned int*)p = v; }
            else if constexpr (Q::bytes == 8ull) { ws_b8 v; memcpy(&v, &r, 8); *(ws_b8*)p = v; }
            else {
                ws_b16 v[Q::bytes / 16ull];
                memcpy(v, &r, Q::bytes);
#pragma unroll
                for (unsigned int k = 0; k < Q::bytes / 16ull; ++k) ((ws_b16*)p)[k] = v[k];
            }
            return;
        }
    }
    p[0] = a; p[1] = b; p[2] = c; p[3] = d;
}

// ---- cp.async (sm_80): `cp_async(dst, src)` copies 4, 8 or 16 bytes from global to shared
// memory, landing at the `cp_async_wait` that covers its group. A length mismatch or a size
// other than 4, 8, 16 bytes is recorded as an out-of-bounds index (mismatch: index `dn`,
// length `sn`; size: index the byte count, length 16) and nothing is copied. Before sm_80 the
// copy is a plain synchronous one (the waits then have nothing to wait for).
template <typename T> __device__ __forceinline__ void ws_cp_async(T* dst, unsigned long long dn, const T* src, unsigned long long sn, unsigned int line, const char* file) {
    if (dn != sn) { ws_oob_report(dn, sn, line, file); return; }
    const unsigned long long bytes = dn * sizeof(T);
    if (bytes != 4ull && bytes != 8ull && bytes != 16ull) { ws_oob_report(bytes, 16ull, line, file); return; }
#if __CUDA_ARCH__ >= 800
    unsigned int d;
    asm("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; cvt.u32.u64 %0, ws_a; }" : "=r"(d) : "l"(dst));
    unsigned long long g;
    asm("cvta.to.global.u64 %0, %1;" : "=l"(g) : "l"(src));
    if (bytes == 16ull) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(g) : "memory");
    else if (bytes == 8ull) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(d), "l"(g) : "memory");
    else asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d), "l"(g) : "memory");
#else
    for (unsigned long long i = 0; i < bytes; ++i) ((unsigned char*)dst)[i] = ((const unsigned char*)src)[i];
#endif
}
__device__ __forceinline__ void ws_cp_async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
// `wait_group` takes an immediate: one per `n`, 7 for anything larger (waiting more is allowed).
__device__ __forceinline__ void ws_cp_async_wait(unsigned int n) {
#if __CUDA_ARCH__ >= 800
    switch (n) {
    case 0u: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1u: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2u: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3u: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4u: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5u: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6u: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
    }
#endif
}
__device__ __forceinline__ void ws_cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// ---- swizzled tiles: `swizzle_128b(i, size)` and kin, element `i` of a tile of `size`-byte
// elements as TMA's CU_TENSOR_MAP_SWIZZLE_{128,64,32}B lays it out: byte offset bits 4.. XOR
// bits 7.. (3, 2 or 1 of them). `size` is a literal power of 2, so the division is a shift.
__device__ __forceinline__ unsigned long long ws_swizzle(unsigned long long i, unsigned long long size, unsigned long long mask) {
    const unsigned long long o = i * size;
    return (o ^ ((o >> 3) & mask)) / size;
}
__device__ __forceinline__ unsigned long long ws_swizzle_128b(unsigned long long i, unsigned long long size) { return ws_swizzle(i, size, 0x70ull); }
__device__ __forceinline__ unsigned long long ws_swizzle_64b(unsigned long long i, unsigned long long size) { return ws_swizzle(i, size, 0x30ull); }
__device__ __forceinline__ unsigned long long ws_swizzle_32b(unsigned long long i, unsigned long long size) { return ws_swizzle(i, size, 0x10ull); }

// ---- block cooperation, lanes, shared memory
__device__ __forceinline__ unsigned int ws_lane_id() { unsigned int r; asm("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned int ws_active_mask() { return __activemask(); }
__device__ __forceinline__ unsigned int ws_sync_threads_count(bool p) { return (unsigned int)__syncthreads_count((int)p); }
__device__ __forceinline__ bool ws_sync_threads_and(bool p) { return __syncthreads_and((int)p) != 0; }
__device__ __forceinline__ bool ws_sync_threads_or(bool p) { return __syncthreads_or((int)p) != 0; }
// The launch's dynamic shared memory (`dynamic_shared::<T>()`), one block-wide array,
// 1024-byte aligned: a 128B-swizzled wgmma or TMA tile may start at its beginning.
extern __shared__ __align__(1024) unsigned char ws_dynamic_smem[];
template <typename T> __device__ __forceinline__ T* ws_dynamic_shared() { return reinterpret_cast<T*>(ws_dynamic_smem); }
// Its length in T elements: the launch's dynamic shared bytes (%dynamic_smem_size) / sizeof(T).
__device__ __forceinline__ unsigned int ws_dynamic_smem_size() { unsigned int r; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
template <typename T> __device__ __forceinline__ unsigned long long ws_dynamic_shared_len() { return (unsigned long long)(ws_dynamic_smem_size() / (unsigned int)sizeof(T)); }

// ---- half precision: `f16` (CUDA's __half) and `f16x2` (__half2), without cuda_fp16.h.
// The bits of the Rust types (`half::f16`, warpspeed's `f16x2`: `lo` in the low 16 bits).
// Conversions are PTX cvt, correctly rounded (ties to even, subnormals kept, overflow to
// infinity); a NaN keeps its sign and payload bits as the `half` crate does (the quiet bit
// set, the payload's top bits kept; cvt would give the canonical NaN). Arithmetic is
// `half`'s: convert to float, compute, round to f16, which is IEEE half arithmetic (float's
// 24 bits are at least 2 * 11 + 2); a NaN result's payload is not specified (as for
// float). f16x2 +, -, * are the native add.rn/sub.rn/mul.rn.f16x2 (IEEE, no flush, never
// fused). docs/cuda-mapping.md, "Half precision".
struct __align__(2) ws_f16 { unsigned short bits; };
struct __align__(4) ws_f16x2 { unsigned int bits; };
__device__ __forceinline__ ws_f16 ws_f16_of_bits(unsigned short b) { ws_f16 h; h.bits = b; return h; }
__device__ __forceinline__ ws_f16x2 ws_f16x2_of_bits(unsigned int b) { ws_f16x2 h; h.bits = b; return h; }
// The bare cvt instructions (NaN as the hardware gives it).
__device__ __forceinline__ unsigned short ws_cvt_f16_f32(float x) { unsigned short r; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(x)); return r; }
__device__ __forceinline__ unsigned short ws_cvt_f16_f64(double x) { unsigned short r; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r) : "d"(x)); return r; }
__device__ __forceinline__ float ws_cvt_f32_f16(unsigned short h) { float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h)); return r; }
__device__ __forceinline__ double ws_cvt_f64_f16(unsigned short h) { double r; asm("cvt.f64.f16 %0, %1;" : "=d"(r) : "h"(h)); return r; }
__device__ __forceinline__ bool ws_f16_bits_nan(unsigned short h) { return (h & 0x7fffu) > 0x7c00u; }
// f16::from_f32, f16::from_f64, h.to_f32(), h.to_f64().
__device__ __forceinline__ ws_f16 ws_f16_from_f32(float x) {
    const unsigned int u = __float_as_uint(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return ws_f16_of_bits((unsigned short)(((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu)));
    return ws_f16_of_bits(ws_cvt_f16_f32(x));
}
__device__ __forceinline__ ws_f16 ws_f16_from_f64(double x) {
    const unsigned long long u = (unsigned long long)__double_as_longlong(x);
    if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return ws_f16_of_bits((unsigned short)(((u >> 48) & 0x8000ull) | 0x7e00ull | ((u >> 42) & 0x3ffull)));
    return ws_f16_of_bits(ws_cvt_f16_f64(x));
}
__device__ __forceinline__ float ws_f16_to_f32(ws_f16 h) {
    if (ws_f16_bits_nan(h.bits)) return __uint_as_float(((unsigned int)(h.bits & 0x8000u) << 16) | 0x7fc00000u | ((unsigned int)(h.bits & 0x3ffu) << 13));
    return ws_cvt_f32_f16(h.bits);
}
__device__ __forceinline__ double ws_f16_to_f64(ws_f16 h) {
    if (ws_f16_bits_nan(h.bits)) return __longlong_as_double((long long)(((unsigned long long)(h.bits & 0x8000u) << 48) | 0x7ff8000000000000ull | ((unsigned long long)(h.bits & 0x3ffu) << 42)));
    return ws_cvt_f64_f16(h.bits);
}
// + - * / % and unary - on f16; % is fmodf, as Rust's f32 `%`; - flips the sign bit.
#define WS_F16_BINOP(NAME, EXPR) \
__device__ __forceinline__ ws_f16 NAME(ws_f16 a, ws_f16 b) { const float x = ws_cvt_f32_f16(a.bits), y = ws_cvt_f32_f16(b.bits); return ws_f16_of_bits(ws_cvt_f16_f32(EXPR)); }
WS_F16_BINOP(ws_f16_add, x + y)
WS_F16_BINOP(ws_f16_sub, x - y)
WS_F16_BINOP(ws_f16_mul, x * y)
WS_F16_BINOP(ws_f16_div, x / y)
WS_F16_BINOP(ws_f16_rem, fmodf(x, y))
#undef WS_F16_BINOP
__device__ __forceinline__ ws_f16 ws_f16_neg(ws_f16 a) { return ws_f16_of_bits((unsigned short)(a.bits ^ 0x8000u)); }
// h.sqrt(), .floor(), .ceil(), .round(), .trunc(), .min(o), .max(o) through f32, which
// holds every f16: each result is exact or correctly rounded back (sqrt's double rounding
// is innocuous: 24 >= 2 * 11 + 2 bits); .abs() clears the sign bit.
__device__ __forceinline__ ws_f16 ws_f16_via_f32(float x) { return ws_f16_of_bits(ws_cvt_f16_f32(x)); }
__device__ __forceinline__ ws_f16 ws_f16_sqrt(ws_f16 a) { return ws_f16_via_f32(sqrtf(ws_cvt_f32_f16(a.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_floor(ws_f16 a) { return ws_f16_via_f32(floorf(ws_cvt_f32_f16(a.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_ceil(ws_f16 a) { return ws_f16_via_f32(ceilf(ws_cvt_f32_f16(a.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_round(ws_f16 a) { return ws_f16_via_f32(roundf(ws_cvt_f32_f16(a.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_trunc(ws_f16 a) { return ws_f16_via_f32(truncf(ws_cvt_f32_f16(a.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_abs(ws_f16 a) { return ws_f16_of_bits((unsigned short)(a.bits & 0x7fffu)); }
__device__ __forceinline__ ws_f16 ws_f16_min(ws_f16 a, ws_f16 b) { return ws_f16_via_f32(fminf(ws_cvt_f32_f16(a.bits), ws_cvt_f32_f16(b.bits))); }
__device__ __forceinline__ ws_f16 ws_f16_max(ws_f16 a, ws_f16 b) { return ws_f16_via_f32(fmaxf(ws_cvt_f32_f16(a.bits), ws_cvt_f32_f16(b.bits))); }
// Comparisons as float's: NaN is unordered, -0 == +0.
#define WS_F16_CMP(NAME, OP) \
__device__ __forceinline__ bool NAME(ws_f16 a, ws_f16 b) { return ws_cvt_f32_f16(a.bits) OP ws_cvt_f32_f16(b.bits); }
WS_F16_CMP(ws_f16_eq, ==)
WS_F16_CMP(ws_f16_ne, !=)
WS_F16_CMP(ws_f16_lt, <)
WS_F16_CMP(ws_f16_le, <=)
WS_F16_CMP(ws_f16_gt, >)
WS_F16_CMP(ws_f16_ge, >=)
#undef WS_F16_CMP
// f16x2::new(lo, hi), p.lo(), p.hi(), and + - * on each half.
__device__ __forceinline__ ws_f16x2 ws_f16x2_new(ws_f16 lo, ws_f16 hi) { return ws_f16x2_of_bits((unsigned int)lo.bits | ((unsigned int)hi.bits << 16)); }
__device__ __forceinline__ ws_f16 ws_f16x2_lo(ws_f16x2 p) { return ws_f16_of_bits((unsigned short)(p.bits & 0xffffu)); }
__device__ __forceinline__ ws_f16 ws_f16x2_hi(ws_f16x2 p) { return ws_f16_of_bits((unsigned short)(p.bits >> 16)); }
#define WS_F16X2_BINOP(NAME, OP) \
__device__ __forceinline__ ws_f16x2 NAME(ws_f16x2 a, ws_f16x2 b) { unsigned int r; asm(OP ".rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a.bits), "r"(b.bits)); return ws_f16x2_of_bits(r); }
WS_F16X2_BINOP(ws_f16x2_add, "add")
WS_F16X2_BINOP(ws_f16x2_sub, "sub")
WS_F16X2_BINOP(ws_f16x2_mul, "mul")
#undef WS_F16X2_BINOP

// ---- bfloat16: `bf16` (CUDA's __nv_bfloat16) and `bf16x2` (__nv_bfloat162), without
// cuda_bf16.h. The bits of the Rust types (`half::bf16`, warpspeed's `bf16x2`: `lo` in the
// low 16 bits). A bf16 is the top half of a float, so widening is a shift (a NaN gets the
// quiet bit, as in `half`); narrowing rounds to nearest, ties to even, in integer
// arithmetic, which every architecture runs (cvt.rn.bf16.f32 needs sm_80) and which gives
// the `half` crate's bits, NaN included (quiet, payload's top bits kept). f64 narrows by
// cvt.rz.f32.f64 with the sticky bit ("round to odd", exact for the second rounding).
// + - * / % compute in float and round once: for + - * / that is the correctly rounded
// bf16 operation, bit for bit a native one (float's 24 bits are at least 2 * 8 + 2).
// bf16x2 works lane by lane through the same helpers (add.rn.bf16x2 needs sm_90).
// docs/semantics.md, "Half precision".
struct __align__(2) ws_bf16 { unsigned short bits; };
struct __align__(4) ws_bf16x2 { unsigned int bits; };
__device__ __forceinline__ ws_bf16 ws_bf16_of_bits(unsigned short b) { ws_bf16 h; h.bits = b; return h; }
__device__ __forceinline__ ws_bf16x2 ws_bf16x2_of_bits(unsigned int b) { ws_bf16x2 h; h.bits = b; return h; }
__device__ __forceinline__ bool ws_bf16_bits_nan(unsigned short h) { return (h & 0x7fffu) > 0x7f80u; }
__device__ __forceinline__ float ws_cvt_f32_bf16(unsigned short h) {
    return __uint_as_float((unsigned int)(ws_bf16_bits_nan(h) ? (h | 0x0040u) : h) << 16);
}
__device__ __forceinline__ unsigned short ws_cvt_bf16_f32(float x) {
    const unsigned int u = __float_as_uint(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x0040u);
    // Adding 0x7fff plus the kept part's last bit carries into it exactly when the dropped
    // half is above the tie, or at the tie with an odd kept part; overflow carries into
    // the exponent and gives infinity.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // The same rounding in one instruction where the GPU has it (sm_80): round to nearest
    // even, overflow to infinity, subnormals kept (no .ftz); only NaN's payload is ours.
    unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h;
#else
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
}
// f32 to f64 in asm, exact for subnormals too: `fast_math`'s ftz would flush them in C.
__device__ __forceinline__ double ws_bf16_widen_f64(float x) { double r; asm("cvt.f64.f32 %0, %1;" : "=d"(r) : "f"(x)); return r; }
// bf16::from_f32, bf16::from_f64, b.to_f32(), b.to_f64().
__device__ __forceinline__ ws_bf16 ws_bf16_from_f32(float x) { return ws_bf16_of_bits(ws_cvt_bf16_f32(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_from_f64(double x) {
    const unsigned long long u = (unsigned long long)__double_as_longlong(x);
    if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return ws_bf16_of_bits((unsigned short)(((u >> 48) & 0x8000ull) | 0x7fc0ull | ((u >> 45) & 0x7full)));
    // Both cvts in asm: `fast_math`'s ftz must not flush a subnormal f32 here.
    float t; asm("cvt.rz.f32.f64 %0, %1;" : "=f"(t) : "d"(x));
    unsigned int b = __float_as_uint(t);
    if (ws_bf16_widen_f64(t) != x) b |= 1u;
    return ws_bf16_of_bits(ws_cvt_bf16_f32(__uint_as_float(b)));
}
__device__ __forceinline__ float ws_bf16_to_f32(ws_bf16 h) { return ws_cvt_f32_bf16(h.bits); }
__device__ __forceinline__ double ws_bf16_to_f64(ws_bf16 h) {
    // A NaN by its bits, as `half` (cvt.f64.f32 would give the canonical NaN).
    if (ws_bf16_bits_nan(h.bits)) return __longlong_as_double((long long)(((unsigned long long)(h.bits & 0x8000u) << 48) | 0x7ff8000000000000ull | ((unsigned long long)(h.bits & 0x7fu) << 45)));
    return ws_bf16_widen_f64(ws_cvt_f32_bf16(h.bits));
}
// + - * / % and unary - on bf16; % is fmodf, as Rust's f32 `%`; - flips the sign bit.
#define WS_BF16_BINOP(NAME, EXPR) \
__device__ __forceinline__ ws_bf16 NAME(ws_bf16 a, ws_bf16 b) { const float x = ws_cvt_f32_bf16(a.bits), y = ws_cvt_f32_bf16(b.bits); return ws_bf16_of_bits(ws_cvt_bf16_f32(EXPR)); }
WS_BF16_BINOP(ws_bf16_add, x + y)
WS_BF16_BINOP(ws_bf16_sub, x - y)
WS_BF16_BINOP(ws_bf16_mul, x * y)
WS_BF16_BINOP(ws_bf16_div, x / y)
WS_BF16_BINOP(ws_bf16_rem, fmodf(x, y))
#undef WS_BF16_BINOP
__device__ __forceinline__ ws_bf16 ws_bf16_neg(ws_bf16 a) { return ws_bf16_of_bits((unsigned short)(a.bits ^ 0x8000u)); }
__device__ __forceinline__ ws_bf16 ws_bf16_via_f32(float x) { return ws_bf16_of_bits(ws_cvt_bf16_f32(x)); }
__device__ __forceinline__ ws_bf16 ws_bf16_sqrt(ws_bf16 a) { return ws_bf16_via_f32(sqrtf(ws_cvt_f32_bf16(a.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_floor(ws_bf16 a) { return ws_bf16_via_f32(floorf(ws_cvt_f32_bf16(a.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_ceil(ws_bf16 a) { return ws_bf16_via_f32(ceilf(ws_cvt_f32_bf16(a.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_round(ws_bf16 a) { return ws_bf16_via_f32(roundf(ws_cvt_f32_bf16(a.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_trunc(ws_bf16 a) { return ws_bf16_via_f32(truncf(ws_cvt_f32_bf16(a.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_abs(ws_bf16 a) { return ws_bf16_of_bits((unsigned short)(a.bits & 0x7fffu)); }
__device__ __forceinline__ ws_bf16 ws_bf16_min(ws_bf16 a, ws_bf16 b) { return ws_bf16_via_f32(fminf(ws_cvt_f32_bf16(a.bits), ws_cvt_f32_bf16(b.bits))); }
__device__ __forceinline__ ws_bf16 ws_bf16_max(ws_bf16 a, ws_bf16 b) { return ws_bf16_via_f32(fmaxf(ws_cvt_f32_bf16(a.bits), ws_cvt_f32_bf16(b.bits))); }
// Comparisons in float: IEEE (NaN unordered, -0.0 == 0.0).
#define WS_BF16_CMP(NAME, OP) \
__device__ __forceinline__ bool NAME(ws_bf16 a, ws_bf16 b) { return ws_cvt_f32_bf16(a.bits) OP ws_cvt_f32_bf16(b.bits); }
WS_BF16_CMP(ws_bf16_eq, ==)
WS_BF16_CMP(ws_bf16_ne, !=)
WS_BF16_CMP(ws_bf16_lt, <)
WS_BF16_CMP(ws_bf16_le, <=)
WS_BF16_CMP(ws_bf16_gt, >)
WS_BF16_CMP(ws_bf16_ge, >=)
#undef WS_BF16_CMP
// bf16x2::new(lo, hi), p.lo(), p.hi(), and + - * on each half.
__device__ __forceinline__ ws_bf16x2 ws_bf16x2_new(ws_bf16 lo, ws_bf16 hi) { return ws_bf16x2_of_bits((unsigned int)lo.bits | ((unsigned int)hi.bits << 16)); }
__device__ __forceinline__ ws_bf16 ws_bf16x2_lo(ws_bf16x2 p) { return ws_bf16_of_bits((unsigned short)(p.bits & 0xffffu)); }
__device__ __forceinline__ ws_bf16 ws_bf16x2_hi(ws_bf16x2 p) { return ws_bf16_of_bits((unsigned short)(p.bits >> 16)); }
#define WS_BF16X2_BINOP(NAME, LANE) \
__device__ __forceinline__ ws_bf16x2 NAME(ws_bf16x2 a, ws_bf16x2 b) { return ws_bf16x2_new(LANE(ws_bf16x2_lo(a), ws_bf16x2_lo(b)), LANE(ws_bf16x2_hi(a), ws_bf16x2_hi(b))); }
WS_BF16X2_BINOP(ws_bf16x2_add, ws_bf16_add)
WS_BF16X2_BINOP(ws_bf16x2_sub, ws_bf16_sub)
WS_BF16X2_BINOP(ws_bf16x2_mul, ws_bf16_mul)
#undef WS_BF16X2_BINOP

// ---- vector types: `f32x4` (CUDA's float4) and friends, without vector_types.h. Structs
// aligned to their size, so an element of a `&[f32x4]` is one ld.global.v4.f32 /
// st.global.v4.f32 (of a read-only `const ws_f32x4* __restrict__`, ld.global.nc.v4.f32).
// `T()`, what a failing checked read gives, is the zero vector. `+ - *` lane by lane:
// floats with C's operators (never contracted: --fmad=false), integers wrapping.
// docs/vectors.md.
#define WS_LANE_OPS(L, ADD, SUB, MUL) \
__device__ __forceinline__ L ws_lane_add(L a, L b) { return ADD; } \
__device__ __forceinline__ L ws_lane_sub(L a, L b) { return SUB; } \
__device__ __forceinline__ L ws_lane_mul(L a, L b) { return MUL; }
WS_LANE_OPS(float, a + b, a - b, a * b)
WS_LANE_OPS(double, a + b, a - b, a * b)
WS_LANE_OPS(unsigned int, a + b, a - b, a * b)
WS_LANE_OPS(int, ws_add<int>(a, b), ws_sub<int>(a, b), ws_mul<int>(a, b))
#undef WS_LANE_OPS
#define WS_VEC2(T, L, A) \
struct __align__(A) T { L x, y; }; \
__device__ __forceinline__ T T##_new(L x, L y) { T v; v.x = x; v.y = y; return v; } \
__device__ __forceinline__ T T##_splat(L s) { return T##_new(s, s); } \
__device__ __forceinline__ T T##_add(T a, T b) { return T##_new(ws_lane_add(a.x, b.x), ws_lane_add(a.y, b.y)); } \
__device__ __forceinline__ T T##_sub(T a, T b) { return T##_new(ws_lane_sub(a.x, b.x), ws_lane_sub(a.y, b.y)); } \
__device__ __forceinline__ T T##_mul(T a, T b) { return T##_new(ws_lane_mul(a.x, b.x), ws_lane_mul(a.y, b.y)); }
#define WS_VEC4(T, L) \
struct __align__(16) T { L x, y, z, w; }; \
__device__ __forceinline__ T T##_new(L x, L y, L z, L w) { T v; v.x = x; v.y = y; v.z = z; v.w = w; return v; } \
__device__ __forceinline__ T T##_splat(L s) { return T##_new(s, s, s, s); } \
__device__ __forceinline__ T T##_add(T a, T b) { return T##_new(ws_lane_add(a.x, b.x), ws_lane_add(a.y, b.y), ws_lane_add(a.z, b.z), ws_lane_add(a.w, b.w)); } \
__device__ __forceinline__ T T##_sub(T a, T b) { return T##_new(ws_lane_sub(a.x, b.x), ws_lane_sub(a.y, b.y), ws_lane_sub(a.z, b.z), ws_lane_sub(a.w, b.w)); } \
__device__ __forceinline__ T T##_mul(T a, T b) { return T##_new(ws_lane_mul(a.x, b.x), ws_lane_mul(a.y, b.y), ws_lane_mul(a.z, b.z), ws_lane_mul(a.w, b.w)); }
WS_VEC2(ws_f32x2, float, 8)
WS_VEC4(ws_f32x4, float)
WS_VEC2(ws_u32x2, unsigned int, 8)
WS_VEC4(ws_u32x4, unsigned int)
WS_VEC2(ws_i32x2, int, 8)
WS_VEC4(ws_i32x4, int)
WS_VEC2(ws_f64x2, double, 16)
#undef WS_VEC2
#undef WS_VEC4
WS_ALL_BITS(ws_f16) WS_ALL_BITS(ws_f16x2) WS_ALL_BITS(ws_bf16) WS_ALL_BITS(ws_bf16x2)
WS_ALL_BITS(ws_f32x2) WS_ALL_BITS(ws_f32x4) WS_ALL_BITS(ws_u32x2) WS_ALL_BITS(ws_u32x4)
WS_ALL_BITS(ws_i32x2) WS_ALL_BITS(ws_i32x4) WS_ALL_BITS(ws_f64x2)

// ---- warp vote, shuffle, match
__device__ __forceinline__ unsigned int ws_ballot_sync(unsigned int mask, bool p) { return __ballot_sync(mask, (int)p); }
__device__ __forceinline__ bool ws_all_sync(unsigned int mask, bool p) { return __all_sync(mask, (int)p) != 0; }
__device__ __forceinline__ bool ws_any_sync(unsigned int mask, bool p) { return __any_sync(mask, (int)p) != 0; }

// How a scalar travels through a shuffle or a match: as a 32- or 64-bit word `W` holding
// its bits. bool and 8/16-bit integers are widened (signed ones sign-extended) and
// narrowed back; floats (f16 and f16x2 too) go by their bit pattern, so NaN payloads and
// -0.0 survive.
template <typename T> struct ws_word;
#define WS_WORD_INT(T, W) template <> struct ws_word<T> { typedef W type; \
    static __device__ __forceinline__ W to(T v) { return (W)v; } \
    static __device__ __forceinline__ T from(W w) { return (T)w; } };
WS_WORD_INT(signed char, unsigned int)
WS_WORD_INT(unsigned char, unsigned int)
WS_WORD_INT(short, unsigned int)
WS_WORD_INT(unsigned short, unsigned int)
WS_WORD_INT(int, unsigned int)
WS_WORD_INT(unsigned int, unsigned int)
WS_WORD_INT(long long, unsigned long long)
WS_WORD_INT(unsigned long long, unsigned long long)
#undef WS_WORD_INT
template <> struct ws_word<bool> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(bool v) { return v ? 1u : 0u; }
    static __device__ __forceinline__ bool from(unsigned int w) { return w != 0u; } };
template <> struct ws_word<float> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(float v) { return __float_as_uint(v); }
    static __device__ __forceinline__ float from(unsigned int w) { return __uint_as_float(w); } };
template <> struct ws_word<double> { typedef unsigned long long type;
    static __device__ __forceinline__ unsigned long long to(double v) { return (unsigned long long)__double_as_longlong(v); }
    static __device__ __forceinline__ double from(unsigned long long w) { return __longlong_as_double((long long)w); } };
template <> struct ws_word<ws_f16> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(ws_f16 v) { return v.bits; }
    static __device__ __forceinline__ ws_f16 from(unsigned int w) { return ws_f16_of_bits((unsigned short)w); } };
template <> struct ws_word<ws_f16x2> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(ws_f16x2 v) { return v.bits; }
    static __device__ __forceinline__ ws_f16x2 from(unsigned int w) { return ws_f16x2_of_bits(w); } };
template <> struct ws_word<ws_bf16> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(ws_bf16 v) { return v.bits; }
    static __device__ __forceinline__ ws_bf16 from(unsigned int w) { return ws_bf16_of_bits((unsigned short)w); } };
template <> struct ws_word<ws_bf16x2> { typedef unsigned int type;
    static __device__ __forceinline__ unsigned int to(ws_bf16x2 v) { return v.bits; }
    static __device__ __forceinline__ ws_bf16x2 from(unsigned int w) { return ws_bf16x2_of_bits(w); } };

// CUDA's __shfl*_sync with the given width (a power of two, at most 32); 64-bit words use
// CUDA's 64-bit overloads (two 32-bit shuffles).
template <typename T> __device__ __forceinline__ T ws_shfl_sync(unsigned int mask, T v, unsigned int src_lane, unsigned int width) {
    return ws_word<T>::from(__shfl_sync(mask, ws_word<T>::to(v), (int)src_lane, (int)width));
}
template <typename T> __device__ __forceinline__ T ws_shfl_up_sync(unsigned int mask, T v, unsigned int delta, unsigned int width) {
    return ws_word<T>::from(__shfl_up_sync(mask, ws_word<T>::to(v), delta, (int)width));
}
template <typename T> __device__ __forceinline__ T ws_shfl_down_sync(unsigned int mask, T v, unsigned int delta, unsigned int width) {
    return ws_word<T>::from(__shfl_down_sync(mask, ws_word<T>::to(v), delta, (int)width));
}
template <typename T> __device__ __forceinline__ T ws_shfl_xor_sync(unsigned int mask, T v, unsigned int lane_mask, unsigned int width) {
    return ws_word<T>::from(__shfl_xor_sync(mask, ws_word<T>::to(v), (int)lane_mask, (int)width));
}
// Lanes of `mask` whose value has the same bits as this lane's (match.any.sync, sm_70+).
template <typename T> __device__ __forceinline__ unsigned int ws_match_any_sync(unsigned int mask, T v) {
    return __match_any_sync(mask, ws_word<T>::to(v));
}

// ---- fences
__device__ __forceinline__ void ws_thread_fence() { __threadfence(); }
__device__ __forceinline__ void ws_thread_fence_block() { __threadfence_block(); }
__device__ __forceinline__ void ws_thread_fence_system() { __threadfence_system(); }

// ---- atomics: Rust's Ordering as a template argument, on generic pointers (global or
// shared memory). Relaxed is CUDA's plain atomicAdd..atomicCAS; the other orderings are the
// PTX instructions libcu++'s cuda::atomic_ref<T, thread_scope_device> uses (sm_70+), with
// device (.gpu) scope: Acquire/Release/AcqRel give the operation that .sem; SeqCst is
// fence.sc.gpu then the .acq_rel form (loads: fence.sc.gpu; ld.acquire, stores:
// fence.sc.gpu; st.release), a little stronger than libcu++'s fence.sc + .acquire form and
// fence.sc + st.relaxed. Every read-modify-write returns the old value.
// docs/cuda-mapping.md has the table.
#define WS_RELAXED 0
#define WS_ACQUIRE 1
#define WS_RELEASE 2
#define WS_ACQ_REL 3
#define WS_SEQ_CST 4

// The PTX atomics for the orderings other than Relaxed, device (.gpu) scope, generic
// addresses. OP names the operation and PTX type ("add.u32"); RC is the register class of
// the C type CT ("h" 16-bit, "r" 32-bit integer, "l" 64-bit integer, "f" float, "d" double).
#define WS_PTX_RMW(NAME, OP, CT, RC) \
template <int O> __device__ __forceinline__ CT NAME(CT* p, CT v) { \
    CT r; \
    if constexpr (O == WS_ACQUIRE) { asm volatile("atom.acquire.gpu." OP " %0, [%1], %2;" : "=" RC(r) : "l"(p), RC(v) : "memory"); } \
    else if constexpr (O == WS_RELEASE) { asm volatile("atom.release.gpu." OP " %0, [%1], %2;" : "=" RC(r) : "l"(p), RC(v) : "memory"); } \
    else if constexpr (O == WS_ACQ_REL) { asm volatile("atom.acq_rel.gpu." OP " %0, [%1], %2;" : "=" RC(r) : "l"(p), RC(v) : "memory"); } \
    else { static_assert(O == WS_SEQ_CST, "the PTX form is for Acquire, Release, AcqRel and SeqCst"); \
        asm volatile("fence.sc.gpu;" ::: "memory"); \
        asm volatile("atom.acq_rel.gpu." OP " %0, [%1], %2;" : "=" RC(r) : "l"(p), RC(v) : "memory"); } \
    return r; }
WS_PTX_RMW(ws_ptx_add, "add.u32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_add, "add.u64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_add, "add.f32", float, "f")
WS_PTX_RMW(ws_ptx_add, "add.f64", double, "d")
WS_PTX_RMW(ws_ptx_min, "min.s32", int, "r")
WS_PTX_RMW(ws_ptx_min, "min.u32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_min, "min.s64", long long, "l")
WS_PTX_RMW(ws_ptx_min, "min.u64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_max, "max.s32", int, "r")
WS_PTX_RMW(ws_ptx_max, "max.u32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_max, "max.s64", long long, "l")
WS_PTX_RMW(ws_ptx_max, "max.u64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_and, "and.b32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_and, "and.b64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_or, "or.b32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_or, "or.b64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_xor, "xor.b32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_xor, "xor.b64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_exch, "exch.b32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_exch, "exch.b64", unsigned long long, "l")
WS_PTX_RMW(ws_ptx_add_f16, "add.noftz.f16", unsigned short, "h")
WS_PTX_RMW(ws_ptx_add_f16x2, "add.noftz.f16x2", unsigned int, "r")
#if __CUDA_ARCH__ >= 900
WS_PTX_RMW(ws_ptx_add_bf16, "add.noftz.bf16", unsigned short, "h")
WS_PTX_RMW(ws_ptx_add_bf16x2, "add.noftz.bf16x2", unsigned int, "r")
#endif
WS_PTX_RMW(ws_ptx_inc, "inc.u32", unsigned int, "r")
WS_PTX_RMW(ws_ptx_dec, "dec.u32", unsigned int, "r")
#undef WS_PTX_RMW

#define WS_PTX_CAS(BITS, CT, RC) \
template <int O> __device__ __forceinline__ CT ws_ptx_cas(CT* p, CT expected, CT desired) { \
    CT r; \
    if constexpr (O == WS_ACQUIRE) { asm volatile("atom.acquire.gpu.cas." BITS " %0, [%1], %2, %3;" : "=" RC(r) : "l"(p), RC(expected), RC(desired) : "memory"); } \
    else if constexpr (O == WS_RELEASE) { asm volatile("atom.release.gpu.cas." BITS " %0, [%1], %2, %3;" : "=" RC(r) : "l"(p), RC(expected), RC(desired) : "memory"); } \
    else if constexpr (O == WS_ACQ_REL) { asm volatile("atom.acq_rel.gpu.cas." BITS " %0, [%1], %2, %3;" : "=" RC(r) : "l"(p), RC(expected), RC(desired) : "memory"); } \
    else { static_assert(O == WS_SEQ_CST, "the PTX form is for Acquire, Release, AcqRel and SeqCst"); \
        asm volatile("fence.sc.gpu;" ::: "memory"); \
        asm volatile("atom.acq_rel.gpu.cas." BITS " %0, [%1], %2, %3;" : "=" RC(r) : "l"(p), RC(expected), RC(desired) : "memory"); } \
    return r; }
WS_PTX_CAS("b16", unsigned short, "h")
WS_PTX_CAS("b32", unsigned int, "r")
WS_PTX_CAS("b64", unsigned long long, "l")
#undef WS_PTX_CAS

// Atomic load and store of a 16-, 32- or 64-bit word: a volatile access (Relaxed, below),
// ld.acquire.gpu, st.release.gpu; SeqCst puts fence.sc.gpu first. Rust refuses a Release/AcqRel load and an
// Acquire/AcqRel store (a panic there); here they fail to compile. A relaxed access is a
// volatile one: PTX's memory model gives ld/st.volatile the semantics of ld/st.relaxed.sys,
// a relaxed access of system scope, no weaker than .gpu. Unlike inline asm, which takes a
// generic address and whose "memory" clobber makes the compiler reload every value it
// holds from memory around it, the compiler sees which word a volatile access touches:
// a shared word stays an LDS/STS (the radix sort's lanes meet through such words), and
// the radix sort, whose pass reads and publishes status words, went from 7.404 to 7.132 ms
// (2^28 i32 keys on an H200; docs/algorithms.md).
#define WS_PTX_LDST(BITS, CT, RC) \
template <int O> __device__ __forceinline__ CT ws_ptx_ld(const CT* p) { \
    static_assert(O == WS_RELAXED || O == WS_ACQUIRE || O == WS_SEQ_CST, "an atomic load cannot have Release or AcqRel ordering"); \
    CT r; \
    if constexpr (O == WS_RELAXED) { \
        r = *(const volatile CT*)p; } \
    else { if constexpr (O == WS_SEQ_CST) asm volatile("fence.sc.gpu;" ::: "memory"); \
        asm volatile("ld.acquire.gpu." BITS " %0, [%1];" : "=" RC(r) : "l"(p) : "memory"); } \
    return r; } \
template <int O> __device__ __forceinline__ void ws_ptx_st(CT* p, CT v) { \
    static_assert(O == WS_RELAXED || O == WS_RELEASE || O == WS_SEQ_CST, "an atomic store cannot have Acquire or AcqRel ordering"); \
    if constexpr (O == WS_RELAXED) { \
        *(volatile CT*)p = v; } \
    else { if constexpr (O == WS_SEQ_CST) asm volatile("fence.sc.gpu;" ::: "memory"); \
        asm volatile("st.release.gpu." BITS " [%0], %1;" :: "l"(p), RC(v) : "memory"); } }
WS_PTX_LDST("b16", unsigned short, "h")
WS_PTX_LDST("b32", unsigned int, "r")
WS_PTX_LDST("b64", unsigned long long, "l")
#undef WS_PTX_LDST

// One overload per type: `T NAME_impl<O>(T* p, T v)` is RELAXED (CUDA's plain atomic)
// when O is WS_RELAXED, else ORDERED (the PTX form above). Signed 64-bit and bitwise
// operations go through the unsigned type (two's complement wraps alike); float swap,
// compare-exchange, load and store go by bits.
#define WS_ATOMIC_IMPL(NAME, T, RELAXED, ORDERED) \
template <int O> __device__ __forceinline__ T NAME##_impl(T* p, T v) { \
    if constexpr (O == WS_RELAXED) return RELAXED; else return ORDERED; }
typedef unsigned short ws_u16;
typedef unsigned int ws_u32;
typedef unsigned long long ws_u64;

WS_ATOMIC_IMPL(ws_atomic_fetch_add, int, atomicAdd(p, v), (int)ws_ptx_add<O>((ws_u32*)p, (ws_u32)v))
WS_ATOMIC_IMPL(ws_atomic_fetch_add, unsigned int, atomicAdd(p, v), ws_ptx_add<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_add, long long, (long long)atomicAdd((ws_u64*)p, (ws_u64)v), (long long)ws_ptx_add<O>((ws_u64*)p, (ws_u64)v))
WS_ATOMIC_IMPL(ws_atomic_fetch_add, unsigned long long, atomicAdd(p, v), ws_ptx_add<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_add, float, atomicAdd(p, v), ws_ptx_add<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_add, double, atomicAdd(p, v), ws_ptx_add<O>(p, v))

WS_ATOMIC_IMPL(ws_atomic_fetch_sub, int, atomicSub(p, v), (int)ws_ptx_add<O>((ws_u32*)p, 0u - (ws_u32)v))
WS_ATOMIC_IMPL(ws_atomic_fetch_sub, unsigned int, atomicSub(p, v), ws_ptx_add<O>(p, 0u - v))
WS_ATOMIC_IMPL(ws_atomic_fetch_sub, long long, (long long)atomicAdd((ws_u64*)p, 0ull - (ws_u64)v), (long long)ws_ptx_add<O>((ws_u64*)p, 0ull - (ws_u64)v))
WS_ATOMIC_IMPL(ws_atomic_fetch_sub, unsigned long long, atomicAdd(p, 0ull - v), ws_ptx_add<O>(p, 0ull - v))
WS_ATOMIC_IMPL(ws_atomic_fetch_sub, float, atomicAdd(p, -v), ws_ptx_add<O>(p, -v))
WS_ATOMIC_IMPL(ws_atomic_fetch_sub, double, atomicAdd(p, -v), ws_ptx_add<O>(p, -v))

WS_ATOMIC_IMPL(ws_atomic_fetch_min, int, atomicMin(p, v), ws_ptx_min<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_min, unsigned int, atomicMin(p, v), ws_ptx_min<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_min, long long, atomicMin(p, v), ws_ptx_min<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_min, unsigned long long, atomicMin(p, v), ws_ptx_min<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_max, int, atomicMax(p, v), ws_ptx_max<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_max, unsigned int, atomicMax(p, v), ws_ptx_max<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_max, long long, atomicMax(p, v), ws_ptx_max<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_fetch_max, unsigned long long, atomicMax(p, v), ws_ptx_max<O>(p, v))

#define WS_ATOMIC_BITWISE(OP, CUDA) \
WS_ATOMIC_IMPL(ws_atomic_fetch_##OP, int, CUDA(p, v), (int)ws_ptx_##OP<O>((ws_u32*)p, (ws_u32)v)) \
WS_ATOMIC_IMPL(ws_atomic_fetch_##OP, unsigned int, CUDA(p, v), ws_ptx_##OP<O>(p, v)) \
WS_ATOMIC_IMPL(ws_atomic_fetch_##OP, long long, (long long)CUDA((ws_u64*)p, (ws_u64)v), (long long)ws_ptx_##OP<O>((ws_u64*)p, (ws_u64)v)) \
WS_ATOMIC_IMPL(ws_atomic_fetch_##OP, unsigned long long, CUDA(p, v), ws_ptx_##OP<O>(p, v))
WS_ATOMIC_BITWISE(and, atomicAnd)
WS_ATOMIC_BITWISE(or, atomicOr)
WS_ATOMIC_BITWISE(xor, atomicXor)
#undef WS_ATOMIC_BITWISE

WS_ATOMIC_IMPL(ws_atomic_swap, int, atomicExch(p, v), (int)ws_ptx_exch<O>((ws_u32*)p, (ws_u32)v))
WS_ATOMIC_IMPL(ws_atomic_swap, unsigned int, atomicExch(p, v), ws_ptx_exch<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_swap, long long, (long long)atomicExch((ws_u64*)p, (ws_u64)v), (long long)ws_ptx_exch<O>((ws_u64*)p, (ws_u64)v))
WS_ATOMIC_IMPL(ws_atomic_swap, unsigned long long, atomicExch(p, v), ws_ptx_exch<O>(p, v))
WS_ATOMIC_IMPL(ws_atomic_swap, float, atomicExch(p, v), __uint_as_float(ws_ptx_exch<O>((ws_u32*)p, __float_as_uint(v))))
WS_ATOMIC_IMPL(ws_atomic_swap, double,
    __longlong_as_double((long long)atomicExch((ws_u64*)p, (ws_u64)__double_as_longlong(v))),
    __longlong_as_double((long long)ws_ptx_exch<O>((ws_u64*)p, (ws_u64)__double_as_longlong(v))))
#undef WS_ATOMIC_IMPL

// CUDA's wrapping counters (u32 only): inc gives `old >= limit ? 0 : old + 1`, dec gives
// `old == 0 || old > limit ? limit : old - 1`.
template <int O> __device__ __forceinline__ unsigned int ws_atomic_inc(unsigned int* p, unsigned int limit) {
    if constexpr (O == WS_RELAXED) return atomicInc(p, limit); else return ws_ptx_inc<O>(p, limit);
}
template <int O> __device__ __forceinline__ unsigned int ws_atomic_dec(unsigned int* p, unsigned int limit) {
    if constexpr (O == WS_RELAXED) return atomicDec(p, limit); else return ws_ptx_dec<O>(p, limit);
}

// 16-bit compare-and-swap (sm_70+): atomicCAS's 16-bit overload, atom.cas.b16.
template <int O> __device__ __forceinline__ ws_u16 ws_atomic_cas_impl(ws_u16* p, ws_u16 expected, ws_u16 desired) {
    if constexpr (O == WS_RELAXED) return atomicCAS(p, expected, desired); else return ws_ptx_cas<O>(p, expected, desired);
}
template <int O> __device__ __forceinline__ ws_u32 ws_atomic_cas_impl(ws_u32* p, ws_u32 expected, ws_u32 desired) {
    if constexpr (O == WS_RELAXED) return atomicCAS(p, expected, desired); else return ws_ptx_cas<O>(p, expected, desired);
}
template <int O> __device__ __forceinline__ ws_u64 ws_atomic_cas_impl(ws_u64* p, ws_u64 expected, ws_u64 desired) {
    if constexpr (O == WS_RELAXED) return atomicCAS(p, expected, desired); else return ws_ptx_cas<O>(p, expected, desired);
}
template <int O> __device__ __forceinline__ int ws_atomic_cas_impl(int* p, int expected, int desired) {
    return (int)ws_atomic_cas_impl<O>((ws_u32*)p, (ws_u32)expected, (ws_u32)desired);
}
template <int O> __device__ __forceinline__ long long ws_atomic_cas_impl(long long* p, long long expected, long long desired) {
    return (long long)ws_atomic_cas_impl<O>((ws_u64*)p, (ws_u64)expected, (ws_u64)desired);
}
template <int O> __device__ __forceinline__ float ws_atomic_cas_impl(float* p, float expected, float desired) {
    return __uint_as_float(ws_atomic_cas_impl<O>((ws_u32*)p, __float_as_uint(expected), __float_as_uint(desired)));
}
template <int O> __device__ __forceinline__ double ws_atomic_cas_impl(double* p, double expected, double desired) {
    return __longlong_as_double((long long)ws_atomic_cas_impl<O>((ws_u64*)p, (ws_u64)__double_as_longlong(expected), (ws_u64)__double_as_longlong(desired)));
}

template <int O> __device__ __forceinline__ ws_u32 ws_atomic_load_impl(const ws_u32* p) { return ws_ptx_ld<O>(p); }
template <int O> __device__ __forceinline__ ws_u64 ws_atomic_load_impl(const ws_u64* p) { return ws_ptx_ld<O>(p); }
template <int O> __device__ __forceinline__ int ws_atomic_load_impl(const int* p) { return (int)ws_ptx_ld<O>((const ws_u32*)p); }
template <int O> __device__ __forceinline__ long long ws_atomic_load_impl(const long long* p) { return (long long)ws_ptx_ld<O>((const ws_u64*)p); }
template <int O> __device__ __forceinline__ float ws_atomic_load_impl(const float* p) { return __uint_as_float(ws_ptx_ld<O>((const ws_u32*)p)); }
template <int O> __device__ __forceinline__ double ws_atomic_load_impl(const double* p) { return __longlong_as_double((long long)ws_ptx_ld<O>((const ws_u64*)p)); }

template <int O> __device__ __forceinline__ void ws_atomic_store_impl(ws_u32* p, ws_u32 v) { ws_ptx_st<O>(p, v); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(ws_u64* p, ws_u64 v) { ws_ptx_st<O>(p, v); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(int* p, int v) { ws_ptx_st<O>((ws_u32*)p, (ws_u32)v); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(long long* p, long long v) { ws_ptx_st<O>((ws_u64*)p, (ws_u64)v); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(float* p, float v) { ws_ptx_st<O>((ws_u32*)p, __float_as_uint(v)); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(double* p, double v) { ws_ptx_st<O>((ws_u64*)p, (ws_u64)__double_as_longlong(v)); }

// ---- half atomics (sm_70+): fetch_add is atom.add.noftz.f16 / .f16x2 (CUDA's atomicAdd on
// __half and __half2: IEEE round to nearest, subnormals kept); load, store and
// compare-and-swap by bits (16 and 32 bits); f16 swap is a compare-and-swap loop (PTX has no
// 16-bit exchange), f16x2 swap is exch.b32. Relaxed add uses the global or shared form
// where the pointer's space is known (__isGlobal/__isShared fold), as NVVM does for
// atomicAdd on float; the generic form otherwise. No sub, min, max or bitwise operations.
#define WS_ATOMIC_ADD_HALF(T, W, RC, PTX, ORDERED) \
template <int O> __device__ __forceinline__ T ws_atomic_fetch_add_impl(T* p, T v) { \
    W r; \
    if constexpr (O == WS_RELAXED) { \
        if (__isGlobal(p)) { asm volatile("{ .reg .u64 ws_a; cvta.to.global.u64 ws_a, %1; atom.global." PTX " %0, [ws_a], %2; }" : "=" RC(r) : "l"(p), RC(v.bits) : "memory"); } \
        else if (__isShared(p)) { asm volatile("{ .reg .u64 ws_a; cvta.to.shared.u64 ws_a, %1; atom.shared." PTX " %0, [ws_a], %2; }" : "=" RC(r) : "l"(p), RC(v.bits) : "memory"); } \
        else { asm volatile("atom." PTX " %0, [%1], %2;" : "=" RC(r) : "l"(p), RC(v.bits) : "memory"); } \
    } else { r = ORDERED<O>((W*)p, v.bits); } \
    T out; out.bits = r; return out; }
WS_ATOMIC_ADD_HALF(ws_f16, ws_u16, "h", "add.noftz.f16", ws_ptx_add_f16)
WS_ATOMIC_ADD_HALF(ws_f16x2, ws_u32, "r", "add.noftz.f16x2", ws_ptx_add_f16x2)
#if __CUDA_ARCH__ >= 900
WS_ATOMIC_ADD_HALF(ws_bf16, ws_u16, "h", "add.noftz.bf16", ws_ptx_add_bf16)
WS_ATOMIC_ADD_HALF(ws_bf16x2, ws_u32, "r", "add.noftz.bf16x2", ws_ptx_add_bf16x2)
#endif
#undef WS_ATOMIC_ADD_HALF
template <int O> __device__ __forceinline__ ws_f16 ws_atomic_cas_impl(ws_f16* p, ws_f16 expected, ws_f16 desired) {
    return ws_f16_of_bits(ws_atomic_cas_impl<O>((ws_u16*)p, expected.bits, desired.bits));
}
template <int O> __device__ __forceinline__ ws_f16x2 ws_atomic_cas_impl(ws_f16x2* p, ws_f16x2 expected, ws_f16x2 desired) {
    return ws_f16x2_of_bits(ws_atomic_cas_impl<O>((ws_u32*)p, expected.bits, desired.bits));
}
template <int O> __device__ __forceinline__ ws_f16 ws_atomic_load_impl(const ws_f16* p) { return ws_f16_of_bits(ws_ptx_ld<O>((const ws_u16*)p)); }
template <int O> __device__ __forceinline__ ws_f16x2 ws_atomic_load_impl(const ws_f16x2* p) { return ws_f16x2_of_bits(ws_ptx_ld<O>((const ws_u32*)p)); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(ws_f16* p, ws_f16 v) { ws_ptx_st<O>((ws_u16*)p, v.bits); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(ws_f16x2* p, ws_f16x2 v) { ws_ptx_st<O>((ws_u32*)p, v.bits); }
// f16 swap: every CAS carries the ordering; the first read is relaxed.
template <int O> __device__ __forceinline__ ws_f16 ws_atomic_swap_impl(ws_f16* p, ws_f16 v) {
    ws_u16* q = (ws_u16*)p;
    ws_u16 old = ws_ptx_ld<WS_RELAXED>((const ws_u16*)q), seen;
    do { seen = old; old = ws_atomic_cas_impl<O>(q, seen, v.bits); } while (old != seen);
    return ws_f16_of_bits(old);
}
template <int O> __device__ __forceinline__ ws_f16x2 ws_atomic_swap_impl(ws_f16x2* p, ws_f16x2 v) {
    if constexpr (O == WS_RELAXED) return ws_f16x2_of_bits(atomicExch((ws_u32*)p, v.bits));
    else return ws_f16x2_of_bits(ws_ptx_exch<O>((ws_u32*)p, v.bits));
}

// ---- bfloat16 atomics: as the half ones. fetch_add is atom.add.noftz.bf16 / .bf16x2 on
// sm_90+ (PTX has them from sm_90; CUDA's atomicAdd on __nv_bfloat16 does the same), and a
// compare-and-swap loop of ws_bf16_add elsewhere, which gives the same bits: each step is
// the correctly rounded bf16 sum (the instruction's noftz: subnormals kept).
#if __CUDA_ARCH__ < 900
template <int O> __device__ __forceinline__ ws_bf16 ws_atomic_fetch_add_impl(ws_bf16* p, ws_bf16 v) {
    ws_u16* q = (ws_u16*)p;
    ws_u16 old = ws_ptx_ld<WS_RELAXED>((const ws_u16*)q), seen;
    do { seen = old; old = ws_atomic_cas_impl<O>(q, seen, ws_bf16_add(ws_bf16_of_bits(seen), v).bits); } while (old != seen);
    return ws_bf16_of_bits(old);
}
template <int O> __device__ __forceinline__ ws_bf16x2 ws_atomic_fetch_add_impl(ws_bf16x2* p, ws_bf16x2 v) {
    ws_u32* q = (ws_u32*)p;
    ws_u32 old = ws_ptx_ld<WS_RELAXED>((const ws_u32*)q), seen;
    do { seen = old; old = ws_atomic_cas_impl<O>(q, seen, ws_bf16x2_add(ws_bf16x2_of_bits(seen), v).bits); } while (old != seen);
    return ws_bf16x2_of_bits(old);
}
#endif
template <int O> __device__ __forceinline__ ws_bf16 ws_atomic_cas_impl(ws_bf16* p, ws_bf16 expected, ws_bf16 desired) {
    return ws_bf16_of_bits(ws_atomic_cas_impl<O>((ws_u16*)p, expected.bits, desired.bits));
}
template <int O> __device__ __forceinline__ ws_bf16x2 ws_atomic_cas_impl(ws_bf16x2* p, ws_bf16x2 expected, ws_bf16x2 desired) {
    return ws_bf16x2_of_bits(ws_atomic_cas_impl<O>((ws_u32*)p, expected.bits, desired.bits));
}
template <int O> __device__ __forceinline__ ws_bf16 ws_atomic_load_impl(const ws_bf16* p) { return ws_bf16_of_bits(ws_ptx_ld<O>((const ws_u16*)p)); }
template <int O> __device__ __forceinline__ ws_bf16x2 ws_atomic_load_impl(const ws_bf16x2* p) { return ws_bf16x2_of_bits(ws_ptx_ld<O>((const ws_u32*)p)); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(ws_bf16* p, ws_bf16 v) { ws_ptx_st<O>((ws_u16*)p, v.bits); }
template <int O> __device__ __forceinline__ void ws_atomic_store_impl(ws_bf16x2* p, ws_bf16x2 v) { ws_ptx_st<O>((ws_u32*)p, v.bits); }
template <int O> __device__ __forceinline__ ws_bf16 ws_atomic_swap_impl(ws_bf16* p, ws_bf16 v) {
    ws_u16* q = (ws_u16*)p;
    ws_u16 old = ws_ptx_ld<WS_RELAXED>((const ws_u16*)q), seen;
    do { seen = old; old = ws_atomic_cas_impl<O>(q, seen, v.bits); } while (old != seen);
    return ws_bf16_of_bits(old);
}
template <int O> __device__ __forceinline__ ws_bf16x2 ws_atomic_swap_impl(ws_bf16x2* p, ws_bf16x2 v) {
    if constexpr (O == WS_RELAXED) return ws_bf16x2_of_bits(atomicExch((ws_u32*)p, v.bits));
    else return ws_bf16x2_of_bits(ws_ptx_exch<O>((ws_u32*)p, v.bits));
}

// Float fetch_min/fetch_max: a compare-and-swap loop (no GPU has these instructions for
// f32/f64) computing fminf/fmaxf, which follow Rust's f32::min/max: a NaN operand yields
// the other one. Every CAS carries the ordering; the first read is relaxed.
#define WS_ATOMIC_FMINMAX(NAME, T, W, BITS, FROM, F) \
template <int O> __device__ __forceinline__ T NAME##_impl(T* p, T v) { \
    W* q = (W*)p; \
    W old = ws_atomic_load_impl<WS_RELAXED>((const W*)q), seen; \
    do { seen = old; old = ws_atomic_cas_impl<O>(q, seen, (W)BITS(F(FROM(seen), v))); } while (old != seen); \
    return FROM(old); }
#define WS_U64_AS_DOUBLE(w) __longlong_as_double((long long)(w))
WS_ATOMIC_FMINMAX(ws_atomic_fetch_min, float, ws_u32, __float_as_uint, __uint_as_float, fminf)
WS_ATOMIC_FMINMAX(ws_atomic_fetch_max, float, ws_u32, __float_as_uint, __uint_as_float, fmaxf)
WS_ATOMIC_FMINMAX(ws_atomic_fetch_min, double, ws_u64, __double_as_longlong, WS_U64_AS_DOUBLE, fmin)
WS_ATOMIC_FMINMAX(ws_atomic_fetch_max, double, ws_u64, __double_as_longlong, WS_U64_AS_DOUBLE, fmax)
#undef WS_U64_AS_DOUBLE
#undef WS_ATOMIC_FMINMAX

// The atomics the emitter calls: `NAME<O>(p, v)` or `NAME<O, T>(p, v)`, T taken from the
// pointer (int, unsigned int, long long, unsigned long long, float, double; the bitwise
// ones integers only; ws_f16 and ws_f16x2 for fetch_add, swap, cas, load and store); the
// value converts to T. They return the old value.
// compare-exchange returns the old value too: it succeeded iff that equals `expected` (by
// bits for floats); O is the stronger of Rust's success and failure orderings.
template <typename T> struct ws_same { typedef T type; }; // keeps a parameter out of deduction
#define WS_ATOMIC_RMW(NAME) \
template <int O, typename T> __device__ __forceinline__ T NAME(T* p, typename ws_same<T>::type v) { return NAME##_impl<O>(p, v); }
WS_ATOMIC_RMW(ws_atomic_fetch_add)
WS_ATOMIC_RMW(ws_atomic_fetch_sub)
WS_ATOMIC_RMW(ws_atomic_fetch_min)
WS_ATOMIC_RMW(ws_atomic_fetch_max)
WS_ATOMIC_RMW(ws_atomic_fetch_and)
WS_ATOMIC_RMW(ws_atomic_fetch_or)
WS_ATOMIC_RMW(ws_atomic_fetch_xor)
WS_ATOMIC_RMW(ws_atomic_swap)
#undef WS_ATOMIC_RMW
template <int O, typename T> __device__ __forceinline__ T ws_atomic_cas(T* p, typename ws_same<T>::type expected, typename ws_same<T>::type desired) {
    return ws_atomic_cas_impl<O>(p, expected, desired);
}
template <int O, typename T> __device__ __forceinline__ T ws_atomic_load(const T* p) { return ws_atomic_load_impl<O>(p); }
template <int O, typename T> __device__ __forceinline__ void ws_atomic_store(T* p, typename ws_same<T>::type v) { ws_atomic_store_impl<O>(p, v); }

// ---- grid sync (`this_grid().sync()`): an atomic barrier over every block of the grid,
// valid only under a cooperative launch (every block resident at once; the runtime checks).
// One word per module, never reset: at each sync thread (0, 0, 0) of every block adds to it
// once, block (0, 0, 0) adding 0x80000000 - (blocks - 1) and the others 1, so the top bit
// flips when the last block arrives and the low bits are back where they were, ready for the
// next sync and the next launch. This is the scheme of CUDA's own grid.sync(); as there,
// thread (0, 0, 0) of every block must reach every sync. The fences make each block's writes
// before the sync visible to every block after it.
__device__ unsigned int ws_grid_sync_word;
__device__ void ws_grid_sync() {
    __syncthreads();
    if ((threadIdx.x | threadIdx.y | threadIdx.z) == 0u) {
        const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        const bool first = (blockIdx.x | blockIdx.y | blockIdx.z) == 0u;
        const unsigned int add = first ? 0x80000000u - (blocks - 1u) : 1u;
        __threadfence();
        const unsigned int old = atomicAdd(&ws_grid_sync_word, add);
        volatile unsigned int* word = &ws_grid_sync_word;
        while (((old ^ *word) & 0x80000000u) == 0u) { }
        __threadfence();
    }
    __syncthreads();
}
#endif // WS_HOST_SHIM

