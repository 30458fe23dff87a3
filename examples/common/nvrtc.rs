//! `--check-nvrtc`: compiles every kernel of an example with NVRTC, for the architectures
//! asked for, and prints the size of each CUBIN. No GPU needed, only libnvrtc.

use std::process::ExitCode;

use warpspeed::__private::KernelDef;
use warpspeed::KernelOptions;

/// sm_75, sm_80 and sm_90: what `--check-nvrtc` of the `--variant` examples compiles for.
pub const CI_ARCHS: [(u32, u32); 3] = [(7, 5), (8, 0), (9, 0)];

/// An `--arch` number (90 for sm_90) as NVRTC's (major, minor).
pub fn sm(arch: u32) -> (u32, u32) {
    (arch / 10, arch % 10)
}

/// `--print-cuda`, `--check-nvrtc` and `--arch`, for examples that list their kernels.
#[derive(clap::Args)]
pub struct KernelFlags {
    /// Print the generated CUDA C of every kernel and exit.
    #[arg(long)]
    pub print_cuda: bool,
    /// Compile every kernel with NVRTC and exit (no GPU needed).
    #[arg(long)]
    pub check_nvrtc: bool,
    /// Architecture for --check-nvrtc, e.g. 90 for sm_90.
    #[arg(long, default_value_t = 90)]
    pub arch: u32,
}

impl KernelFlags {
    /// `main` with these flags: `--check-nvrtc` compiles `kernels` for `--arch`; otherwise
    /// [`run_main`](super::run_main).
    pub fn main(
        &self,
        kernels: &[&'static KernelDef],
        run: impl FnOnce() -> Result<bool, warpspeed::Error>,
    ) -> ExitCode {
        if self.check_nvrtc {
            return check_nvrtc(kernels, &[sm(self.arch)]);
        }
        super::run_main(self.print_cuda, kernels, run)
    }
}

/// Compiles every kernel for every architecture: exits non-zero when NVRTC rejects one,
/// or when it cannot be loaded (said once, as `error: ...`).
pub fn check_nvrtc(kernels: &[&'static KernelDef], archs: &[(u32, u32)]) -> ExitCode {
    let sources: Vec<_> = kernels
        .iter()
        .map(|k| (k.rust_name, k.source.as_str(), k.options))
        .collect();
    super::exit_code(compile_sources(&sources, archs))
}

/// Compiles each (name, CUDA C, options) for each architecture with the options kernels
/// get, a line per CUBIN. `Ok(false)`: NVRTC rejected one (said on stderr, the others
/// still compiled); `Err`: NVRTC could not be loaded, so nothing can compile.
pub fn compile_sources(
    sources: &[(&str, &str, KernelOptions)],
    archs: &[(u32, u32)],
) -> Result<bool, warpspeed::Error> {
    let mut ok = true;
    for &arch in archs {
        for &(name, source, options) in sources {
            match warpspeed::compile::compile_cubin(source, arch, options) {
                Ok(cubin) => println!(
                    "NVRTC compiled {name} for sm_{}{}: {} bytes of CUBIN",
                    arch.0,
                    arch.1,
                    cubin.len()
                ),
                Err(e @ warpspeed::Error::NvrtcUnavailable { .. }) => return Err(e),
                // A kernel for another architecture (sm_90a's wgmma) is not compiled here:
                // the refusal, naming the target, is the expected outcome.
                Err(e @ warpspeed::Error::UnsupportedArch { .. }) => {
                    println!("NVRTC not asked for {name} on sm_{}{}: {e}", arch.0, arch.1)
                }
                Err(e) => {
                    eprintln!("NVRTC failed on {name} for sm_{}{}: {e}", arch.0, arch.1);
                    ok = false;
                }
            }
        }
    }
    Ok(ok)
}
