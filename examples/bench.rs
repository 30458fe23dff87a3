//! GPU benchmark: warpspeed kernels beside the same algorithms written by hand in CUDA C.
//!
//! What is measured (GPU only; on the simulator the bench says so and exits 0):
//! 1. **Kernel time**: Life (naive global memory, wrap-around) on 4096² and 16384² and
//!    vector add of 2^28 f32, each as a `#[gpu_kernel]` launched through `<kernel>::launch`
//!    and as a hand-written CUDA C kernel of the same algorithm (a string below), compiled
//!    through the same NVRTC path (`warpspeed::compile::compile_cubin`, same options, the
//!    device's exact architecture) and launched with cudarc directly. Timed with CUDA
//!    events around many back-to-back launches; the best of several rounds is reported,
//!    rounds alternating between the two so clock and thermal drift hit both. The hand
//!    kernels' outputs must equal warpspeed's bit for bit (and the CPU's where cheap), or
//!    the bench fails.
//! 2. **Launch overhead**: an empty `#[gpu_kernel]` launched 10^5 times through `launch`
//!    against a raw cudarc launch (`launch_builder`) of an empty kernel.
//! 3. **Second-process start**: the bench runs itself twice as a child
//!    (`--child-warm-start`) with a fresh `WARPSPEED_CACHE_DIR` shared by both; each child
//!    opens the device, launches one kernel and waits for it. The second child must do 0
//!    NVRTC compilations (the disk cache), or the bench fails.
//!
//! 4. **Bounds checks**: Life with the slices' lengths declared (`#[len(n * n)]`, every
//!    index proven, checked once at the launch) and without (every index checked on the
//!    GPU), and vector add, each against the same kernel `unchecked`.
//!
//! Ratios are warpspeed / hand (lower is better; targets: kernels <= 1.03, launch overhead
//! <= 1.10, bounds checks <= 1.05). A missed target is marked in the table; `--strict` makes it an exit code of 1.
//!
//! ```text
//! cargo run --release --example bench                 # on a GPU machine
//! cargo run --release --example bench -- --quick      # smaller sizes, a quick smoke run
//! cargo run --release --example bench -- --check-nvrtc --arch 90   # no GPU needed
//! ```

mod common;

use std::error::Error;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use common::{first_difference, XorShift};
use cudarc::driver::{CudaFunction, CudaStream, PushKernelArg};
use cudarc::nvrtc::Ptx;
use warpspeed::compile::{compile_cubin, nvrtc_compile_count};
use warpspeed::prelude::*;
use warpspeed::{Backend, Device, DeviceBuffer, KernelOptions, LaunchConfig};

type Res<T> = Result<T, Box<dyn Error>>;

#[path = "kernels/life.rs"]
mod life_kernels;
use life_kernels::{conway, conway_unchecked, conway_undeclared};

// ---- the warpspeed kernels -------------------------------------------------------------

/// `vector_add` with bounds checks, `vector_add_unchecked` without (the one compared with
/// the hand-written kernel, which has none). `i < out.len()` proves `out[i]`; `a[i]` and
/// `b[i]` keep their checks (nothing says `a` and `b` are as long as `out`).
macro_rules! vector_add {
    ($name:ident $(, $option:ident)?) => {
        #[gpu_kernel($($option)?)]
        fn $name(a: &[f32], b: &[f32], out: &mut [f32]) {
            let i = grid_1d();
            if i < out.len() {
                out[i] = a[i] + b[i];
            }
        }
    };
}

vector_add!(vector_add);
vector_add!(vector_add_unchecked, unchecked);

#[gpu_kernel]
fn empty() {}

// ---- the same algorithms, written by hand ----------------------------------------------

/// What a CUDA programmer would write for the kernels above: the same index arithmetic
/// (64-bit, like Rust's usize), the same loads, the same tests. Self-contained, like
/// warpspeed's output (NVRTC as shipped has no CUDA headers).
const HAND_CUDA: &str = r#"
__device__ int nbrs(const int* __restrict__ in, unsigned long long x, unsigned long long y,
                    unsigned long long n) {
    unsigned long long xm = (x + n - 1) % n, xp = (x + 1) % n;
    unsigned long long ym = (y + n - 1) % n, yp = (y + 1) % n;
    return in[ym * n + xm] + in[ym * n + x] + in[ym * n + xp]
         + in[y * n + xm]                   + in[y * n + xp]
         + in[yp * n + xm] + in[yp * n + x] + in[yp * n + xp];
}

extern "C" __global__ void life_hand(int* __restrict__ out, const int* __restrict__ in,
                                     unsigned long long n) {
    unsigned long long x = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long y = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n) return;
    int k = nbrs(in, x, y, n);
    bool alive = in[y * n + x] == 1;
    out[y * n + x] = (k == 3 || (alive && k == 2)) ? 1 : 0;
}

extern "C" __global__ void vector_add_hand(const float* __restrict__ a,
                                           const float* __restrict__ b,
                                           float* __restrict__ out, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i];
}

extern "C" __global__ void empty_hand() {}
"#;

// ---- arguments -----------------------------------------------------------------------

#[derive(Parser)]
#[command(about = "Benchmark warpspeed kernels against hand-written CUDA C (needs a GPU)")]
struct Args {
    /// Life lattice sides to benchmark.
    #[arg(long, value_delimiter = ',', default_value = "4096,16384")]
    life_sizes: Vec<usize>,
    /// log2 of the vector-add length (f32 elements).
    #[arg(long, default_value_t = 28)]
    vector_log2: u32,
    /// Launches of the empty kernel per round of the launch-overhead test.
    #[arg(long, default_value_t = 100_000)]
    launches: usize,
    /// Timed rounds per comparison (the best round counts).
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// GPU time one round of one kernel should take, in milliseconds (sets the iterations).
    #[arg(long, default_value_t = 300.0)]
    round_ms: f64,
    /// Small sizes for a quick smoke run (Life 1024², vector 2^22, 10^4 launches, 2 rounds).
    #[arg(long)]
    quick: bool,
    /// Exit with 1 when a ratio misses its target (outputs that differ always fail).
    #[arg(long)]
    strict: bool,
    /// Only compile the hand-written and the generated CUDA C with NVRTC (no GPU needed).
    #[arg(long)]
    check_nvrtc: bool,
    /// Architecture for --check-nvrtc, e.g. 90 for sm_90 (default: the GPU's, else 90).
    #[arg(long)]
    arch: Option<u32>,
    /// Internal: the child process of the second-process-start test.
    #[arg(long, hide = true)]
    child_warm_start: bool,
}

fn main() -> ExitCode {
    // The child's clock starts before anything else runs.
    let process_start = Instant::now();
    let mut args = Args::parse();
    if args.quick {
        args.life_sizes = vec![1024];
        args.vector_log2 = 22;
        args.launches = 10_000;
        args.rounds = 2;
        args.round_ms = 50.0;
    }
    let outcome = if args.child_warm_start {
        child_warm_start(process_start)
    } else if args.check_nvrtc {
        check_nvrtc(args.arch)
    } else {
        bench(&args)
    };
    common::exit_code(outcome)
}

// ---- NVRTC check (no GPU needed) -------------------------------------------------------

fn check_nvrtc(arch: Option<u32>) -> Res<bool> {
    let arch = match arch {
        Some(a) => common::sm(a),
        None => Device::cuda(0)
            .ok()
            .and_then(|d| d.compute_capability())
            .unwrap_or((9, 0)),
    };
    let sources: [(&str, &str, KernelOptions); 7] = [
        (
            "hand-written (life_hand, vector_add_hand, empty_hand)",
            HAND_CUDA,
            conway::KERNEL.options,
        ),
        (
            "warpspeed conway",
            &conway::CUDA_SOURCE,
            conway::KERNEL.options,
        ),
        (
            "warpspeed conway_undeclared",
            &conway_undeclared::CUDA_SOURCE,
            conway_undeclared::KERNEL.options,
        ),
        (
            "warpspeed vector_add",
            &vector_add::CUDA_SOURCE,
            vector_add::KERNEL.options,
        ),
        (
            "warpspeed conway_unchecked",
            &conway_unchecked::CUDA_SOURCE,
            conway_unchecked::KERNEL.options,
        ),
        (
            "warpspeed vector_add_unchecked",
            &vector_add_unchecked::CUDA_SOURCE,
            vector_add_unchecked::KERNEL.options,
        ),
        (
            "warpspeed empty",
            &empty::CUDA_SOURCE,
            empty::KERNEL.options,
        ),
    ];
    Ok(common::compile_sources(&sources, &[arch])?)
}

// ---- the benchmark -----------------------------------------------------------------------

/// One line of the result table.
struct Row {
    what: String,
    ws: f64,
    hand: f64,
    unit: &'static str,
    target: f64,
}

fn bench(args: &Args) -> Res<bool> {
    let dev = Device::new()?;
    if dev.backend() != Backend::Cuda {
        let required = std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1");
        println!(
            "bench: needs a CUDA GPU, but the device is {}; nothing to measure on the simulator.",
            dev.name()
        );
        if required {
            eprintln!("bench: WARPSPEED_REQUIRE_GPU=1 but no GPU is present");
            return Ok(false);
        }
        return Ok(true);
    }
    let cc = dev.compute_capability().expect("a CUDA device has one");
    let stream = dev
        .cuda_stream()
        .expect("a CUDA device has a stream")
        .clone();
    println!("device: {} (sm_{}{})", dev.name(), cc.0, cc.1);

    // The hand kernels go through the same NVRTC path and options as warpspeed's.
    let cubin = compile_cubin(HAND_CUDA, cc, conway::KERNEL.options)?;
    let module = stream.context().load_module(Ptx::from_binary(cubin))?;
    let hand = Hand {
        life: module.load_function("life_hand")?,
        vector_add: module.load_function("vector_add_hand")?,
        empty: module.load_function("empty_hand")?,
    };

    let mut rows = Vec::new();
    let mut ok = true;
    for &n in &args.life_sizes {
        ok &= bench_life(&dev, &stream, &hand, n, args, &mut rows)?;
    }
    ok &= bench_vector_add(
        &dev,
        &stream,
        &hand,
        1usize << args.vector_log2,
        args,
        &mut rows,
    )?;
    bench_launch_overhead(&dev, &stream, &hand, args, &mut rows)?;
    let (warm_ok, warm_lines) = warm_start()?;
    ok &= warm_ok;

    println!();
    println!(
        "{:<32} {:>14} {:>14} {:>8} {:>8}",
        "benchmark", "warpspeed", "hand/raw", "ratio", "target"
    );
    let mut missed = 0;
    for r in &rows {
        let ratio = r.ws / r.hand;
        let verdict = if ratio <= r.target { "" } else { "  MISSED" };
        missed += usize::from(ratio > r.target);
        println!(
            "{:<32} {:>11.3} {:<2} {:>11.3} {:<2} {:>8.3} {:>8}{verdict}",
            r.what,
            r.ws,
            r.unit,
            r.hand,
            r.unit,
            ratio,
            format!("<={}", r.target)
        );
    }
    for line in warm_lines {
        println!("{line}");
    }
    println!(
        "outputs: {}; ratio targets missed: {missed}",
        if ok {
            "all equal"
        } else {
            "SOME DIFFER (see above)"
        }
    );
    Ok(ok && !(args.strict && missed > 0))
}

/// The hand-written kernels, loaded with cudarc.
struct Hand {
    life: CudaFunction,
    vector_add: CudaFunction,
    empty: CudaFunction,
}

/// Iterations that make one round take about `round_ms`, from one timed call.
fn calibrate(per_call_ms: f64, round_ms: f64) -> usize {
    ((round_ms / per_call_ms.max(1e-6)) as usize).clamp(3, 5000)
}

/// The device pointer of a warpspeed buffer, as a cudarc kernel argument.
fn raw<T: warpspeed::KernelScalar>(buf: &DeviceBuffer<T>) -> &cudarc::driver::CudaSlice<u8> {
    buf.cuda_bytes().expect("a buffer of a CUDA device")
}

fn bench_life(
    dev: &Device,
    stream: &Arc<CudaStream>,
    hand: &Hand,
    n: usize,
    args: &Args,
    rows: &mut Vec<Row>,
) -> Res<bool> {
    println!("life {n}x{n}: preparing a random lattice");
    let mut rng = XorShift::new(n as u64);
    let init: Vec<i32> = (0..n * n)
        .map(|_| i32::from(rng.next_u64() >> 62 == 0))
        .collect();
    // warpspeed ping-pongs between a and b, the hand kernel between c and d; the second
    // buffer of each pair is poisoned so a cell left unwritten shows up.
    let mut a = dev.upload(&init)?;
    let mut b = dev.upload(&vec![-1i32; n * n])?;
    let mut c = dev.upload(&init)?;
    let mut d = dev.upload(&vec![-1i32; n * n])?;
    let mut e = dev.upload(&init)?;
    let mut f = dev.upload(&vec![-1i32; n * n])?;
    let mut g = dev.upload(&init)?;
    let mut h = dev.upload(&vec![-1i32; n * n])?;
    let blocks = u32::try_from(n.div_ceil(32))?;
    let cfg = LaunchConfig::new((blocks, blocks), (32, 32));
    let hand_cfg = cudarc::driver::LaunchConfig {
        grid_dim: (blocks, blocks, 1),
        block_dim: (32, 32, 1),
        shared_mem_bytes: 0,
    };
    let n64 = n as u64;
    let ws_step = |a: &mut DeviceBuffer<i32>, b: &mut DeviceBuffer<i32>| -> Res<()> {
        conway_unchecked::launch(dev, cfg, b, a, n)?;
        std::mem::swap(a, b);
        Ok(())
    };
    // Checked, with the lengths declared (`#[len(n * n)]`): every index is proven.
    let checked_step = |e: &mut DeviceBuffer<i32>, f: &mut DeviceBuffer<i32>| -> Res<()> {
        conway::launch(dev, cfg, f, e, n)?;
        std::mem::swap(e, f);
        Ok(())
    };
    // Checked, without declarations: every index is checked on the GPU.
    let every_step = |g: &mut DeviceBuffer<i32>, h: &mut DeviceBuffer<i32>| -> Res<()> {
        conway_undeclared::launch(dev, cfg, h, g, n)?;
        std::mem::swap(g, h);
        Ok(())
    };
    let hand_step = |c: &mut DeviceBuffer<i32>, d: &mut DeviceBuffer<i32>| -> Res<()> {
        let mut launch = stream.launch_builder(&hand.life);
        launch.arg(raw(d)).arg(raw(c)).arg(&n64);
        // SAFETY: life_hand(int* out, const int* in, unsigned long long n): out and in are
        // distinct live buffers of n*n i32 on this context; the grid covers n x n threads
        // and the kernel checks x, y < n.
        unsafe { launch.launch(hand_cfg) }?;
        std::mem::swap(c, d);
        Ok(())
    };

    // First generation: compiles/loads the kernel, and is checked against the CPU where
    // the CPU is quick enough.
    let ws_one = common::time_events(dev, 1, || ws_step(&mut a, &mut b))?;
    let hand_one = common::time_events(dev, 1, || hand_step(&mut c, &mut d))?;
    common::time_events(dev, 1, || checked_step(&mut e, &mut f))?;
    common::time_events(dev, 1, || every_step(&mut g, &mut h))?;
    let mut ok = true;
    if n <= 4096 {
        let want = life_kernels::cpu_step(&init, n);
        let got = a.download()?;
        if let Some((i, count)) = first_difference(&got, &want, |v| v) {
            eprintln!(
                "life {n}: MISMATCH vs the CPU after one generation: {count} cells, first at {i}"
            );
            ok = false;
        }
    }
    let iters = calibrate(ws_one.min(hand_one), args.round_ms);
    let (mut best_ws, mut best_hand, mut best_checked, mut best_every) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..args.rounds {
        best_ws = best_ws.min(common::time_events(dev, iters, || ws_step(&mut a, &mut b))?);
        best_hand = best_hand.min(common::time_events(dev, iters, || {
            hand_step(&mut c, &mut d)
        })?);
        best_checked = best_checked.min(common::time_events(dev, iters, || {
            checked_step(&mut e, &mut f)
        })?);
        best_every = best_every.min(common::time_events(dev, iters, || {
            every_step(&mut g, &mut h)
        })?);
    }
    // All four ran 1 + rounds * iters generations from the same lattice.
    let (got_ws, got_hand) = (a.download()?, c.download()?);
    for (what, checked) in [("declared", e.download()?), ("undeclared", g.download()?)] {
        if let Some((i, count)) = first_difference(&got_ws, &checked, |v| v) {
            eprintln!("life {n}: MISMATCH between the checked ({what}) and unchecked kernels: {count} cells, first at {i}");
            ok = false;
        }
    }
    let alive = got_ws.iter().filter(|&&v| v == 1).count();
    if let Some((i, count)) = first_difference(&got_ws, &got_hand, |v| v) {
        eprintln!(
            "life {n}: MISMATCH between warpspeed and the hand kernel: {count} cells, first at {i} ({} vs {})",
            got_ws[i], got_hand[i]
        );
        ok = false;
    }
    println!(
        "life {n}x{n}: {} generations each, {iters} per round; {alive} cells alive at the end; {:.2} Gcells/s (warpspeed)",
        1 + args.rounds * iters,
        (n * n) as f64 / best_ws / 1e6
    );
    rows.push(Row {
        what: format!("life {n}^2 (ms/generation)"),
        ws: best_ws,
        hand: best_hand,
        unit: "ms",
        target: 1.03,
    });
    rows.push(Row {
        what: "  bounds checks, #[len] declared: checked/unchecked".into(),
        ws: best_checked,
        hand: best_ws,
        unit: "ms",
        target: 1.05,
    });
    rows.push(Row {
        what: "  bounds checks, every index: checked/unchecked".into(),
        ws: best_every,
        hand: best_ws,
        unit: "ms",
        target: 1.05,
    });
    Ok(ok)
}

fn bench_vector_add(
    dev: &Device,
    stream: &Arc<CudaStream>,
    hand: &Hand,
    n: usize,
    args: &Args,
    rows: &mut Vec<Row>,
) -> Res<bool> {
    println!("vector add of {n} f32: preparing random inputs");
    let mut rng = XorShift::new(n as u64);
    let ha: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let hb: Vec<f32> = (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect();
    let (a, b) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let mut out_ws = dev.upload(&vec![f32::NAN; n])?;
    let out_hand = dev.upload(&vec![f32::NAN; n])?;
    let cfg = LaunchConfig::for_num_elems(u32::try_from(n)?);
    let hand_cfg = cudarc::driver::LaunchConfig {
        grid_dim: (cfg.grid.x, 1, 1),
        block_dim: (cfg.block.x, 1, 1),
        shared_mem_bytes: 0,
    };
    let n64 = n as u64;
    let mut ws_step =
        || -> Res<()> { Ok(vector_add_unchecked::launch(dev, cfg, &a, &b, &mut out_ws)?) };
    let mut out_checked = dev.upload(&vec![f32::NAN; n])?;
    let mut checked_step =
        || -> Res<()> { Ok(vector_add::launch(dev, cfg, &a, &b, &mut out_checked)?) };
    let hand_step = || -> Res<()> {
        let mut launch = stream.launch_builder(&hand.vector_add);
        launch
            .arg(raw(&a))
            .arg(raw(&b))
            .arg(raw(&out_hand))
            .arg(&n64);
        // SAFETY: vector_add_hand(const float* a, const float* b, float* out,
        // unsigned long long n): three live buffers of n f32 on this context; the kernel
        // checks i < n.
        unsafe { launch.launch(hand_cfg) }?;
        Ok(())
    };
    let ws_one = common::time_events(dev, 1, &mut ws_step)?;
    let hand_one = common::time_events(dev, 1, hand_step)?;
    common::time_events(dev, 1, &mut checked_step)?;
    let iters = calibrate(ws_one.min(hand_one), args.round_ms);
    let (mut best_ws, mut best_hand, mut best_checked) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..args.rounds {
        best_ws = best_ws.min(common::time_events(dev, iters, &mut ws_step)?);
        best_hand = best_hand.min(common::time_events(dev, iters, hand_step)?);
        best_checked = best_checked.min(common::time_events(dev, iters, &mut checked_step)?);
    }
    let (got_ws, got_hand) = (out_ws.download()?, out_hand.download()?);
    let got_checked = out_checked.download()?;
    let want: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    let mut ok = true;
    for (who, got) in [
        ("warpspeed", &got_ws),
        ("the hand kernel", &got_hand),
        ("warpspeed with bounds checks", &got_checked),
    ] {
        if let Some((i, count)) = first_difference(got, &want, f32::to_bits) {
            eprintln!(
                "vector add: MISMATCH between {who} and the CPU: {count} elements, first at {i} ({} vs {})",
                got[i], want[i]
            );
            ok = false;
        }
    }
    let gbs = 12.0 * n as f64 / (best_ws * 1e-3) / 1e9;
    println!("vector add of {n} f32: {iters} launches per round; {gbs:.0} GB/s (warpspeed)");
    rows.push(Row {
        what: format!("vector add 2^{} f32 (ms)", n.trailing_zeros()),
        ws: best_ws,
        hand: best_hand,
        unit: "ms",
        target: 1.03,
    });
    rows.push(Row {
        what: "  bounds checks: checked/unchecked".into(),
        ws: best_checked,
        hand: best_ws,
        unit: "ms",
        target: 1.05,
    });
    Ok(ok)
}

fn bench_launch_overhead(
    dev: &Device,
    stream: &Arc<CudaStream>,
    hand: &Hand,
    args: &Args,
    rows: &mut Vec<Row>,
) -> Res<()> {
    let cfg = LaunchConfig::new(1, 32);
    let hand_cfg = cudarc::driver::LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let ws_launch = || -> Res<()> { Ok(empty::launch(dev, cfg)?) };
    let raw_launch = || -> Res<()> {
        // SAFETY: empty_hand() takes no parameters and touches no memory.
        unsafe { stream.launch_builder(&hand.empty).launch(hand_cfg) }?;
        Ok(())
    };
    // Host microseconds per launch: (enqueue only, enqueue + wait for the GPU).
    let measure = |launch: &dyn Fn() -> Res<()>, count: usize| -> Res<(f64, f64)> {
        dev.synchronize()?;
        let start = Instant::now();
        for _ in 0..count {
            launch()?;
        }
        let enqueued = start.elapsed();
        dev.synchronize()?;
        let done = start.elapsed();
        let per = |t: std::time::Duration| t.as_secs_f64() * 1e6 / count as f64;
        Ok((per(enqueued), per(done)))
    };
    measure(&ws_launch, 1000)?; // warm-up: loads the kernel, fills the driver's pools
    measure(&raw_launch, 1000)?;
    let (mut ws_best, mut raw_best) = (
        (f64::INFINITY, f64::INFINITY),
        (f64::INFINITY, f64::INFINITY),
    );
    for _ in 0..args.rounds {
        let w = measure(&ws_launch, args.launches)?;
        let r = measure(&raw_launch, args.launches)?;
        ws_best = (ws_best.0.min(w.0), ws_best.1.min(w.1));
        raw_best = (raw_best.0.min(r.0), raw_best.1.min(r.1));
    }
    println!(
        "launch overhead: {} empty launches per round, best of {} rounds",
        args.launches, args.rounds
    );
    rows.push(Row {
        what: format!("launch {} empty, total (us)", args.launches),
        ws: ws_best.1,
        hand: raw_best.1,
        unit: "us",
        target: 1.10,
    });
    rows.push(Row {
        what: "launch, host enqueue only (us)".into(),
        ws: ws_best.0,
        hand: raw_best.0,
        unit: "us",
        target: 1.10,
    });
    Ok(())
}

/// Runs this program twice as `--child-warm-start` with one fresh disk cache directory.
/// Returns whether the second child did no NVRTC work, and the lines for the table.
fn warm_start() -> Res<(bool, Vec<String>)> {
    let exe = std::env::current_exe()?;
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "warpspeed-bench-cache-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir)?;
    let mut lines = Vec::new();
    let mut ok = true;
    for run in 1..=2 {
        let spawned = SystemTime::now();
        let output = Command::new(&exe)
            .arg("--child-warm-start")
            .env("WARPSPEED_CACHE_DIR", &dir)
            .env_remove("WARPSPEED_CACHE")
            .env("WARPSPEED_BACKEND", "cuda")
            .output()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let field = |name: &str| -> Option<f64> {
            stdout
                .split_whitespace()
                .find_map(|w| w.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
        };
        let (Some(compiles), Some(main_ms), Some(done_ns)) = (
            field("nvrtc_compiles"),
            field("first_kernel_ms"),
            field("done_unix_ns"),
        ) else {
            eprintln!(
                "warm start: child {run} failed ({}):\n{stdout}{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
            ok = false;
            continue;
        };
        let spawn_ns = spawned.duration_since(UNIX_EPOCH)?.as_nanos() as f64;
        let from_spawn_ms = (done_ns - spawn_ns) / 1e6;
        let verdict = match run {
            1 if compiles == 0.0 => {
                ok = false;
                "  FAIL: a fresh cache directory should have needed NVRTC"
            }
            2 if compiles != 0.0 => {
                ok = false;
                "  FAIL: the disk cache should have made this 0"
            }
            2 => "  (0: served by the disk cache)",
            _ => "",
        };
        lines.push(format!(
            "process start {run} ({}): nvrtc compiles {compiles}, first kernel done {from_spawn_ms:.1} ms after spawn ({main_ms:.1} ms after main){verdict}",
            if run == 1 { "cold cache" } else { "warm cache" }
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok((ok, lines))
}

/// The child of [`warm_start`]: open the GPU, run one kernel, report.
fn child_warm_start(process_start: Instant) -> Res<bool> {
    let dev = Device::new()?;
    let n = 1 << 16;
    let ha: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let hb: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
    let (a, b) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let mut out = dev.upload(&vec![f32::NAN; n])?;
    vector_add::launch(
        &dev,
        LaunchConfig::for_num_elems(n as u32),
        &a,
        &b,
        &mut out,
    )?;
    dev.synchronize()?;
    let elapsed = process_start.elapsed();
    let done = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let got = out.download()?;
    let right = got
        .iter()
        .zip(ha.iter().zip(&hb))
        .all(|(g, (x, y))| *g == x + y);
    println!(
        "nvrtc_compiles={} first_kernel_ms={:.3} done_unix_ns={done} correct={right}",
        nvrtc_compile_count(),
        elapsed.as_secs_f64() * 1e3
    );
    Ok(right)
}
