//! 2-D convolution of a grayscale image with a mask (seed 002):
//!
//! result[i][j] = sum over (k, l) of mask[k][l] * image[i - k + mask_rows / 2][j - l + mask_cols / 2]
//!
//! with zeros outside the image. Two kernels:
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
use warpspeed::prelude::*;
use warpspeed::{Backend, DeviceBuffer, LaunchConfig};

mod common;
use common::{KernelVariant, VariantFlags, XorShift};

/// The largest mask side the shared kernel's tiles hold (seed 002's 13x13).
const MAX_MASK: usize = 13;

/// Seed 002's `convolve`: one thread per pixel (x = column, y = row), everything read from
/// global memory; taps outside the image are skipped (zero padding).
#[gpu_kernel]
fn convolve_naive(
    result: &mut [f32],
    mask: &[f32],
    image: &[f32],
    rows: usize,
    cols: usize,
    mask_rows: usize,
    mask_cols: usize,
) {
    let (j, i) = grid_2d();
    if i >= rows || j >= cols {
        return;
    }
    let dr = mask_rows / 2;
    let dc = mask_cols / 2;
    let mut s = 0.0f32;
    for k in 0..mask_rows {
        for l in 0..mask_cols {
            // Image row i - k + dr and column j - l + dc, tested without going below zero.
            if i + dr >= k && i + dr - k < rows && j + dc >= l && j + dc - l < cols {
                s += mask[k * mask_cols + l] * image[(i + dr - k) * cols + (j + dc - l)];
            }
        }
    }
    result[i * cols + j] = s;
}

/// Seed 002's `smem_convolve`: blocks of 32x32 threads. The block's threads copy the mask
/// (at most 13x13) into shared memory, and the image rows i0 - dr .. i0 + 32 + dr and
/// columns j0 - dc .. j0 + 32 + dc (the tile and its halo, zeros outside the image, at most
/// 44x44) into a shared tile, each thread a strided share of it; after the barrier every
/// pixel's sum reads shared memory only. Threads outside the image help load and write
/// nothing.
#[gpu_kernel]
fn convolve_shared(
    result: &mut [f32],
    mask: &[f32],
    image: &[f32],
    rows: usize,
    cols: usize,
    mask_rows: usize,
    mask_cols: usize,
) {
    let tile = SharedArray::<[f32; 44], 44>::new();
    let smask = SharedArray::<f32, 169>::new();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let t = ty * 32 + tx;
    let i0 = block_idx().y as usize * 32;
    let j0 = block_idx().x as usize * 32;
    let dr = mask_rows / 2;
    let dc = mask_cols / 2;
    if t < mask_rows * mask_cols {
        smask[t] = mask[t];
    }
    // Tile cell (r, c) holds image pixel (i0 + r - dr, j0 + c - dc).
    let tile_rows = 32 + 2 * dr;
    let tile_cols = 32 + 2 * dc;
    let mut e = t;
    while e < tile_rows * tile_cols {
        let r = e / tile_cols;
        let c = e % tile_cols;
        let inside = i0 + r >= dr && i0 + r - dr < rows && j0 + c >= dc && j0 + c - dc < cols;
        tile[r][c] = if inside {
            image[(i0 + r - dr) * cols + (j0 + c - dc)]
        } else {
            0.0
        };
        e += 1024;
    }
    sync_threads();
    let i = i0 + ty;
    let j = j0 + tx;
    if i < rows && j < cols {
        // image[i - k + dr][j - l + dc] is tile[ty + 2 dr - k][tx + 2 dc - l].
        let mut s = 0.0f32;
        for k in 0..mask_rows {
            for l in 0..mask_cols {
                s += smask[k * mask_cols + l] * tile[ty + 2 * dr - k][tx + 2 * dc - l];
            }
        }
        result[i * cols + j] = s;
    }
}

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

/// The CPU reference: the formula above, taps in the same order, rows over the CPU's threads.
fn cpu_convolve(
    image: &[f32],
    rows: usize,
    cols: usize,
    mask: &[f32],
    mr: usize,
    mc: usize,
) -> Vec<f32> {
    let mut out = vec![0.0f32; rows * cols];
    let (dr, dc) = ((mr / 2) as isize, (mc / 2) as isize);
    common::par_rows(&mut out, cols, |i, out_row| {
        let i = i as isize;
        for (j, o) in out_row.iter_mut().enumerate() {
            let mut s = 0.0f32;
            for k in 0..mr {
                let ii = i - k as isize + dr;
                if ii < 0 || ii >= rows as isize {
                    continue;
                }
                for l in 0..mc {
                    let jj = j as isize - l as isize + dc;
                    if jj >= 0 && jj < cols as isize {
                        s += mask[k * mc + l] * image[ii as usize * cols + jj as usize];
                    }
                }
            }
            *o = s;
        }
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
