//! Vector addition (seed 002's first Numba kernel, `vector_add(a, b, result, n)`; the kernel is in
//! examples/kernels/vector_add.rs, shared with the bench): one thread per element, `out[i] = a[i] +
//! b[i]`, with the usual bounds check for the last block. The result must equal the CPU's sum bit
//! for bit; the program exits non-zero otherwise.
//!
//! ```text
//! cargo run --release --example vector_add -- --len 20000000
//! ```

mod common;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use common::{open_device, XorShift};
use warpspeed::LaunchConfig;
#[path = "kernels/vector_add.rs"]
mod vector_add_kernels;
use vector_add_kernels::vector_add;

#[derive(Parser)]
#[command(about = "Add two vectors on the GPU (or the simulator), checked against the CPU")]
struct Args {
    /// Elements in each vector.
    #[arg(long, default_value_t = 1_000_003)]
    len: usize,
    /// Threads per block.
    #[arg(long, default_value_t = 256)]
    block: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 11)]
    seed: u64,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    common::run_main(args.print_cuda, &[&vector_add::KERNEL], || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let n = args.len;
    let dev = open_device()?;
    let mut rng = XorShift::new(args.seed);
    let a: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let b: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();

    let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
    // Poisoned with NaN, so an element the kernel skips cannot pass the check.
    let mut out = dev.upload(&vec![f32::NAN; n])?;
    let blocks = u32::try_from(n.div_ceil(args.block as usize).max(1))
        .expect("too many blocks for one launch");
    let cfg = LaunchConfig::new(blocks, args.block);
    let start = Instant::now();
    vector_add::launch(&dev, cfg, &da, &db, &mut out)?;
    dev.synchronize()?;
    let elapsed = start.elapsed();
    let got = out.download()?;

    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    println!(
        "vector_add: {n} elements on {cfg}, {:.3} ms (the first launch includes compiling or loading the kernel)",
        elapsed.as_secs_f64() * 1e3
    );
    Ok(common::check_elements(
        &got,
        &want,
        f32::to_bits,
        "OK: equals the CPU sum bit for bit",
    ))
}
