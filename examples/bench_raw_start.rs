//! The raw cudarc program the bench's process-start rows compare warpspeed with: it does
//! what the bench's `--child-warm-start` child does (open GPU 0, upload two vectors, launch
//! `vector_add` once, wait), with cudarc alone, loading the kernel's CUBIN from a file (the
//! bench writes the one warpspeed's disk cache holds). It prints the same line as that
//! child: `nvrtc_compiles=0 first_kernel_ms=<from main> done_unix_ns=<wall clock>
//! correct=<bool>`. Without a CUBIN argument (e.g. on the simulator in CI) it says what it
//! is for and exits 0.
//!
//! ```text
//! bench_raw_start vector_add.cubin --len 65536 --block 256 --entry vector_add  # by `bench`
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use cudarc::driver::{CudaContext, PushKernelArg};
use cudarc::nvrtc::Ptx;

#[derive(Parser)]
#[command(about = "Loads warpspeed's vector_add CUBIN with cudarc alone, launches it once, waits")]
struct Args {
    /// The CUBIN of warpspeed's checked `vector_add` for this GPU (the bench writes it).
    cubin: Option<PathBuf>,
    /// Elements of the vectors.
    #[arg(long, default_value_t = 1 << 16)]
    len: usize,
    /// Threads per block.
    #[arg(long, default_value_t = 256)]
    block: u32,
    /// The kernel's entry in the CUBIN.
    #[arg(long, default_value = "vector_add")]
    entry: String,
}

fn main() -> ExitCode {
    let process_start = Instant::now();
    let args = Args::parse();
    let Some(cubin) = &args.cubin else {
        println!(
            "bench_raw_start: run by the bench on a GPU (bench_raw_start CUBIN); nothing to do"
        );
        return ExitCode::SUCCESS;
    };
    match run(&args, cubin, process_start) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    args: &Args,
    cubin: &PathBuf,
    process_start: Instant,
) -> Result<bool, Box<dyn std::error::Error>> {
    let ms = || process_start.elapsed().as_secs_f64() * 1e3;
    let n = args.len;
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let open = ms();
    let ha: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let hb: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
    let a = stream.clone_htod(&ha)?;
    let b = stream.clone_htod(&hb)?;
    let out = stream.clone_htod(&vec![f32::NAN; n])?;
    let upload = ms();
    let module = ctx.load_module(Ptx::from_binary(std::fs::read(cubin)?))?;
    let f = module.load_function(&args.entry)?;
    let len = n as u64;
    let mut l = stream.launch_builder(&f);
    // warpspeed's ABI: each slice is a pointer and its length (unsigned long long).
    l.arg(&a).arg(&len).arg(&b).arg(&len).arg(&out).arg(&len);
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: ((n as u32).div_ceil(args.block).max(1), 1, 1),
        block_dim: (args.block, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: vector_add(const float* a, unsigned long long a_len, const float* b,
    // unsigned long long b_len, float* out, unsigned long long out_len), as warpspeed emits
    // it: three live buffers of n f32 with their lengths; the kernel checks its indices.
    unsafe { l.launch(cfg) }?;
    let launch = ms();
    stream.synchronize()?;
    let elapsed = process_start.elapsed();
    let done = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let got = stream.clone_dtoh(&out)?;
    let right = got
        .iter()
        .zip(ha.iter().zip(&hb))
        .all(|(g, (x, y))| *g == x + y);
    println!(
        "nvrtc_compiles=0 first_kernel_ms={:.3} done_unix_ns={done} correct={right} \
         phases=open:{open:.1},upload:{upload:.1},launch:{launch:.1},sync:{:.1}",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e3
    );
    Ok(right)
}
