//! 2-D convolution of a grayscale image with a mask (seed 002):
//!
//! result[i][j] = sum over (k, l) of mask[k][l] * image[i - k + mask_rows / 2][j - l + mask_cols / 2]
//!
//! with zeros outside the image. Two kernels (in examples/kernels/convolve.rs, shared with
//! the bench):
//! - `naive`: one thread per pixel, mask and image read from global memory;
//! - `shared` (seed 002's `smem_convolve`): blocks of 32x32 threads copy the mask (up to
//!   13x13) and their image tile with its halo (up to 44x44) into shared memory, wait
//!   (`sync_threads()`), then compute from shared memory alone.
//!
//! The image holds integers 0..=255 and the mask integers -4..=4, stored as f32: every sum
//! is an integer below 2^24, exact whatever the order, so the result must equal the CPU
//! reference bit for bit. The output is poisoned (NaN) before the timed run. On the GPU it
//! prints the time per convolution and GFLOP/s (2 flops per mask element and pixel).
//!
//! ```text
//! cargo run --release --example convolve                       # GPU if present, else simulator
//! WARPSPEED_BACKEND=sim cargo run --release --example convolve -- --rows 70 --cols 45 --mask 5x3
//! cargo run --release --example convolve -- --variant shared --print-cuda
//! cargo run --release --example convolve -- --check-nvrtc      # compile the kernels, no GPU
//! ```

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use warpspeed::__private::KernelDef;
use warpspeed::{Backend, DeviceBuffer, LaunchConfig};

mod common;
use common::{KernelVariant, VariantFlags, XorShift};
#[path = "kernels/convolve.rs"]
mod convolve_kernels;
use convolve_kernels::{convolve_naive, convolve_shared, MAX_MASK};

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum Variant {
    Naive,
    Shared,
    All,
}

impl KernelVariant for Variant {
    const ALL: Variant = Variant::All;
    const EACH: &'static [Variant] = &[Variant::Naive, Variant::Shared];

    fn kernel(self) -> &'static KernelDef {
        match self {
            Variant::Naive => &convolve_naive::KERNEL,
            Variant::Shared => &convolve_shared::KERNEL,
            Variant::All => unreachable!("`all` is not a kernel"),
        }
    }
}

#[derive(Parser)]
#[command(
    about = "2-D convolution, naive and with mask and tile in shared memory, checked against the CPU"
)]
struct Args {
    /// Which kernel runs.
    #[arg(long, value_enum, default_value_t = Variant::All)]
    variant: Variant,
    /// Image rows. Default: 4096 on a GPU, 500 on the simulator.
    #[arg(long)]
    rows: Option<usize>,
    /// Image columns. Default: 4096 on a GPU, 370 on the simulator.
    #[arg(long)]
    cols: Option<usize>,
    /// Mask size ROWSxCOLS, each 1..=13 (seed 002: 13x13).
    #[arg(long, default_value = "13x13", value_parser = parse_mask)]
    mask: (usize, usize),
    /// Timed launches of each kernel (after a warm-up launch on the GPU). Default: 20 on a
    /// GPU, 1 on the simulator.
    #[arg(long)]
    reps: Option<usize>,
    /// Seed of the random image and mask.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    #[command(flatten)]
    flags: VariantFlags,
}

fn parse_mask(s: &str) -> Result<(usize, usize), String> {
    let (r, c) = s
        .split_once('x')
        .ok_or_else(|| format!("expected ROWSxCOLS, got {s:?}"))?;
    let side = |v: &str| -> Result<usize, String> {
        let v: usize = v.trim().parse().map_err(|e| format!("{v:?}: {e}"))?;
        if (1..=MAX_MASK).contains(&v) {
            Ok(v)
        } else {
            Err(format!("mask sides must be 1..={MAX_MASK}, got {v}"))
        }
    };
    Ok((side(r)?, side(c)?))
}

fn main() -> ExitCode {
    let args = Args::parse();
    args.flags.main(args.variant, || run(&args))
}

/// The CPU reference: the kernels' formula, taps in the same order, rows over the CPU's
/// threads.
fn cpu_convolve(
    image: &[f32],
    rows: usize,
    cols: usize,
    mask: &[f32],
    mr: usize,
    mc: usize,
) -> Vec<f32> {
    let mut out = vec![0.0f32; rows * cols];
    common::par_rows(&mut out, cols, |i, out_row| {
        convolve_kernels::cpu_row(image, rows, cols, mask, (mr, mc), i, out_row)
    });
    out
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = common::open_device()?;
    let gpu = dev.backend() == Backend::Cuda;
    let rows = args.rows.unwrap_or(if gpu { 4096 } else { 500 });
    let cols = args.cols.unwrap_or(if gpu { 4096 } else { 370 });
    let (mr, mc) = args.mask;
    let reps = args.reps.unwrap_or(if gpu { 20 } else { 1 }).max(1);

    let mut rng = XorShift::new(args.seed);
    let image_host: Vec<f32> = (0..rows * cols)
        .map(|_| (rng.next_u64() % 256) as f32)
        .collect();
    let mask_host: Vec<f32> = (0..mr * mc)
        .map(|_| (rng.next_u64() % 9) as f32 - 4.0)
        .collect();
    let image = dev.upload(&image_host)?;
    let mask = dev.upload(&mask_host)?;
    let poison = vec![f32::NAN; rows * cols];
    let mut result = dev.upload(&poison)?;
    let expected = cpu_convolve(&image_host, rows, cols, &mask_host, mr, mc);
    let cfg = LaunchConfig::new(
        (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32),
        (32, 32),
    );
    let flop = 2.0 * (rows * cols * mr * mc) as f64;
    println!("convolve: {rows}x{cols} f32 image, {mr}x{mc} mask, {reps} timed launches");

    let mut all_ok = true;
    for v in args.variant.expand() {
        let name = v.kernel().rust_name;
        let launch = |out: &mut DeviceBuffer<f32>| match v {
            Variant::Naive => {
                convolve_naive::launch(&dev, cfg, out, &mask, &image, rows, cols, mr, mc)
            }
            Variant::Shared => {
                convolve_shared::launch(&dev, cfg, out, &mask, &image, rows, cols, mr, mc)
            }
            Variant::All => unreachable!(),
        };
        let (per_launch, got) = common::time_launches(&dev, &mut result, &poison, reps, launch)?;
        let where_ = if gpu { "" } else { " on the simulator" };
        println!(
            "  {name} on {cfg}: {:.3} ms per convolution{where_} ({:.2} GFLOP/s, {:.2} Gpixel/s)",
            per_launch * 1e3,
            flop / per_launch / 1e9,
            (rows * cols) as f64 / per_launch / 1e9
        );
        all_ok &= common::check_matrix(name, "pixels", &got, &expected, cols, f32::to_bits);
    }
    Ok(all_ok)
}
