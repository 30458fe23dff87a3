//! The prelude's helpers for block cooperation, warp vote/shuffle/match, fences and
//! atomics compile in bare NVRTC (no headers) for every scalar type and every ordering, on
//! sm_75, sm_80 and sm_90; and the PTX for sm_90 holds the instructions they stand for
//! (Relaxed is CUDA's plain atomic, not a CAS loop; Acquire is `ld.acquire.gpu`, ...).

mod common;

use std::ffi::CString;
use std::fmt::Write;

use cudarc::nvrtc::result;
use warpspeed_runtime::__private::CUDA_PRELUDE;
use warpspeed_runtime::compile::{compile_cubin, nvrtc_options};
use warpspeed_runtime::{Error, KernelOptions};

const EXACT: KernelOptions = KernelOptions { fast_math: false };
const ARCHS: [(u32, u32); 3] = [(7, 5), (8, 0), (9, 0)];

/// The C scalar types of the kernel language (usize/isize are the 64-bit ones; `ws_f16` and
/// `ws_f16x2` are `f16` and `f16x2`, `ws_bf16` and `ws_bf16x2` `bf16` and `bf16x2`).
const SCALARS: [&str; 15] = [
    "bool",
    "signed char",
    "short",
    "int",
    "long long",
    "unsigned char",
    "unsigned short",
    "unsigned int",
    "unsigned long long",
    "float",
    "double",
    "ws_f16",
    "ws_f16x2",
    "ws_bf16",
    "ws_bf16x2",
];
/// The types with atomics: AtomicI32/U32/I64/U64 and warpspeed's AtomicF32/F64/F16/F16x2
/// and AtomicBf16/Bf16x2.
const ATOMICS: [&str; 10] = [
    "int",
    "unsigned int",
    "long long",
    "unsigned long long",
    "float",
    "double",
    "ws_f16",
    "ws_f16x2",
    "ws_bf16",
    "ws_bf16x2",
];
/// Rust's `Ordering`: Relaxed, Acquire, Release, AcqRel, SeqCst.
const ORDERINGS: [&str; 5] = [
    "WS_RELAXED",
    "WS_ACQUIRE",
    "WS_RELEASE",
    "WS_ACQ_REL",
    "WS_SEQ_CST",
];

fn is_float(t: &str) -> bool {
    t == "float" || t == "double"
}

fn is_half(t: &str) -> bool {
    t == "ws_f16" || t == "ws_f16x2" || t == "ws_bf16" || t == "ws_bf16x2"
}

/// A kernel that calls every helper for every type it takes and every ordering, each
/// result folded into the output so that nothing is dropped before ptxas sees it.
fn every_helper_source() -> String {
    let mut k = String::from(CUDA_PRELUDE);
    k.push_str(
        r#"
extern "C" __global__ void ws_every_helper(unsigned long long* __restrict__ out, unsigned char* mem, unsigned int x) {
    unsigned long long acc = 0ull;
    const unsigned int m = ws_active_mask();
    const unsigned int lane = ws_lane_id();
    acc += lane + m;
    acc += ws_sync_threads_count(x > lane);
    acc += ws_sync_threads_and(x > lane) ? 1ull : 2ull;
    acc += ws_sync_threads_or(x > lane) ? 3ull : 4ull;
    acc += ws_ballot_sync(m, x < lane);
    acc += ws_all_sync(m, x < lane) ? 5ull : 6ull;
    acc += ws_any_sync(m, x < lane) ? 7ull : 8ull;
    ws_thread_fence();
    ws_thread_fence_block();
    ws_thread_fence_system();
    __syncwarp(m);
    __syncthreads();
    ws_grid_sync();
    printf("lane %u of %u: %g %d %s\n", lane, m, (double)x * 0.5, (int)x, "text");
    { // tuples and array copies (1-D, 2-D, of a row)
        const ws_tuple1<int> t1 = ws_tuple1<int>{(int)x};
        const ws_tuple3<float, ws_tuple2<bool, long long>, ws_dim3> t3 = { 1.5f, { x > 3u, -7ll }, ws_thread_idx() };
        acc += (unsigned long long)(t1._0 + (t3._1._0 ? t3._1._1 : 0ll)) + t3._2.x + (unsigned long long)t3._0;
        int a[4] = { (int)x, 2, 3, 4 }, b[4];
        ws_copy(b, a);
        int m2[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } }, n2[2][3];
        ws_copy(n2, m2);
        ws_copy(n2[0], m2[1]);
        acc += b[0] + b[3] + n2[0][0] + n2[1][2];
    }
    { // half precision: conversions, arithmetic, comparisons, pairs
        const float* fs = (const float*)(mem + 512);
        const double* ds = (const double*)(mem + 768);
        const ws_f16 a = ws_f16_from_f32(fs[lane]), b = ws_f16_from_f64(ds[lane]);
        const ws_f16 r[6] = { ws_f16_add(a, b), ws_f16_sub(a, b), ws_f16_mul(a, b), ws_f16_div(a, b), ws_f16_rem(a, b), ws_f16_neg(a) };
        for (int k = 0; k < 6; k++) { acc = acc * 5ull + r[k].bits; }
        acc += (unsigned long long)__double_as_longlong(ws_f16_to_f64(r[0])) + __float_as_uint(ws_f16_to_f32(r[1]));
        acc += ws_f16_eq(a, b) + 2u * ws_f16_ne(a, b) + 4u * ws_f16_lt(a, b) + 8u * ws_f16_le(a, b) + 16u * ws_f16_gt(a, b) + 32u * ws_f16_ge(a, b);
        const ws_f16x2 p = ws_f16x2_new(a, b), q = ws_f16x2_new(r[2], r[3]);
        const ws_f16x2 s2[3] = { ws_f16x2_add(p, q), ws_f16x2_sub(p, q), ws_f16x2_mul(p, q) };
        for (int k = 0; k < 3; k++) { acc = acc * 7ull + s2[k].bits + ws_f16x2_lo(s2[k]).bits + ws_f16x2_hi(s2[k]).bits; }
    }
    { // bfloat16: the same
        const float* fs = (const float*)(mem + 512);
        const double* ds = (const double*)(mem + 768);
        const ws_bf16 a = ws_bf16_from_f32(fs[lane]), b = ws_bf16_from_f64(ds[lane]);
        const ws_bf16 r[6] = { ws_bf16_add(a, b), ws_bf16_sub(a, b), ws_bf16_mul(a, b), ws_bf16_div(a, b), ws_bf16_rem(a, b), ws_bf16_neg(a) };
        for (int k = 0; k < 6; k++) { acc = acc * 5ull + r[k].bits; }
        acc += (unsigned long long)__double_as_longlong(ws_bf16_to_f64(r[0])) + __float_as_uint(ws_bf16_to_f32(r[1]));
        acc += ws_bf16_eq(a, b) + 2u * ws_bf16_ne(a, b) + 4u * ws_bf16_lt(a, b) + 8u * ws_bf16_le(a, b) + 16u * ws_bf16_gt(a, b) + 32u * ws_bf16_ge(a, b);
        const ws_bf16x2 p = ws_bf16x2_new(a, b), q = ws_bf16x2_new(r[2], r[3]);
        const ws_bf16x2 s2[3] = { ws_bf16x2_add(p, q), ws_bf16x2_sub(p, q), ws_bf16x2_mul(p, q) };
        for (int k = 0; k < 3; k++) { acc = acc * 7ull + s2[k].bits + ws_bf16x2_lo(s2[k]).bits + ws_bf16x2_hi(s2[k]).bits; }
    }
"#,
    );
    for (i, t) in SCALARS.iter().enumerate() {
        writeln!(
            k,
            "    {{ // {t}\n        const {t} v = (({t}*)mem)[{i}];\n        ws_dynamic_shared<{t}>()[lane % ws_dynamic_shared_len<{t}>()] = v;\n        acc ^= (unsigned long long)ws_word<{t}>::to(ws_dynamic_shared<{t}>()[x]);"
        )
        .unwrap();
        // The emitter names the type (`ws_shfl_sync<T>`); hand-written calls may not.
        for (n, width) in ["32u", "16u", "8u", "x"].iter().enumerate() {
            let targs = if n % 2 == 0 {
                String::new()
            } else {
                format!("<{t}>")
            };
            for (f, arg) in [
                ("ws_shfl_sync", "x"),
                ("ws_shfl_up_sync", "1u"),
                ("ws_shfl_down_sync", "2u"),
                ("ws_shfl_xor_sync", "4u"),
            ] {
                writeln!(
                    k,
                    "        acc = acc * 3ull + (unsigned long long)ws_word<{t}>::to({f}{targs}(m, v, {arg}, {width}));"
                )
                .unwrap();
            }
        }
        writeln!(
            k,
            "        acc += ws_match_any_sync(m, v) + ws_match_any_sync<{t}>(m, v);\n    }}"
        )
        .unwrap();
    }
    for (i, t) in ATOMICS.iter().enumerate() {
        let bits = |e: &str| format!("(unsigned long long)ws_word<{t}>::to({e})");
        writeln!(
            k,
            "    {{ // {t}\n        __shared__ {t} shared[32];\n        {t}* global = ({t}*)(mem + 1024) + {i} * 64;\n        const {t} v = global[32 + lane], w = global[33];"
        )
        .unwrap();
        writeln!(
            k,
            "        acc ^= {};",
            bits(&format!(
                "ws_atomic_fetch_add<WS_RELAXED>(ws_dynamic_shared<{t}>() + lane, v)"
            ))
        )
        .unwrap();
        // Global memory with `NAME<O>(p, ...)`, shared memory with `NAME<O, T>(p, ...)` (the
        // emitter's spelling).
        for (space, p, t_arg) in [
            ("global", "global + lane", String::new()),
            ("shared", "shared + lane", format!(", {t}")),
        ] {
            for o in ORDERINGS {
                writeln!(k, "        // {space}, {o}").unwrap();
                let mut ops = vec!["ws_atomic_fetch_add", "ws_atomic_swap"];
                if !is_half(t) {
                    ops.extend([
                        "ws_atomic_fetch_sub",
                        "ws_atomic_fetch_min",
                        "ws_atomic_fetch_max",
                    ]);
                }
                if !is_float(t) && !is_half(t) {
                    ops.extend([
                        "ws_atomic_fetch_and",
                        "ws_atomic_fetch_or",
                        "ws_atomic_fetch_xor",
                    ]);
                }
                for op in ops {
                    writeln!(
                        k,
                        "        acc ^= {};",
                        bits(&format!("{op}<{o}{t_arg}>({p}, v)"))
                    )
                    .unwrap();
                }
                writeln!(
                    k,
                    "        acc ^= {};",
                    bits(&format!("ws_atomic_cas<{o}{t_arg}>({p}, v, w)"))
                )
                .unwrap();
                if *t == "unsigned int" {
                    writeln!(
                        k,
                        "        acc ^= ws_atomic_inc<{o}>({p}, x);\n        acc ^= ws_atomic_dec<{o}>({p}, x);"
                    )
                    .unwrap();
                }
                if ["WS_RELAXED", "WS_ACQUIRE", "WS_SEQ_CST"].contains(&o) {
                    writeln!(
                        k,
                        "        acc ^= {};",
                        bits(&format!("ws_atomic_load<{o}{t_arg}>({p})"))
                    )
                    .unwrap();
                }
                if ["WS_RELAXED", "WS_RELEASE", "WS_SEQ_CST"].contains(&o) {
                    writeln!(k, "        ws_atomic_store<{o}{t_arg}>({p}, w);").unwrap();
                }
            }
        }
        writeln!(k, "    }}").unwrap();
    }
    k.push_str("    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;\n}\n");
    k
}

/// Every helper, every type, every ordering, every architecture warpspeed targets.
#[test]
fn every_helper_compiles_for_every_arch() {
    if !common::nvrtc_or_skip("every_helper_compiles_for_every_arch") {
        return;
    }
    let source = every_helper_source();
    assert!(
        !source.contains("#include"),
        "the prelude includes no header"
    );
    for arch in ARCHS {
        if let Err(err) = compile_cubin(&source, arch, EXACT) {
            panic!("sm_{}{}: {err}", arch.0, arch.1);
        }
    }
}

/// Small kernels, one per case, whose sm_90 PTX is checked below.
const CHECKS: &str = r#"
extern "C" __global__ void relaxed_add_u32(unsigned int* p, unsigned int* out) { out[0] = ws_atomic_fetch_add<WS_RELAXED>(p, 3u); }
extern "C" __global__ void relaxed_add_u32_unused(unsigned int* p) { ws_atomic_fetch_add<WS_RELAXED, unsigned int>(p, 3); }
extern "C" __global__ void relaxed_add_shared(unsigned int* out) { __shared__ unsigned int s[32]; s[threadIdx.x] = 0u; __syncthreads(); out[threadIdx.x] = ws_atomic_fetch_add<WS_RELAXED>(&s[threadIdx.x / 2u], 1u); }
extern "C" __global__ void relaxed_add_f32(float* p, float* out) { out[0] = ws_atomic_fetch_add<WS_RELAXED>(p, 1.5f); }
extern "C" __global__ void relaxed_sub_i32(int* p, int* out) { out[0] = ws_atomic_fetch_sub<WS_RELAXED, int>(p, 7u); }
extern "C" __global__ void relaxed_min_i64(long long* p, long long* out) { out[0] = ws_atomic_fetch_min<WS_RELAXED>(p, -7ll); }
extern "C" __global__ void relaxed_swap_f64(double* p, double* out) { out[0] = ws_atomic_swap<WS_RELAXED>(p, 2.0); }
extern "C" __global__ void relaxed_cas_f32(float* p, float* out) { out[0] = ws_atomic_cas<WS_RELAXED>(p, 1.0f, 2.0f); }
extern "C" __global__ void relaxed_inc(unsigned int* p, unsigned int* out) { out[0] = ws_atomic_inc<WS_RELAXED>(p, 9u); }
extern "C" __global__ void relaxed_load(const unsigned int* p, unsigned int* out) { out[0] = ws_atomic_load<WS_RELAXED>(p); }
extern "C" __global__ void acquire_load(const unsigned int* p, unsigned int* out) { out[0] = ws_atomic_load<WS_ACQUIRE>(p); }
extern "C" __global__ void release_store(unsigned long long* p) { ws_atomic_store<WS_RELEASE>(p, 5ull); }
extern "C" __global__ void acquire_add(unsigned int* p, unsigned int* out) { out[0] = ws_atomic_fetch_add<WS_ACQUIRE>(p, 3u); }
extern "C" __global__ void seq_cst_add(unsigned int* p, unsigned int* out) { out[0] = ws_atomic_fetch_add<WS_SEQ_CST>(p, 3u); }
extern "C" __global__ void acq_rel_cas_u64(unsigned long long* p, unsigned long long* out) { out[0] = ws_atomic_cas<WS_ACQ_REL>(p, 1ull, 2ull); }
extern "C" __global__ void float_max(float* p, float* out) { out[0] = ws_atomic_fetch_max<WS_RELAXED>(p, 2.0f); }
extern "C" __global__ void relaxed_add_f16(ws_f16* p, ws_f16* out, ws_f16 v) { out[0] = ws_atomic_fetch_add<WS_RELAXED>(p, v); }
extern "C" __global__ void relaxed_add_f16x2(ws_f16x2* p, ws_f16x2* out, ws_f16x2 v) { out[0] = ws_atomic_fetch_add<WS_RELAXED, ws_f16x2>(p, v); }
extern "C" __global__ void relaxed_add_f16_shared(ws_f16* out, ws_f16 v) { __shared__ ws_f16 s[32]; s[threadIdx.x] = v; __syncthreads(); out[threadIdx.x] = ws_atomic_fetch_add<WS_RELAXED, ws_f16>(&s[threadIdx.x / 2u], v); }
extern "C" __global__ void relaxed_add_f16x2_shared(ws_f16x2* out, ws_f16x2 v) { __shared__ ws_f16x2 s[32]; s[threadIdx.x] = v; __syncthreads(); out[threadIdx.x] = ws_atomic_fetch_add<WS_RELAXED>(&s[threadIdx.x / 2u], v); }
extern "C" __global__ void seq_cst_add_f16(ws_f16* p, ws_f16* out, ws_f16 v) { out[0] = ws_atomic_fetch_add<WS_SEQ_CST>(p, v); }
extern "C" __global__ void acquire_add_f16x2(ws_f16x2* p, ws_f16x2* out, ws_f16x2 v) { out[0] = ws_atomic_fetch_add<WS_ACQUIRE>(p, v); }
extern "C" __global__ void relaxed_swap_f16(ws_f16* p, ws_f16* out, ws_f16 v) { out[0] = ws_atomic_swap<WS_RELAXED>(p, v); }
extern "C" __global__ void relaxed_swap_f16x2(ws_f16x2* p, ws_f16x2* out, ws_f16x2 v) { out[0] = ws_atomic_swap<WS_RELAXED>(p, v); }
extern "C" __global__ void release_cas_f16(ws_f16* p, ws_f16* out, ws_f16 v) { out[0] = ws_atomic_cas<WS_RELEASE>(p, out[1], v); }
extern "C" __global__ void relaxed_cas_f16(ws_f16* p, ws_f16* out, ws_f16 v) { out[0] = ws_atomic_cas<WS_RELAXED>(p, out[1], v); }
extern "C" __global__ void load_store_f16(ws_f16* p, ws_f16x2* q) { ws_atomic_store<WS_RELAXED>(p, ws_atomic_load<WS_ACQUIRE>(p)); ws_atomic_store<WS_RELEASE>(q, ws_atomic_load<WS_RELAXED>(q)); }
extern "C" __global__ void half_convert(const float* f, const double* d, ws_f16* h, float* fo, double* dout) {
    h[0] = ws_f16_from_f32(f[0]); h[1] = ws_f16_from_f64(d[0]); fo[0] = ws_f16_to_f32(h[2]); dout[0] = ws_f16_to_f64(h[3]);
}
extern "C" __global__ void half_arith(ws_f16* h, ws_f16x2* p) {
    h[0] = ws_f16_div(ws_f16_add(h[1], h[2]), ws_f16_mul(h[3], h[4]));
    p[0] = ws_f16x2_mul(ws_f16x2_add(p[1], p[2]), ws_f16x2_sub(p[3], p[4]));
}
extern "C" __global__ void half_warp(ws_f16* h, ws_f16x2* p, unsigned int* out) {
    const unsigned int m = ws_active_mask();
    h[0] = ws_shfl_xor_sync(m, h[1], 1u, 32u);
    p[0] = ws_shfl_down_sync<ws_f16x2>(m, p[1], 2u, 16u);
    out[0] = ws_match_any_sync(m, h[2]) + ws_match_any_sync(m, p[2]);
}
extern "C" __global__ void grid_sync(unsigned int* out) { out[blockIdx.x] = 1u; ws_grid_sync(); out[blockIdx.x] += out[(blockIdx.x + 1u) % gridDim.x]; ws_grid_sync(); }
extern "C" __global__ void print(unsigned int x, double d) { printf("x = %u, d = %g\n", x, d); }
extern "C" __global__ void warp(unsigned int* out, double* d) {
    const unsigned int m = ws_active_mask();
    out[0] = ws_lane_id() + ws_ballot_sync(m, out[1] > 2u) + ws_match_any_sync(m, out[2]) + ws_match_any_sync(m, d[1])
        + ws_shfl_xor_sync(m, out[3], 1u, 16u) + ws_sync_threads_count(out[4] != 0u);
    d[0] = ws_shfl_down_sync(m, d[2], 1u, 32u);
}
"#;

/// The PTX NVRTC makes of `source` for sm_90, with warpspeed's options.
fn ptx_sm90(source: &str) -> String {
    let src = CString::new(source).unwrap();
    let prog = result::create_program(&src, None).unwrap();
    let opts = nvrtc_options((9, 0), EXACT);
    // SAFETY: `prog` was just created and is destroyed once, at the end.
    let compiled = unsafe { result::compile_program(prog, &opts) };
    // SAFETY: as above.
    let log = unsafe { result::get_program_log(prog) }.unwrap();
    let log: Vec<u8> = log
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    assert!(compiled.is_ok(), "NVRTC: {}", String::from_utf8_lossy(&log));
    // SAFETY: as above; the program compiled.
    let ptx = unsafe { result::get_ptx(prog) }.unwrap();
    // SAFETY: as above.
    unsafe { result::destroy_program(prog) }.unwrap();
    let ptx: Vec<u8> = ptx
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8(ptx).unwrap()
}

/// The PTX of one entry point, up to the next.
fn entry<'a>(ptx: &'a str, name: &str) -> &'a str {
    let start = ptx
        .find(&format!(".entry {name}("))
        .unwrap_or_else(|| panic!("no entry {name} in the PTX"));
    let rest = &ptx[start + 1..];
    &ptx[start..start + 1 + rest.find(".entry ").unwrap_or(rest.len())]
}

#[test]
fn sm90_ptx_has_the_expected_instructions() {
    if !common::nvrtc_or_skip("sm90_ptx_has_the_expected_instructions") {
        return;
    }
    let ptx = ptx_sm90(&format!("{CUDA_PRELUDE}\n{CHECKS}"));
    let has = |name: &str, wanted: &[&str]| {
        let body = entry(&ptx, name);
        for w in wanted {
            assert!(body.contains(w), "{name}: no `{w}` in\n{body}");
        }
        body
    };
    let no_cas = |name: &str, body: &str| {
        assert!(
            !body.contains(".cas.") && !body.contains("fence") && !body.contains("bra"),
            "{name}: Relaxed must be the plain CUDA atomic, not a CAS loop or a fence:\n{body}"
        );
    };
    // Relaxed: exactly what CUDA's atomicAdd etc. compile to.
    for (name, wanted) in [
        ("relaxed_add_u32", "atom.global.add.u32"),
        ("relaxed_add_shared", "atom.shared.add.u32"),
        ("relaxed_add_f32", "atom.global.add.f32"),
        ("relaxed_sub_i32", "atom.global.add.u32"),
        ("relaxed_min_i64", "atom.global.min.s64"),
        ("relaxed_swap_f64", "atom.global.exch.b64"),
        ("relaxed_cas_f32", "atom.global.cas.b32"),
        ("relaxed_inc", "atom.global.inc.u32"),
    ] {
        let body = has(name, &[wanted]);
        if name != "relaxed_cas_f32" {
            no_cas(name, body);
        }
    }
    let unused = entry(&ptx, "relaxed_add_u32_unused");
    assert!(
        unused.contains("red.global.add.u32") || unused.contains("atom.global.add.u32"),
        "{unused}"
    );
    no_cas("relaxed_add_u32_unused", unused);
    // Relaxed loads and stores are volatile accesses (PTX: relaxed at system scope), which
    // the compiler sees, unlike inline asm with its "memory" clobber.
    has("relaxed_load", &["ld.volatile.global.u32"]);
    // The other orderings: PTX with that .sem and .gpu scope.
    has("acquire_load", &["ld.acquire.gpu.b32"]);
    has("release_store", &["st.release.gpu.b64"]);
    has("acquire_add", &["atom.acquire.gpu.add.u32"]);
    let seq = has("seq_cst_add", &["fence.sc.gpu", "atom.acq_rel.gpu.add.u32"]);
    assert!(
        seq.find("fence.sc.gpu") < seq.find("atom.acq_rel.gpu"),
        "{seq}"
    );
    has("acq_rel_cas_u64", &["atom.acq_rel.gpu.cas.b64"]);
    // f32 max: a CAS loop around max.f32.
    has("float_max", &["atom.global.cas.b32", "max.f32"]);
    // Half atomics: Relaxed add is atom.add.noftz in the pointer's space, no loop.
    for (name, wanted) in [
        ("relaxed_add_f16", "atom.global.add.noftz.f16 "),
        ("relaxed_add_f16x2", "atom.global.add.noftz.f16x2 "),
        ("relaxed_add_f16_shared", "atom.shared.add.noftz.f16 "),
        ("relaxed_add_f16x2_shared", "atom.shared.add.noftz.f16x2 "),
    ] {
        no_cas(name, has(name, &[wanted]));
    }
    let seq = has(
        "seq_cst_add_f16",
        &["fence.sc.gpu", "atom.acq_rel.gpu.add.noftz.f16 "],
    );
    assert!(
        seq.find("fence.sc.gpu") < seq.find("atom.acq_rel.gpu"),
        "{seq}"
    );
    has("acquire_add_f16x2", &["atom.acquire.gpu.add.noftz.f16x2 "]);
    // No 16-bit exchange in PTX: f16 swap is a 16-bit CAS loop; f16x2 swap is exch.b32.
    has("relaxed_swap_f16", &["atom.global.cas.b16", "bra"]);
    no_cas(
        "relaxed_swap_f16x2",
        has("relaxed_swap_f16x2", &["atom.global.exch.b32"]),
    );
    has("release_cas_f16", &["atom.release.gpu.cas.b16"]);
    has("relaxed_cas_f16", &["atom.global.cas.b16"]);
    has(
        "load_store_f16",
        &[
            "ld.acquire.gpu.b16",
            "st.volatile.global.u16",
            "ld.volatile.global.u32",
            "st.release.gpu.b32",
        ],
    );
    // Conversions: cvt, correctly rounded, with half's NaN rule around them.
    has(
        "half_convert",
        &[
            "cvt.rn.f16.f32",
            "cvt.rn.f16.f64",
            "cvt.f32.f16",
            "cvt.f64.f16",
        ],
    );
    // f16 arithmetic in float (never fused); f16x2 with the native pair instructions.
    let arith = has(
        "half_arith",
        &[
            "add.rn.f32",
            "mul.rn.f32",
            "div.rn.f32",
            "add.rn.f16x2",
            "sub.rn.f16x2",
            "mul.rn.f16x2",
        ],
    );
    assert!(!arith.contains("fma"), "{arith}");
    has(
        "half_warp",
        &[
            "shfl.sync.bfly.b32",
            "shfl.sync.down.b32",
            "match.any.sync.b32",
        ],
    );
    // Grid sync: block barriers around thread 0's fence, atomic add and spin on the word.
    let grid = has(
        "grid_sync",
        &[
            "bar.sync",
            "membar.gl",
            "atom.global.add.u32",
            "ld.volatile.global.u32",
            "ws_grid_sync_word",
        ],
    );
    assert!(
        grid.find("membar.gl") < grid.find("atom.global.add.u32"),
        "{grid}"
    );
    // printf without a header: the device runtime's vprintf.
    has("print", &["vprintf"]);
    has(
        "warp",
        &[
            "%laneid",
            "vote.sync.ballot.b32",
            "match.any.sync.b32",
            "match.any.sync.b64",
            "shfl.sync.bfly.b32",
            "shfl.sync.down.b32",
            "bar.red.popc.u32",
        ],
    );
}

/// Rust panics on a Release/AcqRel load and an Acquire/AcqRel store; the helpers refuse
/// them at compile time.
#[test]
fn invalid_load_and_store_orderings_do_not_compile() {
    if !common::nvrtc_or_skip("invalid_load_and_store_orderings_do_not_compile") {
        return;
    }
    for (body, message) in [
        (
            "out[0] = ws_atomic_load<WS_RELEASE>(p);",
            "cannot have Release or AcqRel",
        ),
        (
            "out[0] = ws_atomic_load<WS_ACQ_REL>(p);",
            "cannot have Release or AcqRel",
        ),
        (
            "ws_atomic_store<WS_ACQUIRE>(out, 1u);",
            "cannot have Acquire or AcqRel",
        ),
        (
            "ws_atomic_store<WS_ACQ_REL>(out, 1u);",
            "cannot have Acquire or AcqRel",
        ),
    ] {
        let source = format!(
            "{CUDA_PRELUDE}\nextern \"C\" __global__ void bad(const unsigned int* p, unsigned int* out) {{ {body} }}\n"
        );
        match compile_cubin(&source, (9, 0), EXACT) {
            Err(Error::Compile { log, .. }) => {
                assert!(log.contains(message), "{body}: {log}")
            }
            other => panic!("{body}: expected a compile error, got {other:?}"),
        }
    }
}

/// A kernel that uses nothing of the prelude compiles without a warning (the unused grid
/// sync word and helpers say nothing).
#[test]
fn the_prelude_alone_gives_no_warning() {
    if !common::nvrtc_or_skip("the_prelude_alone_gives_no_warning") {
        return;
    }
    let source = format!(
        "{CUDA_PRELUDE}\nextern \"C\" __global__ void plain(unsigned int* out) {{ out[threadIdx.x] = 1u; }}\n"
    );
    for arch in ARCHS {
        let compiled =
            warpspeed_runtime::compile::compile_cached("plain", &source, arch, EXACT, None)
                .unwrap();
        assert!(
            !compiled.log.contains("warning"),
            "sm_{}{}: {}",
            arch.0,
            arch.1,
            compiled.log
        );
    }
}

/// Hopper's helpers (prelude_wgmma.cuh): a kernel calling `wgmma` of every shape and
/// operand type, the fences, commit and wait, and `setmaxnreg`, compiles for sm_90a (the
/// target arch.rs picks on a 9.0 GPU) and its PTX holds the instructions; the same prelude
/// still compiles for every other target (`every_helper_compiles_for_every_arch`), and the
/// kernel is refused for them, naming sm_90a.
#[test]
fn wgmma_helpers_compile_for_sm90a() {
    if !common::nvrtc_or_skip("wgmma_helpers_compile_for_sm90a") {
        return;
    }
    let mut k = String::from(CUDA_PRELUDE);
    k.push_str("\nextern \"C\" __global__ void hopper(float* out, unsigned int n) {\n");
    k.push_str("    __shared__ __align__(1024) ws_bf16 sa[64 * 64];\n    __shared__ __align__(1024) ws_bf16 sb[256 * 64];\n");
    k.push_str("    ws_fence_proxy_async();\n    ws_setmaxnreg_dec(40u);\n    ws_setmaxnreg_inc(232u);\n    ws_wgmma_fence();\n");
    for n in (8..=256).step_by(8) {
        for t in ["bf16", "f16"] {
            let c = if t == "bf16" { "ws_bf16" } else { "ws_f16" };
            writeln!(
                k,
                "    {{ ws_frag<float, {h}> acc = {{}}; ws_wgmma_m64n{n}k16_f32_{t}(&acc, ({c}*)sa, 4096ull, ({c}*)sb, 16384ull, n % 4u, 1u, \"f\"); ws_wgmma_commit_group(); ws_wgmma_wait_group(n); for (int i = 0; i < {h}; ++i) out[i] += acc.x[i]; }}",
                h = n / 2
            )
            .unwrap();
        }
    }
    k.push_str("}\n");
    let ptx = warpspeed_runtime::compile::compile_ptx(&k, (9, 0), EXACT)
        .unwrap_or_else(|e| panic!("sm_90a: {e}"));
    for want in [
        ".target sm_90a",
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
        "wgmma.fence.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned",
        "setmaxnreg.inc.sync.aligned.u32 232",
        "setmaxnreg.dec.sync.aligned.u32 40",
        "fence.proxy.async.shared::cta",
    ] {
        assert!(ptx.contains(want), "the sm_90a PTX lacks `{want}`");
    }
    warpspeed_runtime::compile::compile_cubin(&k, (9, 0), EXACT)
        .unwrap_or_else(|e| panic!("sm_90a: {e}"));
    for arch in [(8, 0), (10, 0)] {
        match compile_cubin(&k, arch, EXACT) {
            Err(Error::UnsupportedArch { reason, .. }) => {
                assert!(reason.contains("sm_90a"), "{reason}")
            }
            other => panic!("sm_{}{}: {other:?}", arch.0, arch.1),
        }
    }
}
