//! Helpers the examples share (not an example itself: cargo only builds `examples/*.rs`
//! and `examples/*/main.rs` as examples). Every example includes it with `mod common;`.
//! This file holds the `main` they share ([`run_main`]) and the line that says which device
//! runs the kernels ([`open_device`]); the rest is in one file per job:
//!
//! - `rng.rs`: a seedable random generator, so no example needs the `rand` crate;
//! - `compare.rs`: results against their CPU references, and the mismatch lines;
//! - `nvrtc.rs`: `--check-nvrtc`, every kernel compiled with NVRTC, no GPU needed;
//! - `variant.rs`: `--variant NAME|all` and the `main` of the examples that have it;
//! - `timing.rs`: GPU time by CUDA events, and wall-clock time of queued launches;
//! - `cpu.rs`: CPU references spread over the CPU's threads.

#![allow(dead_code)] // each example uses a different part of this module

mod compare;
mod cpu;
mod nvrtc;
mod rng;
mod timing;
mod variant;

// Each example uses some of these names; the others are unused there.
#[allow(unused_imports)]
pub use self::{
    compare::{check_elements, check_matrix, first_difference, print_verdict},
    cpu::par_rows,
    nvrtc::{check_nvrtc, compile_sources, sm, KernelFlags, CI_ARCHS},
    rng::XorShift,
    timing::{time_events, time_gpu, time_launches, wall_seconds},
    variant::{KernelVariant, VariantFlags},
};

use std::fmt::Display;
use std::process::ExitCode;

use warpspeed::__private::KernelDef;
use warpspeed::{Backend, Device};

/// Opens `Device::new()` (the GPU when there is one, else the simulator;
/// `WARPSPEED_BACKEND=cuda|sim` forces one) and says which it is.
pub fn open_device() -> Result<Device, warpspeed::Error> {
    let dev = Device::new()?;
    match dev.backend() {
        Backend::Cuda => {
            let (major, minor) = dev.compute_capability().unwrap_or((0, 0));
            println!("device: {} (GPU, sm_{major}{minor})", dev.name());
        }
        Backend::Simulator => println!(
            "device: {} (no GPU used: kernels run on the CPU simulator)",
            dev.name()
        ),
    }
    Ok(dev)
}

/// The `main` every example shares: `--print-cuda` prints the CUDA C of `kernels`, each
/// once, under a header naming it; otherwise `run` decides the exit code ([`exit_code`]).
pub fn run_main(
    print_cuda: bool,
    kernels: &[&'static KernelDef],
    run: impl FnOnce() -> Result<bool, warpspeed::Error>,
) -> ExitCode {
    if print_cuda {
        print_cuda_sources(kernels);
        return ExitCode::SUCCESS;
    }
    exit_code(run())
}

/// The exit code of a run: `Ok(true)` success, `Ok(false)` failure (a result differed
/// from its CPU reference, said above), `Err` failure printed as `error: ...`.
pub fn exit_code<E: Display>(outcome: Result<bool, E>) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `// ===== name =====` and the kernel's complete CUDA C, for each kernel not printed yet.
fn print_cuda_sources(kernels: &[&'static KernelDef]) {
    let mut out = String::new();
    for (i, kernel) in kernels.iter().enumerate() {
        if !kernels[..i].iter().any(|k| std::ptr::eq(*k, *kernel)) {
            out += &format!(
                "// ===== {} =====\n{}\n",
                kernel.rust_name,
                kernel.source.as_str()
            );
        }
    }
    println!("{out}");
}
