//! Polynomial evaluation with Horner's method on many x values at once (seed 002's `cuda_polyval`,
//! numpy's `polyval`): coefficients in descending order, `val = c[0]; val = val * x + c[k]` for k =
//! 1.., one thread per x (the kernels are in examples/kernels/polyval.rs, shared with the bench).
//!
//! warpspeed compiles with `--fmad=false`, so the GPU rounds `val * x` and `+ c[k]`
//! separately, exactly as Rust does: the results must equal a CPU Horner bit for bit (not
//! merely to a tolerance), in f32 and in f64. The program exits non-zero otherwise.
//!
//! ```text
//! cargo run --release --example polyval                               # f32, seed's 1..=9
//! cargo run --release --example polyval -- --precision f64 --coeffs 0.5,-3,2.25,1
//! ```

mod common;

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use common::{first_difference, open_device, XorShift};
use warpspeed::{Device, DeviceBuffer, KernelScalar, LaunchConfig};
#[path = "kernels/polyval.rs"]
mod polyval_kernels;
use polyval_kernels::{horner, polyval_f32, polyval_f64};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Precision {
    F32,
    F64,
}

#[derive(Parser)]
#[command(
    about = "Evaluate a polynomial (Horner) at many points on the GPU (or the simulator), checked bit for bit against the CPU"
)]
struct Args {
    /// Number of x values (the seed's 2048 * 1024).
    #[arg(long, default_value_t = 2048 * 1024)]
    len: usize,
    /// Coefficients in descending order, comma separated (default: the seed's 1, 2, ..., 9).
    #[arg(
        long,
        value_delimiter = ',',
        allow_negative_numbers = true,
        default_value = "1,2,3,4,5,6,7,8,9"
    )]
    coeffs: Vec<f64>,
    /// Float type of the coefficients, the x values and the results.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    precision: Precision,
    /// x values are uniform in [-range, range).
    #[arg(long, default_value_t = 1.5)]
    range: f64,
    /// Threads per block (the seed's 1024).
    #[arg(long, default_value_t = 1024)]
    block: u32,
    /// Seed of the random x values.
    #[arg(long, default_value_t = 3)]
    seed: u64,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let kernel = match args.precision {
        Precision::F32 => &polyval_f32::KERNEL,
        Precision::F64 => &polyval_f64::KERNEL,
    };
    common::run_main(args.print_cuda, &[kernel], || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    if args.coeffs.is_empty() {
        eprintln!("--coeffs needs at least one coefficient");
        return Ok(false);
    }
    let dev = open_device()?;
    let blocks = u32::try_from(args.len.div_ceil(args.block as usize).max(1))
        .expect("too many blocks for one launch");
    let cfg = LaunchConfig::new(blocks, args.block);
    let mut rng = XorShift::new(args.seed);
    let xs: Vec<f64> = (0..args.len)
        .map(|_| rng.range_f64(-args.range, args.range))
        .collect();
    let degree = args.coeffs.len() - 1;
    println!(
        "polyval: degree-{degree} polynomial {:?} at {} points, {} on {cfg}",
        args.coeffs,
        args.len,
        match args.precision {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    );
    match args.precision {
        Precision::F32 => {
            let xs: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
            let cs: Vec<f32> = args.coeffs.iter().map(|&c| c as f32).collect();
            let got = gpu(&dev, cfg, &xs, &cs, f32::NAN, polyval_f32::launch)?;
            let want: Vec<f32> = xs.iter().map(|&x| horner(&cs, x)).collect();
            // Information only: how far f32 Horner is from the f64 value.
            let worst = xs
                .iter()
                .zip(&got)
                .map(|(&x, &g)| {
                    let exact = horner(&args.coeffs, f64::from(x));
                    ((f64::from(g) - exact) / exact).abs()
                })
                .filter(|e| e.is_finite())
                .fold(0.0, f64::max);
            println!("max relative error of the f32 results against f64 Horner: {worst:.3e}");
            report(&xs, &got, &want, f32::to_bits)
        }
        Precision::F64 => {
            let got = gpu(&dev, cfg, &xs, &args.coeffs, f64::NAN, polyval_f64::launch)?;
            let want: Vec<f64> = xs.iter().map(|&x| horner(&args.coeffs, x)).collect();
            report(&xs, &got, &want, f64::to_bits)
        }
    }
}

/// The kernel's results: `xs` and `cs` uploaded, `launch` run into an output poisoned with
/// `nan` (every x must be written), the output downloaded.
fn gpu<T: KernelScalar>(
    dev: &Device,
    cfg: LaunchConfig,
    xs: &[T],
    cs: &[T],
    nan: T,
    launch: impl FnOnce(
        &Device,
        LaunchConfig,
        &mut DeviceBuffer<T>,
        &DeviceBuffer<T>,
        &DeviceBuffer<T>,
    ) -> Result<(), warpspeed::Error>,
) -> Result<Vec<T>, warpspeed::Error> {
    let (dx, dc) = (dev.upload(xs)?, dev.upload(cs)?);
    let mut out = dev.upload(&vec![nan; xs.len()])?;
    launch(dev, cfg, &mut out, &dx, &dc)?;
    out.download()
}

fn report<T: Copy + PartialEq + std::fmt::Debug, B: Eq>(
    xs: &[T],
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> B,
) -> Result<bool, warpspeed::Error> {
    println!(
        "p({:?}) = {:?}, p({:?}) = {:?}",
        xs[0],
        got[0],
        xs[xs.len() - 1],
        got[got.len() - 1]
    );
    if let Some((i, count)) = first_difference(got, want, bits) {
        eprintln!(
            "MISMATCH: {count} of {} results differ from the CPU Horner; first at x = {:?}: got {:?}, expected {:?}",
            got.len(),
            xs[i],
            got[i],
            want[i]
        );
        return Ok(false);
    }
    println!("OK: equals the CPU Horner bit for bit");
    Ok(true)
}
