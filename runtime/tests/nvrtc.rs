//! NVRTC compilation without a GPU: a small kernel, the prelude with the builtins the
//! emitter uses, a broken kernel's log (its message in full: tests/compile_errors.rs).

mod common;

use warpspeed_runtime::__private::{collect_source, SourceItem};
use warpspeed_runtime::compile::{compile_cubin, nvrtc_compile_count, nvrtc_version};
use warpspeed_runtime::{Error, KernelOptions};

const EXACT: KernelOptions = KernelOptions { fast_math: false };

#[test]
fn small_kernel_compiles_to_cubin() {
    if !common::nvrtc_or_skip("small_kernel_compiles_to_cubin") {
        return;
    }
    let (major, _) = nvrtc_version().unwrap();
    assert!(major >= 12, "NVRTC {major}");
    let before = nvrtc_compile_count();
    let src = r#"extern "C" __global__ void add_one(float* __restrict__ out, unsigned long long out_len) {
        unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < out_len) out[i] += 1.0f;
    }"#;
    let cubin = compile_cubin(src, (9, 0), EXACT).unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF", "a CUBIN is an ELF image");
    let fast = compile_cubin(src, (8, 0), KernelOptions { fast_math: true }).unwrap();
    assert_eq!(&fast[..4], b"\x7fELF");
    assert!(nvrtc_compile_count() >= before + 2);
}

static BUILTINS: SourceItem = SourceItem {
    rust_name: "builtins",
    prototype: "",
    definition: r#"extern "C" __global__ void builtins(float* __restrict__ f, unsigned long long f_len, int* __restrict__ i, unsigned long long i_len, unsigned long long x) {
    int a = ws_add(i[0], i[1]);
    signed char s8 = ws_add((signed char)i[2], (signed char)i[3]);
    unsigned short u16 = ws_mul((unsigned short)i[2], (unsigned short)i[3]);
    long long l = ws_shl((long long)i[4], 70u);
    int sh = ws_shr(i[5], 33u);
    int t = __float2int_rz(f[0]);
    unsigned int ut = __float2uint_rz(f[0]);
    long long tl = __float2ll_rz(f[0]);
    unsigned long long tul = __double2ull_rz((double)f[0]);
    int c = ws_clamp_i(__float2int_rz(f[1]), -128, 127);
    unsigned int cu = ws_clamp_u(__float2uint_rz(f[1]), 255u);
    unsigned int z = ws_ctz32((unsigned int)i[6]) + ws_ctz64(x);
    float p = ws_powi_f32(f[2], i[7]);
    double pd = ws_powi_f64((double)f[2], -3);
    float r = sqrtf(f[3]) + fmodf(f[4], f[5]) + atan2f(f[6], f[7]) + sinf(f[0]) + expf(f[1]) + fabsf(f[2])
        + fminf(f[0], f[1]) + fmaxf(f[0], f[1]) + floorf(f[3]) + ceilf(f[3]) + truncf(f[3]) + roundf(f[3])
        + fmaf(f[0], f[1], f[2]) + powf(f[0], f[1]) + logf(f[1]) + copysignf(f[0], f[1]);
    double d = sqrt((double)f[3]) + fmod((double)f[4], 2.0) + atan2(1.0, 2.0) + fma(1.0, 2.0, 3.0) + pd;
    unsigned int pc = __popc((unsigned int)i[8]) + __popcll(x) + __clz(i[9]) + __clzll((long long)x) + __brev(3u) + __ffs(i[9]);
    int dv = ws_div(i[10], i[11]) + ws_rem(i[10], i[11]) + ws_abs(i[0]) + ws_min(i[0], i[1]) + ws_max(i[0], i[1]) + ws_neg(i[0]);
    long long dvl = ws_div((long long)i[10], -1ll) + ws_sub(l, tl);
    i[0] = a + s8 + u16 + (int)l + sh + t + (int)ut + (int)tl + (int)tul + c + (int)cu + (int)z + (int)pc + dv + (int)dvl;
    f[0] = p + r + (float)d + __int_as_float(i[1]) + __uint_as_float(0u) + (float)__longlong_as_double(0ll);
    f[1] = isnan(f[2]) ? 1.0f : (isinf(f[2]) ? 2.0f : 0.0f);
}"#,
    deps: &[],
    consts: None,
};

/// Every helper of the prelude, and the CUDA builtins the emitter relies on, compile in
/// bare NVRTC (no headers).
#[test]
fn prelude_and_builtins_compile() {
    if !common::nvrtc_or_skip("prelude_and_builtins_compile") {
        return;
    }
    let source = collect_source(&BUILTINS);
    for arch in [(7, 5), (8, 0), (9, 0)] {
        if let Err(err) = compile_cubin(&source, arch, EXACT) {
            panic!("sm_{}{}: {err}", arch.0, arch.1);
        }
    }
}

#[test]
fn broken_kernel_reports_nvrtc_log() {
    if !common::nvrtc_or_skip("broken_kernel_reports_nvrtc_log") {
        return;
    }
    let src = "extern \"C\" __global__ void broken(int* out) {\n#line 42 \"src/kernels.rs\"\n  out[0] = undefined_thing;\n}\n";
    let err = compile_cubin(src, (9, 0), EXACT).unwrap_err();
    match &err {
        Error::Compile {
            kernel,
            log,
            options,
            diagnostics,
        } => {
            assert_eq!(kernel, "broken");
            assert!(log.contains("undefined_thing"), "log: {log}");
            assert!(
                log.contains("src/kernels.rs(42)"),
                "the log points at the Rust line: {log}"
            );
            assert!(options.iter().any(|o| o == "--gpu-architecture=sm_90"));
            assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
            assert_eq!(
                diagnostics[0].rust_location,
                Some(("src/kernels.rs".to_string(), 42))
            );
            assert_eq!(diagnostics[0].generated_line, Some(3));
        }
        other => panic!("expected Error::Compile, got {other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.contains(
            "\n  src/kernels.rs:42: error: identifier \"undefined_thing\" is undefined\n    \
             (generated C line 3: `  out[0] = undefined_thing;`)\n"
        ) && text.contains("--fmad=false"),
        "{text}"
    );
}

#[test]
fn nul_in_source_is_a_compile_error() {
    if !common::nvrtc_or_skip("nul_in_source_is_a_compile_error") {
        return;
    }
    let err = compile_cubin("extern \"C\" __global__ void k() {}\0", (9, 0), EXACT).unwrap_err();
    assert!(matches!(err, Error::Compile { .. }), "{err:?}");
}
