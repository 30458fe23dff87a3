//! Vector addition (seed 002's first Numba kernel, `vector_add(a, b, result, n)`; the kernel is in
//! examples/kernels/vector_add.rs, shared with the bench): one thread per element, `out[i] = a[i] +
//! b[i]`, with the usual bounds check for the last block. Then the same sum on `f32x4`s
//! (`vector_add4`, four elements a thread through one 16-byte load per operand; the inputs
//! padded to a multiple of 4 and viewed as vectors without copying) and a copy of the
//! vectors (`copy4`). Every result must equal the CPU's bit for bit; the program exits
//! non-zero otherwise.
//!
//! ```text
//! cargo run --release --example vector_add -- --len 20000000
//! ```

mod common;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use common::{open_device, XorShift};
use warpspeed::{f32x4, DeviceBuffer, LaunchConfig};
#[path = "kernels/vector_add.rs"]
mod vector_add_kernels;
use vector_add_kernels::{copy4, vector_add, vector_add4};

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
    common::run_main(
        args.print_cuda,
        &[&vector_add::KERNEL, &vector_add4::KERNEL, &copy4::KERNEL],
        || run(&args),
    )
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
    let mut ok = common::check_elements(
        &got,
        &want,
        f32::to_bits,
        "OK: equals the CPU sum bit for bit",
    );

    // Four lanes a thread: the inputs padded with zeros to whole `f32x4`s, uploaded as
    // `f32` and viewed as vectors (no copy).
    let n4 = n.div_ceil(4);
    let padded = |v: &[f32]| {
        let mut p = v.to_vec();
        p.resize(4 * n4, 0.0);
        p
    };
    let da4 = dev.upload(&padded(&a))?.into_vectors::<f32x4>()?;
    let db4 = dev.upload(&padded(&b))?.into_vectors::<f32x4>()?;
    let mut out4 = dev
        .upload(&vec![f32::NAN; 4 * n4])?
        .into_vectors::<f32x4>()?;
    let blocks4 = u32::try_from(n4.div_ceil(args.block as usize).max(1))
        .expect("too many blocks for one launch");
    let cfg4 = LaunchConfig::new(blocks4, args.block);
    let start = Instant::now();
    vector_add4::launch(&dev, cfg4, &da4, &db4, &mut out4)?;
    dev.synchronize()?;
    let elapsed = start.elapsed();
    println!(
        "vector_add4: {n4} f32x4 on {cfg4}, {:.3} ms (the first launch includes compiling or loading the kernel)",
        elapsed.as_secs_f64() * 1e3
    );
    let mut copy = dev.zeros::<f32x4>(n4)?;
    copy4::launch(&dev, cfg4, &out4, &mut copy)?;
    for (what, buf) in [("vector_add4", out4), ("copy4 of it", copy)] {
        let got = DeviceBuffer::from_vectors(buf).download()?;
        ok &= common::check_elements(
            &got[..n],
            &want,
            f32::to_bits,
            &format!("OK: {what} equals the CPU sum bit for bit"),
        );
    }
    Ok(ok)
}
