//! Flash-attention forward on Hopper's tensor cores (examples/kernels/attention.rs,
//! docs/tensor-cores.md): `O = softmax(Q Kᵀ / sqrt(D)) V` in bf16, full and causal, the
//! kernel checked and unchecked, each against an f64 CPU reference; the output is poisoned
//! (NaN) first.
//!
//! Q, K and V are [B, H, L, D], random in [-2, 2) (rounded to bf16). The kernel rounds P to
//! bf16 before `P V`, as every flash attention does, so the result is not bit-exact: each
//! checked head must have `|O - O_ref| / |O_ref|` (Frobenius) below 1e-2. On the GPU two
//! heads are checked (the first and the last); on the simulator every head.
//!
//! On the GPU it prints TFLOP/s (4·B·H·L²·D FLOPs, half of it causal). torch's
//! scaled_dot_product_attention reaches about 625 TFLOP/s at B=4 H=32 L=4096 D=128 on an
//! H100 (docs/benchmarks.md). On a GPU other than compute capability 9.0 the launch is
//! `Error::UnsupportedArch` (the kernel needs sm_90a), which the example prints and skips.
//!
//! ```text
//! cargo run --release --example attention          # GPU: the two shapes below; else the simulator
//! cargo run --release --example attention -- --batch 4 --heads 32 --len 4096 --dim 128
//! WARPSPEED_BACKEND=sim cargo run --release --example attention -- --len 256 --dim 64
//! cargo run --release --example attention -- --print-cuda
//! ```

use std::process::ExitCode;

use clap::Parser;
use warpspeed::swizzle::Swizzle;
use warpspeed::{bf16x2, Backend, Device, DeviceBuffer, TensorMap};

#[path = "kernels/attention.rs"]
mod attention;
mod common;
use attention::{
    attention_config, attention_error, attention_flop, attention_inputs, attention_launches,
    attention_reference, attention_shape_error, checked, scale_log2, unchecked,
};

#[derive(Parser)]
#[command(
    about = "flash-attention forward in bf16 on Hopper (wgmma, TMA), checked against the CPU"
)]
struct Args {
    /// Batch size. Default: the GPU's two shapes (4 x 32 x 4096 x 128 and 16 x 16 x 2048 x
    /// 64); on the simulator 1.
    #[arg(long)]
    batch: Option<usize>,
    /// Heads. Default: as `--batch`; 2 on the simulator.
    #[arg(long)]
    heads: Option<usize>,
    /// Sequence length L, a multiple of 128. Default: as `--batch`; 256 on the simulator.
    #[arg(long)]
    len: Option<usize>,
    /// Head dimension D, 64 or 128. Default: as `--batch`; both on the simulator.
    #[arg(long)]
    dim: Option<usize>,
    /// Timed launches of each kernel. Default: 20 on a GPU, 1 on the simulator.
    #[arg(long)]
    reps: Option<usize>,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let kernels = [
        &checked::attention_d64::KERNEL,
        &unchecked::attention_d64::KERNEL,
        &checked::attention_d128::KERNEL,
        &unchecked::attention_d128::KERNEL,
    ];
    common::run_main(args.print_cuda, &kernels, || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = common::open_device()?;
    let gpu = dev.backend() == Backend::Cuda;
    let defaults: &[(usize, usize, usize, usize)] = if gpu {
        &[(4, 32, 4096, 128), (16, 16, 2048, 64)]
    } else {
        &[(1, 2, 256, 64), (1, 2, 256, 128)]
    };
    let given = (args.batch, args.heads, args.len, args.dim);
    let shapes: Vec<(usize, usize, usize, usize)> = match given {
        (None, None, None, None) => defaults.to_vec(),
        _ => {
            let (b, h, l, d) = defaults[0];
            let dims: Vec<usize> = match (args.dim, gpu) {
                (Some(d), _) => vec![d],
                (None, true) => vec![d],
                (None, false) => vec![64, 128],
            };
            dims.into_iter()
                .map(|d| {
                    (
                        args.batch.unwrap_or(b),
                        args.heads.unwrap_or(h),
                        args.len.unwrap_or(l),
                        d,
                    )
                })
                .collect()
        }
    };
    let reps = args.reps.unwrap_or(if gpu { 20 } else { 1 }).max(1);
    let mut ok = true;
    for shape in shapes {
        if let Some(why) = attention_shape_error(shape.0, shape.1, shape.2, shape.3) {
            eprintln!("error: {why}");
            return Ok(false);
        }
        for causal in [false, true] {
            match run_shape(&dev, shape, causal, reps) {
                Err(e @ warpspeed::Error::UnsupportedArch { .. }) => {
                    println!("attention: skipped: {e}");
                    return Ok(true);
                }
                r => ok &= r?,
            }
        }
    }
    Ok(ok)
}

/// One shape, full or causal: checked and unchecked, each timed and compared with the CPU.
fn run_shape(
    dev: &Device,
    (b, h, len, d): (usize, usize, usize, usize),
    causal: bool,
    reps: usize,
) -> Result<bool, warpspeed::Error> {
    let gpu = dev.backend() == Backend::Cuda;
    let n = b * h * len * d;
    let [qh, kh, vh] = attention_inputs(n, len, d, causal);
    let q = dev.upload(&qh)?;
    let k = dev.upload(&kh)?;
    let v = dev.upload(&vh)?;
    let rows = b * h * len;
    let (bx, sw) = ([128, 64], Swizzle::B128);
    let mq = TensorMap::tiled_2d(&q, [rows, d], bx, sw)?;
    let mk = TensorMap::tiled_2d(&k, [rows, d], bx, sw)?;
    let mv = TensorMap::tiled_2d(&v, [rows, d], bx, sw)?;
    let poison = vec![bf16x2::from_bits(u32::MAX); n / 2];
    let mut o = dev.upload(&poison)?;
    let cfg = attention_config(b, h, len, d);
    let flop = attention_flop(b * h, len, d, causal);
    let heads: Vec<usize> = if gpu {
        vec![0, b * h - 1]
    } else {
        (0..b * h).collect()
    };
    let want: Vec<Vec<f64>> = heads
        .iter()
        .map(|&hd| attention_reference(&qh, &kh, &vh, hd, len, d, causal))
        .collect();
    let launches = attention_launches(d);
    let kind = if causal { "causal" } else { "full" };
    println!("attention: B={b} H={h} L={len} D={d} bf16, {kind}, {reps} timed launches");
    let mut all_ok = true;
    for (form, launch) in ["checked", "unchecked"].into_iter().zip(launches) {
        let run = |o: &mut DeviceBuffer<bf16x2>| {
            launch(
                dev,
                cfg,
                &mq,
                &mk,
                &mv,
                o,
                (b * h) as u32,
                len as u32,
                causal,
                scale_log2(d),
            )
        };
        let (per_launch, got) = common::time_launches(dev, &mut o, &poison, reps, run)?;
        let on = if gpu { "" } else { " on the simulator" };
        println!(
            "  attention_d{d} ({form}) on {cfg}: {:.3} ms per launch{on}, {:.1} TFLOP/s",
            per_launch * 1e3,
            flop / per_launch / 1e12
        );
        for (&hd, want) in heads.iter().zip(&want) {
            let err = attention_error(&got, hd, len, d, want);
            if err.is_nan() || err > 1e-2 {
                println!("  FAILED: head {hd}: relative error {err:.3e} (must be below 1e-2)");
                all_ok = false;
            }
        }
    }
    if all_ok {
        println!(
            "  ok: {} head(s) within 1e-2 of the f64 reference",
            heads.len()
        );
    }
    Ok(all_ok)
}
