//! Conway's Game of Life, the naive global-memory version of the CUDA tutorial (seed 000):
//! one thread per cell on a 2-D grid of 32x32 blocks, the lattice wraps around at its edges
//! (a torus), and every generation reads one buffer and writes the other (ping-pong), so no
//! thread ever reads a cell another thread is writing.
//!
//! The initial lattice is random (a seeded xorshift, so runs are reproducible); after the
//! last generation the result is compared cell by cell with a CPU Life, and the program
//! exits non-zero on any difference.
//!
//! ```text
//! cargo run --release --example life                       # GPU if present, else simulator
//! WARPSPEED_BACKEND=sim cargo run --release --example life -- --size 64 --generations 50
//! cargo run --release --example life -- --print-cuda       # show the generated CUDA C
//! ```

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

mod common;
use common::XorShift;
#[path = "kernels/life.rs"]
mod life_kernels;
use life_kernels::{conway, cpu_step};
use warpspeed::LaunchConfig;

#[derive(Parser)]
#[command(
    about = "Conway's Game of Life on the GPU (or the warpspeed simulator), checked against the CPU"
)]
struct Args {
    /// Side of the square lattice (cells). Any size works; the grid is rounded up to 32x32 blocks.
    #[arg(long, default_value_t = 128)]
    size: usize,
    /// Generations to run.
    #[arg(long, default_value_t = 10)]
    generations: usize,
    /// Seed of the random initial lattice.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Fraction of cells alive at the start.
    #[arg(long, default_value_t = 0.25)]
    density: f64,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
    /// Draw the final lattice (only sensible for small sizes).
    #[arg(long)]
    show: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    common::run_main(args.print_cuda, &conway::CUDA_SOURCE, || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let n = args.size;
    assert!(n >= 1, "--size must be at least 1");
    let dev = common::open_device()?;

    let mut rng = XorShift::new(args.seed);
    let initial: Vec<i32> = (0..n * n)
        .map(|_| i32::from(rng.next_f64() < args.density))
        .collect();

    // Ping-pong: generation g reads `a` and writes `b`, then the two swap roles.
    let mut a = dev.upload(&initial)?;
    let mut b = dev.upload(&vec![-1i32; n * n])?; // poisoned: every cell must be written
    let blocks = n.div_ceil(32) as u32;
    let cfg = LaunchConfig::new((blocks, blocks), (32, 32));
    let start = Instant::now();
    for _ in 0..args.generations {
        conway::launch(&dev, cfg, &mut b, &a, n)?;
        std::mem::swap(&mut a, &mut b);
    }
    dev.synchronize()?;
    let elapsed = start.elapsed();
    let result = a.download()?;

    let mut expected = initial.clone();
    for _ in 0..args.generations {
        expected = cpu_step(&expected, n);
    }

    let alive = result.iter().filter(|&&c| c == 1).count();
    println!(
        "life: {n}x{n} lattice, {} generations on {cfg}, {:.3} ms; {alive} of {} cells alive at the end",
        args.generations,
        elapsed.as_secs_f64() * 1e3,
        n * n
    );
    if args.show {
        for row in result.chunks(n) {
            let line: String = row
                .iter()
                .map(|&c| if c == 1 { '#' } else { '.' })
                .collect();
            println!("{line}");
        }
    }
    let wrong: Vec<usize> = (0..n * n).filter(|&i| result[i] != expected[i]).collect();
    if let Some(&first) = wrong.first() {
        eprintln!(
            "MISMATCH: {} of {} cells differ from the CPU Life; first at (x={}, y={}): got {}, expected {}",
            wrong.len(),
            n * n,
            first % n,
            first / n,
            result[first],
            expected[first]
        );
        return Ok(false);
    }
    println!("OK: matches the CPU reference cell for cell");
    Ok(true)
}
