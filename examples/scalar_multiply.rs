//! Multiply a vector by a scalar: the first kernel of the CUDA tutorials (seeds 000 and
//! 002). One thread per element, `out[i] = scalar * vec[i]`; the kernel checks its index
//! against the length because the last block usually sticks out past the end.
//!
//! The result must equal the CPU's `scalar * x` bit for bit (one IEEE multiplication, no
//! fused operations): the program exits non-zero otherwise.
//!
//! ```text
//! cargo run --release --example scalar_multiply -- --len 10000 --scalar 2
//! ```

mod common;

use std::process::ExitCode;

use clap::Parser;
use common::{open_device, XorShift};
use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

#[gpu_kernel]
fn scalar_multiply(out: &mut [f32], scalar: f32, vec: &[f32]) {
    let i = grid_1d();
    if i < vec.len() {
        out[i] = scalar * vec[i];
    }
}

#[derive(Parser)]
#[command(
    about = "Multiply a vector by a scalar on the GPU (or the simulator), checked against the CPU"
)]
struct Args {
    /// Elements in the vector.
    #[arg(long, default_value_t = 1_000_000)]
    len: usize,
    /// The scalar every element is multiplied by.
    #[arg(long, default_value_t = 2.0, allow_negative_numbers = true)]
    scalar: f32,
    /// Threads per block (the tutorial's 512).
    #[arg(long, default_value_t = 512)]
    block: u32,
    /// Seed of the random input.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    common::run_main(args.print_cuda, &[&scalar_multiply::KERNEL], || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = open_device()?;
    let mut rng = XorShift::new(args.seed);
    let host: Vec<f32> = (0..args.len)
        .map(|_| rng.range_f32(-100.0, 100.0))
        .collect();

    let vec = dev.upload(&host)?;
    // Poisoned with NaN, so an element the kernel skips cannot pass the check.
    let mut out = dev.upload(&vec![f32::NAN; args.len])?;
    let blocks = u32::try_from(args.len.div_ceil(args.block as usize).max(1))
        .expect("too many blocks for one launch");
    let cfg = LaunchConfig::new(blocks, args.block);
    scalar_multiply::launch(&dev, cfg, &mut out, args.scalar, &vec)?;
    let got = out.download()?;

    let want: Vec<f32> = host.iter().map(|&x| args.scalar * x).collect();
    println!(
        "scalar_multiply: {} elements times {} on {cfg}; first elements {:?} -> {:?}",
        args.len,
        args.scalar,
        &host[..host.len().min(3)],
        &got[..got.len().min(3)]
    );
    Ok(common::check_elements(
        &got,
        &want,
        f32::to_bits,
        "OK: equals the CPU result bit for bit",
    ))
}
