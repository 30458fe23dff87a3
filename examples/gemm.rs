//! GEMM on the tensor cores (examples/kernels/gemm.rs, docs/tensor-cores.md), each kernel
//! checked and unchecked, each against the CPU; the output is poisoned (NaN) first.
//!
//! - `bf16`: C (f32) = A (bf16) * B (bf16), all row major: a two-stage `cp_async` pipeline
//!   into shared memory, `ldmatrix`, `mma_sync` m16n8k16. The inputs are small integers
//!   (-3..=3), exact in bf16, whose products and sums are exact in f32 whatever the order:
//!   the result must equal the CPU's bit for bit.
//! - `3xtf32`: C = A * B in f32 through tf32 `mma_sync`s with split correction; random
//!   reals in [-1, 1), checked against an f64 reference (on 256 sampled elements on a GPU,
//!   all on the simulator): the largest error relative to the largest |C| must stay below
//!   2^-17 (plain tf32 is about 2^-11). It prints the error.
//! - `hopper`: C (bf16, f16, then f32 through tf32) = A * B^T with B given n x k, on Hopper's warpgroup MMA
//!   fed by TMA (examples/kernels/gemm_hopper.rs: a persistent, warp-specialised kernel,
//!   sm_90a). Small-integer inputs, so C equals the CPU's rounded sums bit for bit. On a
//!   GPU other than compute capability 9.0 its launch is `Error::UnsupportedArch`, which the
//!   example prints and skips; the simulator runs it anywhere (default 128 x 256 x 128). In
//!   `--kernel all`, sizes it cannot take (m a multiple of 128, n of 256, k of 64) skip it.
//!
//! On the GPU it prints TFLOP/s; cuBLAS reaches about 780 TFLOP/s at 4096^3 bf16 on an H100
//! (docs/benchmarks.md).
//!
//! ```text
//! cargo run --release --example gemm                      # GPU if present, else simulator
//! WARPSPEED_BACKEND=sim cargo run --release --example gemm -- --m 64 --n 96 --k 48
//! cargo run --release --example gemm -- --kernel 3xtf32
//! cargo run --release --example gemm -- --kernel hopper --m 8192 --n 8192 --k 8192
//! cargo run --release --example gemm -- --print-cuda
//! ```

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use warpspeed::swizzle::Swizzle;
use warpspeed::{
    bf16, bf16x2, f16, f16x2, f32x2, Backend, Device, DeviceBuffer, KernelScalar, TensorMap,
};

mod common;
use common::XorShift;
#[path = "kernels/gemm_hopper.rs"]
mod gemm_hopper;
#[path = "kernels/gemm.rs"]
mod gemm_kernels;
use gemm_kernels::{checked, gemm_config, gemm_shape_error, unchecked};

#[derive(Parser)]
#[command(
    about = "bf16 GEMM on the tensor cores (cp_async, ldmatrix, mma_sync), checked against the CPU"
)]
struct Args {
    /// Rows of A and C, a multiple of 32. Default: 4096 on a GPU, 64 on the simulator.
    #[arg(long)]
    m: Option<usize>,
    /// Columns of B and C, a multiple of 32. Default: 4096 on a GPU, 96 on the simulator.
    #[arg(long)]
    n: Option<usize>,
    /// Columns of A, rows of B, a multiple of 16. Default: 4096 on a GPU, 48 on the simulator.
    #[arg(long)]
    k: Option<usize>,
    /// Timed launches of each kernel. Default: 20 on a GPU, 1 on the simulator.
    #[arg(long)]
    reps: Option<usize>,
    /// Which kernels run.
    #[arg(long, value_enum, default_value = "all")]
    kernel: Which,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Which {
    All,
    Bf16,
    #[value(name = "3xtf32")]
    Tf32x3,
    Hopper,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let kernels = [
        &checked::gemm_bf16::KERNEL,
        &unchecked::gemm_bf16::KERNEL,
        &checked::gemm_3xtf32::KERNEL,
        &unchecked::gemm_3xtf32::KERNEL,
        &gemm_hopper::checked::gemm_hopper_bf16::KERNEL,
        &gemm_hopper::unchecked::gemm_hopper_bf16::KERNEL,
        &gemm_hopper::checked::gemm_hopper_f16::KERNEL,
        &gemm_hopper::unchecked::gemm_hopper_f16::KERNEL,
        &gemm_hopper::checked::gemm_hopper_tf32::KERNEL,
        &gemm_hopper::unchecked::gemm_hopper_tf32::KERNEL,
    ];
    common::run_main(args.print_cuda, &kernels, || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = common::open_device()?;
    let mut ok = true;
    if matches!(args.kernel, Which::All | Which::Bf16) {
        ok &= run_bf16(&dev, args)?;
    }
    if matches!(args.kernel, Which::All | Which::Tf32x3) {
        ok &= run_3xtf32(&dev, args)?;
    }
    if matches!(args.kernel, Which::All | Which::Hopper) {
        ok &= run_hopper(&dev, args)?;
    }
    Ok(ok)
}

/// The sizes and repetitions of a run: the flags, else the GPU's or the simulator's defaults.
fn sizes(dev: &Device, args: &Args) -> (usize, usize, usize, usize) {
    let gpu = dev.backend() == Backend::Cuda;
    let m = args.m.unwrap_or(if gpu { 4096 } else { 64 });
    let n = args.n.unwrap_or(if gpu { 4096 } else { 96 });
    let k = args.k.unwrap_or(if gpu { 4096 } else { 48 });
    let reps = args.reps.unwrap_or(if gpu { 20 } else { 1 }).max(1);
    (m, n, k, reps)
}

fn run_bf16(dev: &Device, args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = dev.clone();
    let gpu = dev.backend() == Backend::Cuda;
    let (m, n, k, reps) = sizes(&dev, args);
    if let Some(why) = gemm_shape_error(m, n, k) {
        eprintln!("error: {why}");
        return Ok(false);
    }
    let mut rng = XorShift::new(21);
    let mut small = |len| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u32() % 7) as f32 - 3.0)
            .collect()
    };
    let (a_host, b_host) = (small(m * k), small(k * n));
    let to_bf16 = |v: &[f32]| -> Vec<bf16> { v.iter().map(|&x| bf16::from_f32(x)).collect() };
    let a = dev.upload(&to_bf16(&a_host))?;
    let b = dev.upload(&to_bf16(&b_host))?;
    let poison = vec![f32::NAN; m * n];
    let mut c = dev.upload(&poison)?;
    let mut expected = vec![0.0f32; m * n];
    common::par_rows(&mut expected, n, |row, c_row| {
        for (i, &a_ri) in a_host[row * k..(row + 1) * k].iter().enumerate() {
            for (cv, &bv) in c_row.iter_mut().zip(&b_host[i * n..(i + 1) * n]) {
                *cv += a_ri * bv;
            }
        }
    });
    let cfg = gemm_config(m, n);
    let flop = 2.0 * m as f64 * n as f64 * k as f64;
    println!(
        "gemm: C ({m}x{n}, f32) = A ({m}x{k}, bf16) * B ({k}x{n}, bf16), {reps} timed launches"
    );
    let mut all_ok = true;
    for (name, unchecked_form) in [("gemm_bf16", false), ("gemm_bf16 (unchecked)", true)] {
        let launch = |c: &mut DeviceBuffer<f32>| {
            if unchecked_form {
                unchecked::gemm_bf16::launch(&dev, cfg, &a, &b, c, m, n, k)
            } else {
                checked::gemm_bf16::launch(&dev, cfg, &a, &b, c, m, n, k)
            }
        };
        let (per_launch, got) = common::time_launches(&dev, &mut c, &poison, reps, launch)?;
        let rate = flop / per_launch / 1e12;
        let on = if gpu { "" } else { " on the simulator" };
        println!(
            "  {name} on {cfg}: {:.3} ms per launch{on}, {rate:.2} TFLOP/s",
            per_launch * 1e3
        );
        all_ok &= common::check_matrix(name, "elements", &got, &expected, n, f32::to_bits);
    }
    Ok(all_ok)
}

/// 3xTF32: f32 in and out, checked against f64 within 2^-17 of the largest |C|.
fn run_3xtf32(dev: &Device, args: &Args) -> Result<bool, warpspeed::Error> {
    let gpu = dev.backend() == Backend::Cuda;
    let (m, n, k, reps) = sizes(dev, args);
    if let Some(why) = gemm_shape_error(m, n, k) {
        eprintln!("error: {why}");
        return Ok(false);
    }
    let mut rng = XorShift::new(33);
    let mut reals = |len| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
            .collect()
    };
    let (a_host, b_host) = (reals(m * k), reals(k * n));
    let a = dev.upload(&a_host)?;
    let b = dev.upload(&b_host)?;
    let poison = vec![f32::NAN; m * n];
    let mut c = dev.upload(&poison)?;
    // Every element on the simulator; on a GPU 256 of them (the product is 2 m n k flops).
    let at: Vec<usize> = if gpu {
        (0..256)
            .map(|i| match i {
                0 => 0,
                1 => m * n - 1,
                _ => rng.next_u64() as usize % (m * n),
            })
            .collect()
    } else {
        (0..m * n).collect()
    };
    let want: Vec<f64> = at
        .iter()
        .map(|&e| {
            let (r, col) = (e / n, e % n);
            (0..k)
                .map(|i| a_host[r * k + i] as f64 * b_host[i * n + col] as f64)
                .sum()
        })
        .collect();
    let scale = want
        .iter()
        .fold(0.0f64, |s, w| s.max(w.abs()))
        .max(f64::MIN_POSITIVE);
    let cfg = gemm_config(m, n);
    let flop = 2.0 * m as f64 * n as f64 * k as f64;
    println!("gemm 3xTF32: C ({m}x{n}) = A ({m}x{k}) * B ({k}x{n}), f32, {reps} timed launches");
    let mut all_ok = true;
    for (name, unchecked_form) in [("gemm_3xtf32", false), ("gemm_3xtf32 (unchecked)", true)] {
        let launch = |c: &mut DeviceBuffer<f32>| {
            if unchecked_form {
                unchecked::gemm_3xtf32::launch(dev, cfg, &a, &b, c, m, n, k)
            } else {
                checked::gemm_3xtf32::launch(dev, cfg, &a, &b, c, m, n, k)
            }
        };
        let (per_launch, got) = common::time_launches(dev, &mut c, &poison, reps, launch)?;
        let err = at
            .iter()
            .zip(&want)
            .map(|(&e, w)| (got[e] as f64 - w).abs() / scale)
            .fold(
                0.0f64,
                |s, e| if e.is_nan() { f64::INFINITY } else { s.max(e) },
            );
        let unwritten = got.iter().filter(|v| v.is_nan()).count();
        let on = if gpu { "" } else { " on the simulator" };
        println!(
            "  {name} on {cfg}: {:.3} ms per launch{on}, {:.2} TFLOP/s, largest error {err:.2e} of max |C| (2^{:.1})",
            per_launch * 1e3,
            flop / per_launch / 1e12,
            err.log2()
        );
        if unwritten > 0 || err > 2f64.powi(-17) {
            eprintln!(
                "MISMATCH ({name}): {unwritten} elements unwritten, error {err:.2e} above 2^-17"
            );
            all_ok = false;
        }
    }
    Ok(all_ok)
}

/// The Hopper kernels, bf16 then f16, checked and unchecked.
fn run_hopper(dev: &Device, args: &Args) -> Result<bool, warpspeed::Error> {
    use gemm_hopper::{checked as ch, unchecked as un};
    let gpu = dev.backend() == Backend::Cuda;
    let m = args.m.unwrap_or(if gpu { 4096 } else { 128 });
    let n = args.n.unwrap_or(if gpu { 4096 } else { 256 });
    let k = args.k.unwrap_or(if gpu { 4096 } else { 128 });
    let reps = args.reps.unwrap_or(if gpu { 20 } else { 1 }).max(1);
    if let Some(why) = gemm_hopper::gemm_hopper_shape_error(m, n, k) {
        if args.kernel == Which::All {
            println!("gemm (Hopper): skipped: {why}");
            return Ok(true);
        }
        eprintln!("error: {why}");
        return Ok(false);
    }
    let mut rng = XorShift::new(90);
    let mut small = |len| -> Vec<f32> {
        (0..len)
            .map(|_| (rng.next_u32() % 7) as f32 - 3.0)
            .collect()
    };
    let (a_host, b_host) = (small(m * k), small(n * k));
    // C[r][c] = sum_i A[r][i] * B[c][i]: integers, exact in f32 in any order.
    let mut sums = vec![0.0f32; m * n];
    common::par_rows(&mut sums, n, |row, c_row| {
        let a_row = &a_host[row * k..(row + 1) * k];
        for (col, cv) in c_row.iter_mut().enumerate() {
            let b_row = &b_host[col * k..(col + 1) * k];
            *cv = a_row.iter().zip(b_row).map(|(x, y)| x * y).sum();
        }
    });
    let sms = dev.limits().multiprocessor_count as usize;
    let cfg = gemm_hopper::gemm_hopper_config(m, n, sms);
    let host = (&a_host[..], &b_host[..], &sums[..]);
    let shape = (m, n, k, reps);
    let launches: [HopperLaunch<bf16, bf16x2>; 2] =
        [ch::gemm_hopper_bf16::launch, un::gemm_hopper_bf16::launch];
    let mut ok = hopper_one(dev, shape, cfg, host, launches)?;
    let launches: [HopperLaunch<f16, f16x2>; 2] =
        [ch::gemm_hopper_f16::launch, un::gemm_hopper_f16::launch];
    ok &= hopper_one(dev, shape, cfg, host, launches)?;
    let launches: [HopperLaunch<f32, f32x2>; 2] =
        [ch::gemm_hopper_tf32::launch, un::gemm_hopper_tf32::launch];
    ok &= hopper_one(dev, shape, cfg, host, launches)?;
    Ok(ok)
}

/// A Hopper kernel's `launch`.
type HopperLaunch<T, P> = fn(
    &Device,
    warpspeed::LaunchConfig,
    &TensorMap<T>,
    &TensorMap<T>,
    &mut DeviceBuffer<P>,
    u32,
    u32,
    u32,
) -> warpspeed::Result<()>;

/// One element type: checked and unchecked, each timed and compared bit for bit with the
/// CPU's sums rounded to `T`.
fn hopper_one<T: gemm_hopper::HopperElem>(
    dev: &Device,
    (m, n, k, reps): (usize, usize, usize, usize),
    cfg: warpspeed::LaunchConfig,
    (a_host, b_host, sums): (&[f32], &[f32], &[f32]),
    launches: [HopperLaunch<T, T::Pair>; 2],
) -> Result<bool, warpspeed::Error> {
    let gpu = dev.backend() == Backend::Cuda;
    let to_t = |v: &[f32]| -> Vec<T> { v.iter().map(|&x| T::from_f32(x)).collect() };
    let a = dev.upload(&to_t(a_host))?;
    let b = dev.upload(&to_t(b_host))?;
    let (bm, bn, bk) = (gemm_hopper::BM, gemm_hopper::BN, T::BK);
    let ma = TensorMap::tiled_2d(&a, [m, k], [bm, bk], Swizzle::B128)?;
    let mb = TensorMap::tiled_2d(&b, [n, k], [bn, bk], Swizzle::B128)?;
    let expected: Vec<u64> = sums
        .chunks(2)
        .map(|p| T::pair(p[0], p[1]).to_bits())
        .collect();
    // All ones: a NaN in each half, in every type.
    let poison = vec![T::Pair::from_bits(u64::MAX); m * n / 2];
    let mut c = dev.upload(&poison)?;
    let flop = 2.0 * m as f64 * n as f64 * k as f64;
    let name = format!("gemm_hopper_{}", T::NAME);
    println!(
        "gemm (Hopper): C ({m}x{n}, {t}) = A ({m}x{k}, {t}) * B^T (B {n}x{k}), {reps} timed launches",
        t = T::NAME
    );
    let mut all_ok = true;
    for (form, launch) in ["checked", "unchecked"].into_iter().zip(launches) {
        let (m32, n32, k32) = (m as u32, n as u32, k as u32);
        let run = |c: &mut DeviceBuffer<T::Pair>| launch(dev, cfg, &ma, &mb, c, m32, n32, k32);
        let (per_launch, got) = match common::time_launches(dev, &mut c, &poison, reps, run) {
            Err(e @ warpspeed::Error::UnsupportedArch { .. }) => {
                println!("  {name} ({form}): skipped: {e}");
                return Ok(true);
            }
            other => other?,
        };
        let on = if gpu { "" } else { " on the simulator" };
        println!(
            "  {name} ({form}) on {cfg}: {:.3} ms per launch{on}, {:.1} TFLOP/s",
            per_launch * 1e3,
            flop / per_launch / 1e12
        );
        let got: Vec<u64> = got.into_iter().map(|p| p.to_bits()).collect();
        all_ok &= common::check_matrix(
            &format!("{name} ({form})"),
            "element pairs",
            &got,
            &expected,
            n / 2,
            |v| v,
        );
    }
    Ok(all_ok)
}
