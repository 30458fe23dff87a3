//! NVRTC's errors and warnings shown against the Rust source: C that `#[gpu_kernel]`
//! could emit (written by hand here, with its `#line` directives) but NVRTC rejects, and
//! the exact text a user then reads: the kernel, the Rust file:line, the line of the
//! generated C (`<kernel>::CUDA_SOURCE`) and that line's text.

mod common;

use std::process::{Command, Output};

use warpspeed_runtime::__private::{collect_source, SourceItem};
use warpspeed_runtime::compile::{compile_cached, compile_cubin, parse_log};
use warpspeed_runtime::{Error, KernelOptions};

const EXACT: KernelOptions = KernelOptions { fast_math: false };

/// `#line N "<this file>"`, as the emitter writes it before each Rust statement.
macro_rules! at_line {
    ($n:literal) => {
        concat!("#line ", $n, " \"", file!(), "\"\n")
    };
}

// ---- a device function, and a kernel that calls it with one argument too few

static SCALE: SourceItem = SourceItem {
    rust_name: "scale",
    prototype: "__device__ float scale(float x, float k);",
    definition: concat!(
        "\n",
        at_line!(30),
        "__device__ float scale(float x, float k) {\n",
        at_line!(31),
        "    return (x * k);\n",
        "}"
    ),
    deps: &[],
    consts: None,
};

static MISMATCH: SourceItem = SourceItem {
    rust_name: "mismatch",
    prototype: "",
    definition: concat!(
        "\n",
        at_line!(35),
        "extern \"C\" __global__ void mismatch(float* __restrict__ out, unsigned long long out_len) {\n",
        at_line!(36),
        "    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n",
        at_line!(37),
        "    if (i < out_len) {\n",
        at_line!(38),
        "        float y = scale(out[i]);\n",
        at_line!(39),
        "        out[i] = y;\n",
        "    }\n",
        // One Rust statement, two C lines: NVRTC counts the second as line 41, which is
        // also the next statement's line.
        at_line!(40),
        "    unsigned long long j = i;\n",
        "    unsigned long long k = j + undefined_len;\n",
        at_line!(41),
        "    out[0] = (float)k;\n",
        "}"
    ),
    deps: &[&SCALE],
    consts: None,
};

/// The line number, counted from 1, of the one line of `source` that is exactly `text`.
fn generated_line(source: &str, text: &str) -> usize {
    let found: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == text)
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "{text:?} in the generated source: {found:?}"
    );
    found[0]
}

#[test]
fn compile_error_names_kernel_rust_line_and_generated_line() {
    if !common::nvrtc_or_skip("compile_error_names_kernel_rust_line_and_generated_line") {
        return;
    }
    let source = collect_source(&MISMATCH);
    let err = compile_cached("mismatch", &source, (9, 0), EXACT, None).unwrap_err();
    let Error::Compile {
        kernel,
        diagnostics,
        log,
        ..
    } = &err
    else {
        panic!("expected Error::Compile, got {err:?}");
    };
    assert_eq!(kernel, "mismatch");
    assert!(
        log.contains("too few arguments"),
        "the raw log is kept: {log}"
    );
    assert_eq!(
        diagnostics.iter().filter(|d| d.is_error()).count(),
        2,
        "{diagnostics:#?}"
    );

    let text = err.to_string();
    println!("{text}");
    let file = file!();
    let call = "        float y = scale(out[i]);";
    let call_line = generated_line(&source, call);
    assert!(
        call_line > 100,
        "the prelude comes first, so the C line is not the Rust line"
    );
    let undefined = "    unsigned long long k = j + undefined_len;";
    let undefined_line = generated_line(&source, undefined);
    let expected = format!(
        "kernel `mismatch` failed to compile with NVRTC:\n\
         \x20 {file}:38: error: too few arguments in function call\n\
         \x20   (generated C line {call_line}: `{call}`)\n\
         \x20 {file}:40: error: identifier \"undefined_len\" is undefined\n\
         \x20   (generated C line {undefined_line}: `{undefined}`)\n\
         (generated C lines are lines of `mismatch::CUDA_SOURCE`; NVRTC options: \
         --gpu-architecture=sm_90 -std=c++17 --fmad=false --prec-div=true --prec-sqrt=true \
         --ftz=false -lineinfo)"
    );
    assert_eq!(text, expected);

    // `compile_cubin` names the kernel from the source and says the same.
    let again = compile_cubin(&source, (9, 0), EXACT).unwrap_err();
    assert_eq!(again.to_string(), expected);
}

/// A prelude helper called with arguments it does not take: NVRTC places the note in the
/// prelude (before any `#line`), which is shown as generated C only.
#[test]
fn prelude_template_mismatch_shows_both_sides() {
    if !common::nvrtc_or_skip("prelude_template_mismatch_shows_both_sides") {
        return;
    }
    static BAD_ADD: SourceItem = SourceItem {
        rust_name: "bad_add",
        prototype: "",
        definition: concat!(
            "\n",
            at_line!(70),
            "extern \"C\" __global__ void bad_add(int* __restrict__ out, unsigned long long out_len) {\n",
            at_line!(71),
            "    out[0] = ws_add<int>(out[0], \"seven\");\n",
            "}"
        ),
        deps: &[],
        consts: None,
    };
    let source = collect_source(&BAD_ADD);
    let err = compile_cubin(&source, (9, 0), EXACT).unwrap_err();
    let text = err.to_string();
    println!("{text}");
    let file = file!();
    let call = "    out[0] = ws_add<int>(out[0], \"seven\");";
    let call_line = generated_line(&source, call);
    assert!(
        text.contains(&format!(
            "\n  {file}:71: error: no instance of function template \"ws_add\" matches the argument list\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("(generated C line {call_line}: `{call}`)")),
        "{text}"
    );
    let Error::Compile { diagnostics, .. } = &err else {
        panic!("{err:?}");
    };
    let note = diagnostics
        .iter()
        .find(|d| d.severity == "note")
        .expect("NVRTC's note on the template");
    assert_eq!(note.rust_location, None);
    let prelude_line = note.generated_line.expect("placed in the generated C") as usize;
    assert!(prelude_line < call_line);
    assert!(
        note.generated_text.as_deref().unwrap().contains("ws_add"),
        "{note:?}"
    );
    assert!(text.contains("\n  generated C: note #"), "{text}");
    assert!(
        text.contains(&format!(
            "\n    (generated C line {prelude_line}: `{}`)\n",
            note.generated_text.as_deref().unwrap()
        )),
        "{text}"
    );
}

// ---- a kernel that compiles with a warning

static NOISY: SourceItem = SourceItem {
    rust_name: "noisy",
    prototype: "",
    definition: concat!(
        "\n",
        at_line!(60),
        "extern \"C\" __global__ void noisy(int* __restrict__ out, unsigned long long out_len) {\n",
        at_line!(61),
        "    int unused = 3;\n",
        at_line!(62),
        "    if (threadIdx.x < out_len) out[threadIdx.x] = 1;\n",
        "}"
    ),
    deps: &[],
    consts: None,
};

/// This test binary again, running only `test` with `env` set.
fn run_child(test: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("spawning the test binary");
    assert!(
        out.status.success(),
        "child {test} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `WARPSPEED_LOG_NVRTC=1` prints a kernel's warnings in the form of the errors; without
/// it nothing is printed, and the warnings are in the log either way.
#[test]
fn nvrtc_warnings_are_logged_against_rust_lines() {
    const TEST: &str = "nvrtc_warnings_are_logged_against_rust_lines";
    let source = collect_source(&NOISY);
    if std::env::var("WARPSPEED_TEST_CHILD").is_ok_and(|v| v == "log-warnings") {
        compile_cached("noisy", &source, (9, 0), EXACT, None).unwrap();
        return;
    }
    if !common::nvrtc_or_skip(TEST) {
        return;
    }
    let compiled = compile_cached("noisy", &source, (9, 0), EXACT, None).unwrap();
    let diagnostics = parse_log(&compiled.log, &source);
    let file = file!();
    let decl = "    int unused = 3;";
    let decl_line = generated_line(&source, decl);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0].rust_location, Some((file.to_string(), 61)));
    assert_eq!(diagnostics[0].generated_line, Some(decl_line as u32));

    let logged = run_child(
        TEST,
        &[
            ("WARPSPEED_TEST_CHILD", "log-warnings"),
            ("WARPSPEED_LOG_NVRTC", "1"),
        ],
    );
    let stderr = String::from_utf8_lossy(&logged.stderr);
    println!("{stderr}");
    let expected = format!(
        "warpspeed: NVRTC warnings for kernel `noisy`:\n\
         \x20 {file}:61: warning #177-D: variable \"unused\" was declared but never referenced\n\
         \x20   (generated C line {decl_line}: `{decl}`)\n\
         (generated C lines are lines of `noisy::CUDA_SOURCE`)\n"
    );
    assert!(stderr.contains(&expected), "{stderr}");

    let quiet = run_child(
        TEST,
        &[
            ("WARPSPEED_TEST_CHILD", "log-warnings"),
            ("WARPSPEED_LOG_NVRTC", "0"),
        ],
    );
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(!stderr.contains("NVRTC warnings"), "{stderr}");
}
