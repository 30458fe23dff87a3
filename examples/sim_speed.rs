//! How fast the CPU simulator runs the three programs the project measured Numba 0.68's
//! CUDA simulator on (docs/benchmarks.md, "Reference figures": a 2-core machine): Life 64x64 for one
//! generation in blocks of 32x16, seed 000's naive scan of 1024 f64 in one block (20
//! barriers), and seed 004's shared-memory histogram of 16 Ki bytes in 4 blocks of 256.
//! Every result is checked against its CPU reference; race checks stay on.
//!
//! It also runs the seed's original naive scan, which updates shared memory in place while
//! a neighbour reads it, and prints the simulator's race report.
//!
//! ```text
//! cargo run --release --example sim_speed
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use warpspeed::{Device, LaunchConfig};

mod common;
use common::XorShift;
#[path = "kernels/histogram.rs"]
mod histogram_kernels;
#[path = "kernels/life.rs"]
mod life_kernels;
#[path = "kernels/scan.rs"]
mod scan_kernels;

/// Numba 0.68's simulator on this project's 2-core CPU machine (docs/benchmarks.md, reference figures), seconds.
const NUMBA_LIFE_S: f64 = 0.41;
const NUMBA_SCAN_S: f64 = 1.69;
const NUMBA_HISTOGRAM_S: f64 = 1.29;
/// The speed-up the simulator is built for.
const TARGET: f64 = 100.0;

#[derive(Parser)]
#[command(
    about = "Times the warpspeed CPU simulator on the programs Numba's simulator was measured on"
)]
struct Args {
    /// Launches of each program; the median is reported.
    #[arg(long, default_value_t = 9)]
    runs: usize,
}

fn main() -> ExitCode {
    let args = Args::parse();
    common::run_main(false, &[], || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = Device::simulator();
    println!("device: {} (race checks on)", dev.name());
    let runs = args.runs.max(1);
    let mut all_right = true;
    let mut rows = Vec::new();

    // Life 64x64, one generation, blocks of 32x16.
    let n = 64;
    let mut rng = XorShift::new(7);
    let cells: Vec<i32> = (0..n * n)
        .map(|_| i32::from(rng.next_f64() < 0.3))
        .collect();
    let input = dev.upload(&cells)?;
    let mut out = dev.upload(&vec![-1i32; n * n])?;
    let cfg = LaunchConfig::new((2, 4), (32, 16));
    let t = median(runs, || {
        life_kernels::conway::launch(&dev, cfg, &mut out, &input, n as u32)
    })?;
    let right = out.download()? == life_kernels::cpu_step(&cells, n);
    rows.push((
        "Life 64x64, 1 generation, 32x16 blocks",
        t,
        NUMBA_LIFE_S,
        right,
    ));

    // Naive scan of 1024 f64 in one block.
    let x: Vec<f64> = (0..1024).map(|_| rng.range_f64(-1.0, 1.0)).collect();
    let input = dev.upload(&x)?;
    let mut out = dev.upload(&vec![f64::NAN; 1024])?;
    let cfg = LaunchConfig::new(1, 1024);
    let t = median(runs, || {
        scan_kernels::naive_prefix::launch(&dev, cfg, &input, &mut out)
    })?;
    let got = out.download()?;
    let want = scan_kernels::cpu_naive_prefix(&x);
    let right = common::first_difference(&got, &want, f64::to_bits).is_none();
    rows.push((
        "naive scan, 1024 f64, 1 block (20 barriers)",
        t,
        NUMBA_SCAN_S,
        right,
    ));

    // Shared-memory histogram of 16 Ki letters, 4 blocks of 256.
    let text: Vec<u8> = (0..16 * 1024)
        .map(|_| match rng.next_u64() % 32 {
            k @ 0..=25 => b'a' + k as u8,
            _ => b' ',
        })
        .collect();
    let input = dev.upload(&text)?;
    let mut bins = dev.zeros::<u32>(histogram_kernels::LETTER_BINS)?;
    let cfg = LaunchConfig::new(4, 256);
    let mut last = Vec::new();
    let t = median(runs, || {
        bins.copy_from_host(&[0; histogram_kernels::LETTER_BINS])?;
        let r = histogram_kernels::histogram_privatized::launch(&dev, cfg, &input, &mut bins);
        last = bins.download()?;
        r
    })?;
    let right = last == histogram_kernels::cpu_letter_histogram(&text);
    rows.push((
        "shared-memory histogram, 16 Ki bytes, 4x256",
        t,
        NUMBA_HISTOGRAM_S,
        right,
    ));

    println!(
        "\n{:<46} {:>12} {:>14} {:>9} {:>8}",
        "program", "warpspeed", "Numba 0.68 sim", "speed-up", "target"
    );
    let mut missed = 0;
    for (name, t, numba, right) in &rows {
        let speedup = numba / t.as_secs_f64();
        if speedup < TARGET {
            missed += 1;
        }
        println!(
            "{name:<46} {:>9.3} ms {:>12.0} ms {:>8.0}x {:>7}x{}",
            t.as_secs_f64() * 1e3,
            numba * 1e3,
            speedup,
            TARGET,
            if *right { "" } else { "  WRONG RESULT" }
        );
        all_right &= right;
    }
    println!("(Numba figures: docs/benchmarks.md, measured on the same 2-core machine type; speed-up targets missed: {missed})");

    // The seed's own scan races on shared memory: the simulator says where.
    let input = dev.upload(&x)?;
    let racy =
        scan_kernels::naive_prefix_racy::launch(&dev, LaunchConfig::new(1, 1024), &input, &mut out);
    match racy {
        Err(e) => println!("\nthe seed's original naive scan on the simulator:\n  {e}"),
        Ok(()) => {
            println!("\nthe seed's original naive scan was NOT reported as racy");
            all_right = false;
        }
    }
    Ok(all_right)
}

/// The median wall time of `runs` calls of `launch` (simulator launches are synchronous).
fn median(
    runs: usize,
    mut launch: impl FnMut() -> Result<(), warpspeed::Error>,
) -> Result<Duration, warpspeed::Error> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        launch()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[runs / 2])
}
