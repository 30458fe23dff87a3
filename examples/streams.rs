//! Streams (seed 002's multi-stream vector addition, Numba's `cuda.stream()`): a large
//! array is cut into chunks, and each chunk is uploaded, added and downloaded on one of
//! several streams, so that one chunk's copies overlap another chunk's kernel (and, on a
//! GPU with two copy engines, uploads overlap downloads).
//!
//! Three runs of the same sum, each timed from the first copy to the synchronisation after
//! the last (the seed's `time()` around the work):
//! 1. the device's own queue, from ordinary (pageable) host memory: `dev.upload`, one
//!    launch, `download` (the seed's "default stream" run);
//! 2. the chunks on one `Stream`, from page-locked memory (one `PinnedBuffer` per array,
//!    each chunk copied from and to its view, `pinned.slice(range)`): nothing overlaps,
//!    each chunk waits for the previous one;
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

/// The arrays in page-locked memory, one allocation each: chunk `k` is copied from and to
/// the views `px.slice(range)`, ... (page-locking memory is slow, copying from it fast, so
/// it is allocated once).
struct Pinned {
    px: PinnedBuffer<f64>,
    py: PinnedBuffer<f64>,
    pz: PinnedBuffer<f64>,
}

/// One chunk: its range of the arrays and its own device buffers. On a GPU, cudarc orders
/// every write of one device allocation across streams (docs/host-api.md), so streams
/// that worked on views of one large device buffer would run one after another; buffers
/// of their own let them overlap (the seed's `x_i_device`, `y_i_device`). A copy of a view
/// of one pinned allocation waits for the allocation's previous copy (cudarc keeps one
/// event per pinned allocation); the chunks are queued in order, so that costs little.
struct Chunk {
    range: Range<usize>,
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
    let mut pinned = Pinned {
        px: dev.pinned_from(&x)?,
        py: dev.pinned_from(&y)?,
        pz: dev.alloc_pinned(n)?,
    };
    let mut data = chunked(&dev, n, chunks)?;
    let one = [dev.create_stream()?];
    let several: Vec<Stream> = (0..args.streams.max(1))
        .map(|_| dev.create_stream())
        .collect::<Result<_, _>>()?;
    // Warm-up: the streams' first use.
    process(&one, &mut pinned, &mut data, args.block)?;
    process(&several, &mut pinned, &mut data, args.block)?;
    let mut times = Vec::new();
    let on_several = format!("{} streams", several.len());
    for (streams, what) in [(&one[..], "1 stream"), (&several[..], on_several.as_str())] {
        // Poisoned, device and host side, so a chunk the run skips fails the check.
        for chunk in &mut data {
            chunk.z.fill(f64::NAN)?;
        }
        pinned.pz.as_mut_slice()?.fill(f64::NAN);
        dev.synchronize()?;
        let start = Instant::now();
        process(streams, &mut pinned, &mut data, args.block)?;
        let elapsed = ms(start);
        times.push(elapsed);
        let label = format!("{what}, pinned memory, {chunks} chunks:");
        println!("{label:38}{elapsed:9.3} ms");
        ok &= check(
            pinned.pz.as_slice()?,
            &want,
            &format!("the result on {what}"),
        );
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

/// `chunks` chunks of `n` elements, each with its device buffers.
fn chunked(dev: &Device, n: usize, chunks: usize) -> Result<Vec<Chunk>, Error> {
    let size = n.div_ceil(chunks).max(1);
    let mut out = Vec::new();
    for start in (0..n).step_by(size) {
        let range = start..(start + size).min(n);
        let len = range.len();
        out.push(Chunk {
            x: dev.zeros(len)?,
            y: dev.zeros(len)?,
            z: dev.zeros(len)?,
            range,
        });
    }
    Ok(out)
}

/// Chunk `k` on stream `k % streams.len()`: upload its inputs from views of the pinned
/// arrays, add, download its result into a view of the pinned result; then wait for the
/// device (the seed's `cuda.synchronize()`: every stream, and the bounds checks' reports,
/// which a stream's own synchronisation does not read). Each chunk's memory (its device
/// buffers, its range of the pinned arrays) is used by one stream only, so the streams
/// need no events between them; the simulator checks that they do not overlap.
fn process(
    streams: &[Stream],
    pinned: &mut Pinned,
    chunks: &mut [Chunk],
    block: u32,
) -> Result<(), Error> {
    for (k, c) in chunks.iter_mut().enumerate() {
        let s = &streams[k % streams.len()];
        let (r, len) = (c.range.clone(), c.range.len());
        s.upload(&pinned.px.slice(r.clone()), &mut c.x)?;
        s.upload(&pinned.py.slice(r.clone()), &mut c.y)?;
        vector_add::launch(s, config(len, block), &c.x, &c.y, &mut c.z, len)?;
        s.download(&c.z, &mut pinned.pz.slice_mut(r))?;
    }
    streams[0].device().synchronize()
}

/// `n` threads in blocks of `block`: a `usize` count of blocks is checked at the launch.
fn config(n: usize, block: u32) -> LaunchConfig {
    LaunchConfig::new(n.div_ceil(block as usize).max(1), block)
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
