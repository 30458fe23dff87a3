//! CUDA C to CUBIN with NVRTC, for one exact GPU architecture.
//!
//! Works without a GPU: only `libnvrtc` is needed, so CI can prove every emitted kernel
//! compiles. The options keep Rust's float semantics (`--fmad=false`, IEEE division and
//! square root, no flush-to-zero) unless a kernel opts into `fast_math`.

use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use cudarc::nvrtc::{result, sys};

use super::options::KernelOptions;
use crate::diagnostics::{parse_log, warnings_message, PROGRAM_NAME};
use crate::error::{panic_message, Error, Result};

/// NVRTC compilations this process has run (the disk cache's hits are not counted).
static COMPILATIONS: AtomicU64 = AtomicU64::new(0);

/// How many times this process has run NVRTC's compiler. A second process that finds
/// every kernel in the disk cache reports 0.
pub fn nvrtc_compile_count() -> u64 {
    COMPILATIONS.load(Ordering::Relaxed)
}

/// Whether `libnvrtc` can be loaded (it is looked for once per process).
pub fn nvrtc_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen libnvrtc by its usual names; it has
    // no preconditions.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// NVRTC's `(major, minor)` version, e.g. `(13, 0)`.
pub fn nvrtc_version() -> Result<(u32, u32)> {
    static VERSION: OnceLock<Result<(u32, u32), String>> = OnceLock::new();
    require_nvrtc()?;
    VERSION
        .get_or_init(|| {
            guarded(|| {
                let (mut major, mut minor) = (0, 0);
                // SAFETY: both pointers are valid for writes of one c_int.
                unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
                    .result()
                    .map(|()| (major as u32, minor as u32))
                    .map_err(|e| e.to_string())
            })
            .and_then(|r| r)
        })
        .clone()
        .map_err(|reason| Error::NvrtcUnavailable {
            reason: format!("nvrtcVersion failed: {reason}"),
        })
}

/// The NVRTC options warpspeed compiles with for `arch` (compute capability).
pub fn nvrtc_options(arch: (u32, u32), options: KernelOptions) -> Vec<String> {
    let mut opts = vec![
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "-std=c++17".to_string(),
    ];
    if options.fast_math {
        opts.push("--use_fast_math".into());
    } else {
        opts.extend(
            [
                "--fmad=false",
                "--prec-div=true",
                "--prec-sqrt=true",
                "--ftz=false",
            ]
            .map(String::from),
        );
    }
    opts.push("-lineinfo".into());
    opts
}

/// [`nvrtc_options`] with the `--gpu-architecture` that `source` needs on a GPU of
/// compute capability `arch` (`sm_90a` for `wgmma`, arch.rs); [`Error::UnsupportedArch`]
/// when that GPU cannot run it.
pub(crate) fn target_options(
    kernel: &str,
    source: &str,
    arch: (u32, u32),
    options: KernelOptions,
) -> Result<Vec<String>> {
    let target =
        super::arch::gpu_architecture(source, arch).map_err(|reason| Error::UnsupportedArch {
            kernel: kernel.to_string(),
            device: format!("sm_{}{}", arch.0, arch.1),
            reason,
        })?;
    let mut opts = nvrtc_options(arch, options);
    opts[0] = format!("--gpu-architecture={target}");
    Ok(opts)
}

/// Compiles `source` to a CUBIN for `arch` (e.g. `(9, 0)` for sm_90). Needs NVRTC, not a
/// GPU. A compile error is [`Error::Compile`] with NVRTC's log, each message placed in
/// the Rust source and the generated C.
pub fn compile_cubin(source: &str, arch: (u32, u32), options: KernelOptions) -> Result<Vec<u8>> {
    compile(kernel_name_in(source), source, arch, options).map(|(cubin, _log)| cubin)
}

/// The PTX NVRTC writes for `source` on the way to the CUBIN of [`compile_cubin`] (same
/// options), to see which instructions an access became (`ld.global.nc.v4.f32`, ...).
/// Needs NVRTC, not a GPU.
pub fn compile_ptx(source: &str, arch: (u32, u32), options: KernelOptions) -> Result<String> {
    let (ptx, _log) = compile_to(kernel_name_in(source), source, arch, options, Program::ptx)?;
    Ok(c_text(&ptx))
}

/// Compiles `source`; returns the CUBIN and NVRTC's log (warnings, usually empty).
/// `kernel` names the kernel in errors.
pub(crate) fn compile(
    kernel: &str,
    source: &str,
    arch: (u32, u32),
    options: KernelOptions,
) -> Result<(Vec<u8>, String)> {
    compile_to(kernel, source, arch, options, Program::cubin)
}

/// Compiles `source` and reads `output` (the CUBIN, the PTX) of the compiled program.
fn compile_to<T>(
    kernel: &str,
    source: &str,
    arch: (u32, u32),
    options: KernelOptions,
    output: fn(&Program) -> Result<T, result::NvrtcError>,
) -> Result<(T, String)> {
    let opts = target_options(kernel, source, arch, options)?;
    require_nvrtc()?;
    let compile_error = |log: String| Error::Compile {
        kernel: kernel.to_string(),
        diagnostics: parse_log(&log, source),
        log,
        options: opts.clone(),
    };
    let c_source = CString::new(source).map_err(|e| {
        compile_error(format!(
            "the CUDA source contains a NUL byte at offset {}",
            e.nul_position()
        ))
    })?;
    let program_name = CString::new(PROGRAM_NAME).expect("no NUL in the program name");
    let nvrtc_error = |what: &str| {
        let what = what.to_string();
        move |source| Error::Nvrtc {
            kernel: kernel.to_string(),
            what,
            source,
        }
    };
    let outcome = guarded(|| -> Result<(T, String)> {
        let program = Program(
            result::create_program(&c_source, Some(&program_name))
                .map_err(nvrtc_error("creating a program"))?,
        );
        COMPILATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `program.0` was created above and is destroyed only by `Program::drop`.
        let compiled = unsafe { result::compile_program(program.0, &opts) };
        // SAFETY: as above.
        let log = unsafe { result::get_program_log(program.0) }
            .map_err(nvrtc_error("reading the log"))?;
        let log = c_text(&log);
        if compiled.is_err() {
            return Err(compile_error(log));
        }
        Ok((
            output(&program).map_err(nvrtc_error("reading the compiled program"))?,
            log,
        ))
    });
    let (cubin, log) = outcome.map_err(|reason| Error::NvrtcUnavailable { reason })??;
    if !log.trim().is_empty() && std::env::var("WARPSPEED_LOG_NVRTC").is_ok_and(|v| v == "1") {
        let diagnostics = parse_log(&log, source);
        if !diagnostics.is_empty() {
            eprintln!("{}", warnings_message(kernel, &diagnostics));
        }
    }
    Ok((cubin, log))
}

/// An NVRTC program, destroyed on drop.
struct Program(sys::nvrtcProgram);

impl Program {
    /// The CUBIN of a compiled program.
    fn cubin(&self) -> Result<Vec<u8>, result::NvrtcError> {
        let mut size = 0usize;
        // SAFETY: the program is live and compiled; `size` is valid for one write.
        unsafe { sys::nvrtcGetCUBINSize(self.0, &mut size) }.result()?;
        let mut cubin = vec![0u8; size];
        // SAFETY: `cubin` holds exactly the `size` bytes NVRTC said it will write.
        unsafe { sys::nvrtcGetCUBIN(self.0, cubin.as_mut_ptr().cast::<c_char>()) }.result()?;
        Ok(cubin)
    }
}

impl Program {
    /// The PTX of a compiled program (NUL-terminated).
    fn ptx(&self) -> Result<Vec<c_char>, result::NvrtcError> {
        let mut size = 0usize;
        // SAFETY: the program is live and compiled; `size` is valid for one write.
        unsafe { sys::nvrtcGetPTXSize(self.0, &mut size) }.result()?;
        let mut ptx = vec![0 as c_char; size];
        // SAFETY: `ptx` holds exactly the `size` bytes NVRTC said it will write.
        unsafe { sys::nvrtcGetPTX(self.0, ptx.as_mut_ptr()) }.result()?;
        Ok(ptx)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by `create_program` and is destroyed once, here.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

/// Fails with installation advice where libnvrtc cannot be loaded.
fn require_nvrtc() -> Result<()> {
    if nvrtc_available() {
        Ok(())
    } else {
        Err(Error::NvrtcUnavailable {
            reason: "libnvrtc (libnvrtc.so.13 / libnvrtc.so) could not be loaded".into(),
        })
    }
}

/// Runs NVRTC calls, turning cudarc's panic on a missing library symbol into an `Err`.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|payload| format!("NVRTC could not be used: {}", panic_message(&*payload)))
}

/// A NUL-terminated C buffer as text.
fn c_text(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The name of the first `__global__` function in `source`, for messages: the word before
/// the first `(` after `__global__` that does not open a qualifier's arguments
/// (`__launch_bounds__(256, 2)`, which comes before the name).
fn kernel_name_in(source: &str) -> &str {
    const NONE: &str = "<unnamed kernel>";
    let Some(mut rest) = source.split("__global__").nth(1) else {
        return NONE;
    };
    loop {
        let Some(open) = rest.find('(') else {
            return NONE;
        };
        let name = rest[..open].split_whitespace().last().unwrap_or(NONE);
        if !(name.starts_with("__") && name.ends_with("__")) {
            return name;
        }
        let Some(close) = rest[open..].find(')') else {
            return NONE;
        };
        rest = &rest[open + close + 1..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_keep_rust_float_semantics() {
        let exact = nvrtc_options((9, 0), KernelOptions { fast_math: false });
        assert_eq!(
            exact,
            [
                "--gpu-architecture=sm_90",
                "-std=c++17",
                "--fmad=false",
                "--prec-div=true",
                "--prec-sqrt=true",
                "--ftz=false",
                "-lineinfo"
            ]
        );
        let fast = nvrtc_options((8, 6), KernelOptions { fast_math: true });
        assert_eq!(
            fast,
            [
                "--gpu-architecture=sm_86",
                "-std=c++17",
                "--use_fast_math",
                "-lineinfo"
            ]
        );
    }

    #[test]
    fn finds_kernel_name() {
        assert_eq!(
            kernel_name_in("int x;\nextern \"C\" __global__ void life(int* a) {}"),
            "life"
        );
        assert_eq!(
            kernel_name_in(
                "extern \"C\" __global__ void __launch_bounds__(ws_c0, 2) gemm_bf16(int* a) {}"
            ),
            "gemm_bf16"
        );
        assert_eq!(kernel_name_in("nothing"), "<unnamed kernel>");
        assert_eq!(kernel_name_in("__global__ void"), "<unnamed kernel>");
    }
}
