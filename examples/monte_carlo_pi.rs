//! Monte Carlo π, seed 002's Numba program (`create_xoroshiro128p_states` and
//! `xoroshiro128p_uniform_float32`, warpspeed::algorithms::xoroshiro): one xoroshiro128+
//! generator per thread (`--blocks` × `--threads-per-block`, the seed's 625 × 64), each
//! thread draws `--iterations` points in the unit square (the seed's 5000) and writes 4
//! times the share inside the quarter circle; the host averages the threads' estimates.
//! Every thread's estimate is checked against the host's (the same generator in plain
//! Rust), bit for bit; the program exits non-zero on a difference. The kernel is in
//! examples/kernels/monte_carlo_pi.rs, shared with the bench.
//!
//! On the simulator the defaults shrink (32 blocks, 1000 iterations); the flags override.
//!
//! ```text
//! cargo run --release --example monte_carlo_pi                  # GPU if present, else simulator
//! cargo run --release --example monte_carlo_pi -- --iterations 100000 --seed 7
//! cargo run --release --example monte_carlo_pi -- --print-cuda  # the generated CUDA C
//! ```

mod common;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use common::open_device;
use warpspeed::algorithms::xoroshiro;
use warpspeed::{Backend, LaunchConfig};
#[path = "kernels/monte_carlo_pi.rs"]
mod monte_carlo_pi_kernels;
use monte_carlo_pi_kernels::{compute_pi, compute_pi_cpu};

#[derive(Parser)]
#[command(about = "Estimate π with one xoroshiro128+ generator per GPU thread (Numba's seed)")]
struct Args {
    /// Blocks (the seed's 625; 32 on the simulator).
    #[arg(long)]
    blocks: Option<u32>,
    /// Threads per block.
    #[arg(long, default_value_t = 64)]
    threads_per_block: u32,
    /// Points each thread draws (the seed's 5000; 1000 on the simulator).
    #[arg(long)]
    iterations: Option<u32>,
    /// Seed of the generators (`create_xoroshiro128p_states(n, seed)`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    common::run_main(args.print_cuda, &[&compute_pi::KERNEL], || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = open_device()?;
    let sim = dev.backend() == Backend::Simulator;
    let blocks = args.blocks.unwrap_or(if sim { 32 } else { 625 });
    let iterations = args
        .iterations
        .unwrap_or(if sim { 1000 } else { 5000 })
        .max(1);
    let n = blocks as usize * args.threads_per_block as usize;

    let start = Instant::now();
    let mut rng_states = xoroshiro::create_xoroshiro128p_states(&dev, n, args.seed)?;
    let states_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut out = dev.upload(&vec![f32::NAN; n])?;
    let cfg = LaunchConfig::new(blocks, args.threads_per_block);
    let start = Instant::now();
    compute_pi::launch(&dev, cfg, &mut rng_states, iterations, &mut out)?;
    dev.synchronize()?;
    let kernel_ms = start.elapsed().as_secs_f64() * 1e3;
    let got = out.download()?;

    let pi = got.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
    println!(
        "compute_pi: {n} generators ({states_ms:.1} ms to create them) x {iterations} points on {cfg}, {kernel_ms:.3} ms (the first launch includes compiling or loading the kernel)"
    );
    println!(
        "pi: {pi:.6} (error {:+.2e}; one thread's estimate has a deviation of {:.1e}, the mean of {n} about {:.1e})",
        pi - std::f64::consts::PI,
        sd(iterations),
        sd(iterations) / (n as f64).sqrt()
    );

    // Every thread's estimate from the host's states and the same generator.
    let host_states = xoroshiro::xoroshiro128p_states(n, args.seed, 0);
    let want: Vec<f32> = host_states
        .iter()
        .map(|&s| compute_pi_cpu(s, iterations))
        .collect();
    let ok = common::check_elements(
        &got,
        &want,
        f32::to_bits,
        "OK: every thread's estimate equals the host's bit for bit",
    );
    // Far outside the statistical error: the generators are not independent.
    let plausible = (pi - std::f64::consts::PI).abs() < 6.0 * sd(iterations) / (n as f64).sqrt();
    if !plausible {
        println!("MISMATCH: the estimate is more than 6 deviations from π");
    }
    Ok(ok && plausible)
}

/// The deviation of one thread's estimate: 4 sqrt(p (1 - p) / iterations), p = π/4.
fn sd(iterations: u32) -> f64 {
    let p = std::f64::consts::FRAC_PI_4;
    4.0 * (p * (1.0 - p) / iterations as f64).sqrt()
}
