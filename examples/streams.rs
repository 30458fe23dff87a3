//! Streams (seed 002's multi-stream vector addition, Numba's `cuda.stream()`): a large
//! array is cut into chunks, and each chunk is uploaded, added and downloaded on one of
//! several streams, so that one chunk's copies overlap another chunk's kernel (and, on a
//! GPU with two copy engines, uploads overlap downloads).
//!
//! Three runs of the same sum, each timed from the first copy to the synchronisation after
//! the last (the seed's `time()` around the work):
//! 1. the device's own queue, from ordinary (pageable) host memory: `dev.upload`, one
//!    launch, `download` (the seed's "default stream" run);
//! 2. the chunks on one `Stream`, from page-locked memory (`PinnedBuffer`): nothing
//!    overlaps, each chunk waits for the previous one;
//! 3. the same chunks spread over `--streams` streams: the overlap is the difference
//!    between 2 and 3.
//!
//! Every run's result must equal the CPU's sum bit for bit; the program exits non-zero
//! otherwise. On the simulator the times say nothing (work runs when it is queued), but
//! the stream order is checked: a chunk that used memory another stream wrote without an
//! event between them would be an error.
//!
//! ```text
//! cargo run --release --example streams -- --len 20000000 --streams 5
//! ```

mod common;

use std::ops::Range;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use common::{open_device, XorShift};
use warpspeed::prelude::*;
use warpspeed::Backend;

/// Seed 002's kernel: `result[idx] = a[idx] + b[idx]` for `idx < n`.
#[gpu_kernel]
fn vector_add(a: &[f64], b: &[f64], result: &mut [f64], n: usize) {
    let idx = grid_1d();
    if idx < n {
        result[idx] = a[idx] + b[idx];
    }
}

#[derive(Parser)]
#[command(about = "Vector addition in chunks on several streams, timed against one stream")]
struct Args {
    /// Elements in each vector (default: the seed's 20000000 on a GPU, 200000 on the
    /// simulator).
    #[arg(long)]
    len: Option<usize>,
    /// Streams the chunks are spread over (the seed's 5).
    #[arg(long, default_value_t = 5)]
    streams: usize,
    /// Chunks each stream processes (more chunks, more overlap, more launches).
    #[arg(long, default_value_t = 4)]
    chunks_per_stream: usize,
    /// Threads per block (the seed's 1024).
    #[arg(long, default_value_t = 1024)]
    block: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2)]
    seed: u64,
    /// Print the generated CUDA C and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    common::run_main(args.print_cuda, &[&vector_add::KERNEL], || run(&args))
}

/// One chunk: its range of the arrays, its inputs and result in page-locked memory, and
/// its own device buffers. On a GPU, cudarc orders every use of one allocation across
/// streams (docs/host-api.md), so streams that worked on views of one large buffer would
/// run one after another; buffers of their own let them overlap (the seed's
/// `x_i_device`, `y_i_device`).
struct Chunk {
    range: Range<usize>,
    px: PinnedBuffer<f64>,
    py: PinnedBuffer<f64>,
    pz: PinnedBuffer<f64>,
    x: DeviceBuffer<f64>,
    y: DeviceBuffer<f64>,
    z: DeviceBuffer<f64>,
}

fn run(args: &Args) -> Result<bool, Error> {
    let dev = open_device()?;
    let n = args.len.unwrap_or(match dev.backend() {
        Backend::Cuda => 20_000_000,
        Backend::Simulator => 200_000,
    });
    let mut rng = XorShift::new(args.seed);
    // The seed's `np.random.uniform(10, 20, n)`.
    let x: Vec<f64> = (0..n).map(|_| rng.range_f64(10.0, 20.0)).collect();
    let y: Vec<f64> = (0..n).map(|_| rng.range_f64(10.0, 20.0)).collect();
    let want: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    let mut ok = true;

    // 1. The device's own queue, pageable memory (a first launch compiles or loads the
    // kernel, so it is run once untimed).
    let mut default_result = Vec::new();
    for timed in [false, true] {
        let start = Instant::now();
        let (dx, dy) = (dev.upload(&x)?, dev.upload(&y)?);
        // The seed's `cuda.device_array(n)`; every sum is at least 20, so an element the
        // kernel skipped (0.0) fails the check.
        let mut dz = dev.zeros::<f64>(n)?;
        vector_add::launch(&dev, config(n, args.block), &dx, &dy, &mut dz, n)?;
        default_result = dz.download()?;
        if timed {
            println!("device queue, pageable memory:        {:9.3} ms", ms(start));
        }
    }
    ok &= check(&default_result, &want, "the device queue's result");

    // 2. and 3. The chunks on one stream, then on several.
    let chunks = (args.streams * args.chunks_per_stream).max(1);
    let mut data = chunked(&dev, &x, &y, chunks)?;
    let one = [dev.create_stream()?];
    let several: Vec<Stream> = (0..args.streams.max(1))
        .map(|_| dev.create_stream())
        .collect::<Result<_, _>>()?;
    // Warm-up: the streams' first use.
    process(&one, &mut data, args.block)?;
    process(&several, &mut data, args.block)?;
    let mut times = Vec::new();
    let on_several = format!("{} streams", several.len());
    for (streams, what) in [(&one[..], "1 stream"), (&several[..], on_several.as_str())] {
        for chunk in &mut data {
            // Poisoned, device and host side, so a chunk the run skips fails the check.
            chunk.z.fill(f64::NAN)?;
            chunk.pz.as_mut_slice()?.fill(f64::NAN);
        }
        dev.synchronize()?;
        let start = Instant::now();
        process(streams, &mut data, args.block)?;
        let elapsed = ms(start);
        times.push(elapsed);
        let label = format!("{what}, pinned memory, {chunks} chunks:");
        println!("{label:38}{elapsed:9.3} ms");
        let mut got = vec![f64::NAN; n];
        for chunk in &data {
            got[chunk.range.clone()].copy_from_slice(chunk.pz.as_slice()?);
        }
        ok &= check(&got, &want, &format!("the result on {what}"));
    }
    match dev.backend() {
        Backend::Cuda => println!(
            "overlap: {} streams take {:.2}x the time of one",
            several.len(),
            times[1] / times[0]
        ),
        Backend::Simulator => println!(
            "(the simulator runs every operation when it is queued: its times show no overlap)"
        ),
    }
    Ok(ok)
}

/// `chunks` chunks of `x` and `y` (allocated once: page-locking memory is slow, copying
/// from it fast).
fn chunked(dev: &Device, x: &[f64], y: &[f64], chunks: usize) -> Result<Vec<Chunk>, Error> {
    let n = x.len();
    let size = n.div_ceil(chunks).max(1);
    let mut out = Vec::new();
    for start in (0..n).step_by(size) {
        let range = start..(start + size).min(n);
        let len = range.len();
        out.push(Chunk {
            px: dev.pinned_from(&x[range.clone()])?,
            py: dev.pinned_from(&y[range.clone()])?,
            pz: dev.alloc_pinned(len)?,
            x: dev.zeros(len)?,
            y: dev.zeros(len)?,
            z: dev.zeros(len)?,
            range,
        });
    }
    Ok(out)
}

/// Chunk `k` on stream `k % streams.len()`: upload its inputs, add, download its result;
/// then wait for the device (the seed's `cuda.synchronize()`: every stream, and the
/// bounds checks' reports, which a stream's own synchronisation does not read). Each
/// chunk's memory is used by one stream only, so the streams need no events between them.
fn process(streams: &[Stream], chunks: &mut [Chunk], block: u32) -> Result<(), Error> {
    for (k, c) in chunks.iter_mut().enumerate() {
        let s = &streams[k % streams.len()];
        let len = c.range.len();
        s.upload(&c.px, &mut c.x)?;
        s.upload(&c.py, &mut c.y)?;
        vector_add::launch(s, config(len, block), &c.x, &c.y, &mut c.z, len)?;
        s.download(&c.z, &mut c.pz)?;
    }
    streams[0].device().synchronize()
}

fn config(n: usize, block: u32) -> LaunchConfig {
    let blocks = u32::try_from(n.div_ceil(block as usize).max(1)).expect("too many blocks");
    LaunchConfig::new(blocks, block)
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn check(got: &[f64], want: &[f64], what: &str) -> bool {
    common::check_elements(
        got,
        want,
        f64::to_bits,
        &format!("OK: {what} equals the CPU sum bit for bit"),
    )
}
