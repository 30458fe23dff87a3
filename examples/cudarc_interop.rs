//! A cudarc program adopting warpspeed one kernel at a time (docs/host-api.md, "cudarc").
//!
//! The program owns a cudarc context, a stream of its own and two `CudaSlice<f32>`s, and
//! runs its own hand-written CUDA C kernel (`square`) with cudarc's launch builder. Then a
//! warpspeed kernel (`saxpy`) runs on the same stream and memory, without a copy: the
//! `Device` comes from the cudarc stream, the slices become `DeviceBuffer`s, the kernel
//! works on views of their second halves with a configuration from the occupancy
//! calculator, and the result goes back to cudarc as a `CudaSlice` for cudarc to read.
//! The result must equal the CPU's bit for bit; the program exits non-zero otherwise.
//!
//! cudarc needs a GPU: without one (on the simulator) the example says so and exits 0.
//!
//! ```text
//! cargo run --release --example cudarc_interop -- --len 1000003
//! ```

mod common;

use std::process::ExitCode;

use clap::Parser;
use common::XorShift;
use cudarc::driver::{CudaContext, PushKernelArg};
use cudarc::nvrtc::Ptx;
use warpspeed::compile::{compile_cubin, KernelOptions};
use warpspeed::prelude::*;
use warpspeed::Backend;

#[derive(Parser)]
#[command(about = "cudarc and warpspeed on one stream and one set of buffers (needs a GPU)")]
struct Args {
    /// Elements in each vector.
    #[arg(long, default_value_t = 1_000_003)]
    len: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 5)]
    seed: u64,
}

/// The cudarc program's own kernel, in CUDA C (no headers: NVRTC may have none).
const SQUARE: &str = r#"
extern "C" __global__ void square(float* v, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = v[i] * v[i];
    }
}
"#;

/// The kernel moved to warpspeed: `y = a * x + y` (not fused: the GPU rounds as Rust does).
#[gpu_kernel]
fn saxpy(y: &mut [f32], a: f32, x: &[f32]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let why = match Device::new() {
        Ok(dev) if dev.backend() == Backend::Cuda => return common::exit_code(run(&args)),
        Ok(_) => "no GPU".to_string(),
        Err(e) => e.to_string(),
    };
    println!("cudarc_interop needs a GPU (cudarc has no simulator): skipped ({why})");
    // Still worth checking where NVRTC is: both kernels' CUDA C compiles.
    if warpspeed::compile::nvrtc_available() {
        let options = KernelOptions { fast_math: false };
        for (name, source) in [("square", SQUARE), ("saxpy", saxpy::CUDA_SOURCE.as_str())] {
            if let Err(e) = compile_cubin(source, (9, 0), options) {
                eprintln!("error: {name} does not compile: {e}");
                return ExitCode::FAILURE;
            }
        }
        println!("the CUDA C of square and saxpy compiles with NVRTC (sm_90)");
    }
    ExitCode::SUCCESS
}

fn run(args: &Args) -> Result<bool, Box<dyn std::error::Error>> {
    let n = args.len;
    let mut rng = XorShift::new(args.seed);
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.range_f32(-10.0, 10.0)).collect();

    // 1. The cudarc program: its context, its own stream, its data and its kernel.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let xs = stream.clone_htod(&x)?;
    let mut ys = stream.clone_htod(&y)?;
    let (major, minor) = ctx.compute_capability()?;
    let options = KernelOptions { fast_math: false };
    let cubin = compile_cubin(SQUARE, (major as u32, minor as u32), options)?;
    let square = ctx
        .load_module(Ptx::from_binary(cubin))?
        .load_function("square")?;
    let n64 = n as u64;
    let mut launch = stream.launch_builder(&square);
    launch.arg(&mut ys).arg(&n64);
    // SAFETY: square(float* v, unsigned long long n) with a live CudaSlice<f32> of n
    // elements on this stream; the kernel checks i < n.
    unsafe { launch.launch(cudarc::driver::LaunchConfig::for_num_elems(n as u32)) }?;

    // 2. warpspeed on the same stream and memory: no copies.
    let dev = Device::from_cudarc_stream(stream.clone())?;
    println!("device: {} (GPU, a cudarc stream adopted)", dev.name());
    let mut y_buf = DeviceBuffer::from_cudarc(&dev, ys)?;
    let x_buf = DeviceBuffer::from_cudarc(&dev, xs)?;
    let half = n / 2;
    let cfg = LaunchConfig::for_occupancy(&dev, &saxpy::KERNEL, (n - half) as u32)?;
    saxpy::launch(
        &dev,
        cfg,
        &mut y_buf.slice_mut(half..),
        2.0,
        &x_buf.slice(half..),
    )?;
    println!("saxpy on elements {half}..{n} with {cfg} (from the occupancy calculator)");

    // 3. Back to cudarc.
    let ys = y_buf.into_cudarc()?;
    let got = stream.clone_dtoh(&ys)?;

    let want: Vec<f32> = (0..n)
        .map(|i| {
            let squared = y[i] * y[i];
            if i < half {
                squared
            } else {
                2.0 * x[i] + squared
            }
        })
        .collect();
    Ok(common::check_elements(
        &got,
        &want,
        f32::to_bits,
        "OK: cudarc's square and warpspeed's saxpy equal the CPU's bit for bit",
    ))
}
