//! f32 matrix multiplication C = A * B (A is m x k, B is k x n, row-major), the two kernels of seed
//! 002 (in examples/kernels/matmul.rs, shared with the bench): the naive one (each thread reads a
//! row of A and a column of B from global memory) and the tiled one (each 16x16 block stages 16x16
//! tiles of A and B in shared memory, `sync_threads()`, multiplies the tiles, `sync_threads()`,
//! next tile); and the register-tiled one (`--variant reg`, docs/matmul.md: each block of 16x16
//! threads computes a 128x128 tile of C, each thread 8x8 elements of it in registers, from
//! double-buffered 128x8 and 8x128 slabs of A and B in shared memory). Any sizes work, not only
//! multiples of the tiles: loads outside the matrices give zeros, stores outside C are skipped.
//!
//! The inputs are small integers (-8..=8) stored as f32, so every product and every partial
//! sum is an integer below 2^24 and exact in f32 whatever the order of the additions: the
//! GPU result must equal the CPU reference bit for bit. The output is poisoned (NaN) before
//! the timed run, so an element no thread wrote shows. On the GPU it prints GFLOP/s.
//!
//! ```text
//! cargo run --release --example matmul                        # GPU if present, else simulator
//! WARPSPEED_BACKEND=sim cargo run --release --example matmul -- --m 50 --k 37 --n 45
//! cargo run --release --example matmul -- --variant tiled --print-cuda
//! cargo run --release --example matmul -- --check-nvrtc       # compile the kernels, no GPU
//! ```

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use warpspeed::__private::KernelDef;
use warpspeed::{Backend, DeviceBuffer, LaunchConfig};

mod common;
use common::{KernelVariant, VariantFlags, XorShift};
#[path = "kernels/matmul.rs"]
mod matmul_kernels;
use matmul_kernels::{matmul_naive, matmul_reg, matmul_reg_config, matmul_tiled, small_ints};

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum Variant {
    Naive,
    Tiled,
    Reg,
    All,
}

impl KernelVariant for Variant {
    const ALL: Variant = Variant::All;
    const EACH: &'static [Variant] = &[Variant::Naive, Variant::Tiled, Variant::Reg];

    fn kernel(self) -> &'static KernelDef {
        match self {
            Variant::Naive => &matmul_naive::KERNEL,
            Variant::Tiled => &matmul_tiled::KERNEL,
            Variant::Reg => &matmul_reg::KERNEL,
            Variant::All => unreachable!("`all` is not a kernel"),
        }
    }
}

#[derive(Parser)]
#[command(
    about = "f32 matrix multiply, naive, shared-memory tiled and register-tiled, checked against the CPU"
)]
struct Args {
    /// Which kernel runs.
    #[arg(long, value_enum, default_value_t = Variant::All)]
    variant: Variant,
    /// Rows of A and C. Default: 2048 on a GPU, 300 on the simulator.
    #[arg(long)]
    m: Option<usize>,
    /// Columns of A, rows of B. Default: 2048 on a GPU, 250 on the simulator.
    #[arg(long)]
    k: Option<usize>,
    /// Columns of B and C. Default: 2048 on a GPU, 270 on the simulator.
    #[arg(long)]
    n: Option<usize>,
    /// Timed launches of each kernel (after a warm-up launch on the GPU). Default: 20 on a
    /// GPU, 1 on the simulator.
    #[arg(long)]
    reps: Option<usize>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    #[command(flatten)]
    flags: VariantFlags,
}

fn main() -> ExitCode {
    let args = Args::parse();
    args.flags.main(args.variant, || run(&args))
}

/// C = A * B on the CPU, rows spread over the CPU's threads (i-k-j order).
fn cpu_matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    common::par_rows(&mut c, n, |row, c_row| {
        for (i, &a_ri) in a[row * k..(row + 1) * k].iter().enumerate() {
            for (cv, &bv) in c_row.iter_mut().zip(&b[i * n..(i + 1) * n]) {
                *cv += a_ri * bv;
            }
        }
    });
    c
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = common::open_device()?;
    let gpu = dev.backend() == Backend::Cuda;
    let m = args.m.unwrap_or(if gpu { 2048 } else { 300 });
    let k = args.k.unwrap_or(if gpu { 2048 } else { 250 });
    let n = args.n.unwrap_or(if gpu { 2048 } else { 270 });
    let reps = args.reps.unwrap_or(if gpu { 20 } else { 1 }).max(1);
    // |sum| <= 64 k must stay below 2^24 for the sums to be exact.
    assert!(
        64 * k <= 1 << 24,
        "--k {k} is too large for exact f32 sums of these inputs"
    );

    let mut rng = XorShift::new(args.seed);
    let a_host = small_ints(|| rng.next_u64(), m * k);
    let b_host = small_ints(|| rng.next_u64(), k * n);
    let a = dev.upload(&a_host)?;
    let b = dev.upload(&b_host)?;
    let poison = vec![f32::NAN; m * n];
    let mut c = dev.upload(&poison)?;
    let expected = cpu_matmul(&a_host, &b_host, m, k, n);
    let cfg16 = LaunchConfig::new((n.div_ceil(16) as u32, m.div_ceil(16) as u32), (16, 16));
    let flop = 2.0 * m as f64 * k as f64 * n as f64;
    println!("matmul: C ({m}x{n}) = A ({m}x{k}) * B ({k}x{n}), f32, {reps} timed launches");

    let mut all_ok = true;
    for v in args.variant.expand() {
        let name = v.kernel().rust_name;
        let cfg = match v {
            Variant::Reg => matmul_reg_config(m, n),
            _ => cfg16,
        };
        let launch = |c: &mut DeviceBuffer<f32>| match v {
            Variant::Naive => matmul_naive::launch(&dev, cfg, c, &a, &b, m, k, n),
            Variant::Tiled => matmul_tiled::launch(&dev, cfg, c, &a, &b, m, k, n),
            Variant::Reg => matmul_reg::launch(&dev, cfg, c, &a, &b, m, k, n),
            Variant::All => unreachable!(),
        };
        let (per_launch, got) = common::time_launches(&dev, &mut c, &poison, reps, launch)?;
        let rate = flop / per_launch / 1e9;
        if gpu {
            println!(
                "  {name} on {cfg}: {:.3} ms per launch, {rate:.1} GFLOP/s",
                per_launch * 1e3
            );
        } else {
            println!(
                "  {name} on {cfg}: {:.3} ms per launch on the simulator ({:.4} GFLOP/s)",
                per_launch * 1e3,
                rate
            );
        }
        all_ok &= common::check_matrix(name, "elements", &got, &expected, n, f32::to_bits);
    }
    Ok(all_ok)
}
