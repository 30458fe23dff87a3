//! Histograms, seed 004's sequence of kernels, each checked against a CPU histogram:
//!
//! - (a) global atomics, block partitioning (each thread counts a contiguous section);
//! - (b) global atomics, interleaved partitioning (grid-stride loop: coalesced reads);
//! - (c) privatised: per-block bins in shared memory, merged with one atomic per bin;
//! - (d) privatised with aggregation: one shared atomic per run of equal bins;
//! - (e) privatised, reading 4 bytes per load;
//! - (f) per-lane columns, 16 bytes in flight per thread (256 bins only): each block keeps
//!   32 copies of the bins, one per lane of a warp, so a warp's 32 shared atomics always hit
//!   32 different banks, whatever the bytes; each thread loads 4 independent words per
//!   round before it counts them; 16 equal bytes count with one atomic. Its own grid: 2
//!   blocks of 1024 threads per multiprocessor. Why it is fast on uniform and on one-value
//!   data, and what it should measure: docs/histogram.md.
//!
//! Each runs on four inputs of `--len` bytes (2^28 on the GPU, 2^20 on the simulator):
//! the seed's text case (a pseudo-random lowercase text with spaces and punctuation, the
//! letters a..z counted in 7 bins of four letters; (f) has 256 bins and skips it), uniform
//! random bytes in 256 bins, an array of one value in 256 bins (the worst case for
//! atomics), and a mixed input: one value for the first half, then runs of 1 to 64 equal
//! random bytes (so (d) aggregates runs, and (f) takes its one-atomic path for some
//! 16-byte groups and its byte-by-byte path for others, in one launch). The program prints a bar chart of each
//! histogram and, on the GPU, a table of the times next to earlier H200 figures. It exits
//! non-zero if any result differs from the CPU's.
//!
//! ```text
//! cargo run --release --example histogram                   # GPU if present, else simulator
//! WARPSPEED_BACKEND=sim cargo run --release --example histogram -- --len 100003
//! cargo run --release --example histogram -- --print-cuda   # the generated CUDA C
//! cargo run --release --example histogram -- --check-nvrtc  # compile every kernel (sm_90)
//! ```

use std::process::ExitCode;

use clap::Parser;
use warpspeed::__private::KernelDef;
use warpspeed::{Backend, Device, DeviceBuffer, LaunchConfig};

mod common;
use common::{KernelFlags, XorShift};
#[path = "kernels/histogram.rs"]
mod histogram_kernels;
use histogram_kernels::*;

#[derive(Parser)]
#[command(
    about = "Seed 004's histogram kernels (global atomics to privatised), checked against the CPU"
)]
struct Args {
    /// Bytes of each input [default: 2^28 on the GPU, 2^20 on the simulator].
    #[arg(long)]
    len: Option<usize>,
    /// Blocks of the grid [default: 8 per multiprocessor on the GPU, 4 per CPU thread on
    /// the simulator]; the kernels loop over the data, so any number works.
    #[arg(long)]
    blocks: Option<u32>,
    /// Threads per block.
    #[arg(long, default_value_t = 256)]
    block: u32,
    /// The value of the one-value input.
    #[arg(long, default_value_t = 97)]
    value: u8,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    #[command(flatten)]
    flags: KernelFlags,
}

/// The five kernels of seed 004's sequence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    GlobalBlock,
    GlobalInterleaved,
    Privatized,
    Aggregated,
    Words,
    Lanes,
}

const VARIANTS: [Variant; 6] = [
    Variant::GlobalBlock,
    Variant::GlobalInterleaved,
    Variant::Privatized,
    Variant::Aggregated,
    Variant::Words,
    Variant::Lanes,
];

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::GlobalBlock => "(a) global atomics, block partitioning",
            Variant::GlobalInterleaved => "(b) global atomics, interleaved",
            Variant::Privatized => "(c) shared-memory privatised",
            Variant::Aggregated => "(d) privatised + aggregated runs",
            Variant::Words => "(e) privatised, 4 bytes per load",
            Variant::Lanes => "(f) per-lane columns, 16 B in flight",
        }
    }

    /// The H200 reference figures (docs/benchmarks.md) for 2^28 bytes in 256 bins (uniform, one-value), ms.
    fn anchor(self) -> &'static str {
        match self {
            Variant::GlobalBlock => "",
            Variant::GlobalInterleaved => "33.1 / 194 (seed baseline, global atomics)",
            Variant::Privatized => "0.377 uniform (seed 004, privatised)",
            Variant::Aggregated => "",
            Variant::Words => "0.137 / 0.119 (hand CUDA C)",
            Variant::Lanes => "",
        }
    }
}

/// How the bytes are binned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binning {
    /// a..z in 7 bins of four letters; other bytes ignored.
    Letters,
    /// 256 bins, one per byte value.
    Bytes,
}

/// Every kernel of this example.
fn kernels() -> [&'static KernelDef; 12] {
    [
        &histogram_global_block_text::KERNEL,
        &histogram_global_interleaved_text::KERNEL,
        &histogram_privatized::KERNEL,
        &histogram_aggregated_text::KERNEL,
        &histogram_words_text::KERNEL,
        &histogram_global_block_bytes::KERNEL,
        &histogram_global_interleaved_bytes::KERNEL,
        &histogram_privatized_bytes::KERNEL,
        &histogram_aggregated_bytes::KERNEL,
        &histogram_words_bytes::KERNEL,
        &histogram_lanes_bytes::KERNEL,
        &fill_u32::KERNEL,
    ]
}

fn main() -> ExitCode {
    let args = Args::parse();
    args.flags.main(&kernels(), || run(&args))
}

/// One input: its bytes on the device (also as u32 words for (e)) and its CPU histogram.
struct Input {
    name: String,
    short: &'static str,
    binning: Binning,
    bytes: DeviceBuffer<u8>,
    words: DeviceBuffer<u32>,
    want: Vec<u32>,
}

/// A variant's time on one input: ms (GPU: CUDA events; simulator: one run's wall time).
type Timing = Option<f64>;

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = common::open_device()?;
    let gpu = dev.backend() == Backend::Cuda;
    let len = args.len.unwrap_or(if gpu { 1 << 28 } else { 1 << 20 });
    let blocks = args.blocks.unwrap_or_else(|| {
        let units = dev.limits().multiprocessor_count;
        if gpu {
            8 * units
        } else {
            4 * units
        }
    });
    let cfg = LaunchConfig::new(blocks.max(1), args.block);
    let lanes_cfg = lanes_config(&dev);
    println!("{len} bytes per input; {cfg}; (f): {lanes_cfg}");

    let mut rng = XorShift::new(args.seed);
    let inputs = [
        (
            "text, a..z in 7 bins".to_string(),
            "text",
            Binning::Letters,
            random_text(&mut rng, len),
        ),
        (
            "uniform random bytes, 256 bins".to_string(),
            "uniform",
            Binning::Bytes,
            random_bytes(&mut rng, len),
        ),
        (
            format!("one value ({}), 256 bins", args.value),
            "one-value",
            Binning::Bytes,
            vec![args.value; len],
        ),
        (
            format!("one value ({}), then runs, 256 bins", args.value),
            "mixed",
            Binning::Bytes,
            mixed(&mut rng, len, args.value),
        ),
    ]
    .into_iter()
    .map(|(name, short, binning, host)| {
        let want = match binning {
            Binning::Letters => cpu_letter_histogram(&host),
            Binning::Bytes => cpu_byte_histogram(&host),
        };
        Ok(Input {
            name,
            short,
            binning,
            bytes: dev.upload(&host)?,
            words: dev.upload(&to_words(&host))?,
            want,
        })
    })
    .collect::<Result<Vec<_>, warpspeed::Error>>()?;

    let mut ok = true;
    // times[variant][input]
    let mut times: Vec<Vec<Timing>> = Vec::new();
    for variant in VARIANTS {
        let mut row = Vec::new();
        for input in &inputs {
            if variant == Variant::Lanes && input.binning != Binning::Bytes {
                row.push(None); // (f) has 256 bins
                continue;
            }
            let cfg = if variant == Variant::Lanes {
                lanes_cfg
            } else {
                cfg
            };
            let (right, t) = run_variant(&dev, cfg, variant, input, gpu)?;
            ok &= right;
            row.push(t);
        }
        times.push(row);
    }

    for input in &inputs {
        println!("\n{} ({len} bytes):", input.name);
        print_chart(&input.want, input.binning);
    }
    print_table(&inputs, &times, len, gpu);
    println!();
    common::print_verdict(
        ok,
        "OK: every variant's histogram matches the CPU's on every input",
        "FAILED: some histograms differ from the CPU's (see above)",
    );
    Ok(ok)
}

/// Launches one variant on one input, adding to `bins`.
fn launch(
    dev: &Device,
    cfg: LaunchConfig,
    variant: Variant,
    input: &Input,
    bins: &mut DeviceBuffer<u32>,
) -> Result<(), warpspeed::Error> {
    let (b, w, n) = (&input.bytes, &input.words, input.bytes.len());
    match (input.binning, variant) {
        (Binning::Letters, Variant::GlobalBlock) => {
            histogram_global_block_text::launch(dev, cfg, b, bins)
        }
        (Binning::Letters, Variant::GlobalInterleaved) => {
            histogram_global_interleaved_text::launch(dev, cfg, b, bins)
        }
        (Binning::Letters, Variant::Privatized) => histogram_privatized::launch(dev, cfg, b, bins),
        (Binning::Letters, Variant::Aggregated) => {
            histogram_aggregated_text::launch(dev, cfg, b, bins)
        }
        (Binning::Letters, Variant::Words) => histogram_words_text::launch(dev, cfg, w, n, bins),
        (Binning::Bytes, Variant::GlobalBlock) => {
            histogram_global_block_bytes::launch(dev, cfg, b, bins)
        }
        (Binning::Bytes, Variant::GlobalInterleaved) => {
            histogram_global_interleaved_bytes::launch(dev, cfg, b, bins)
        }
        (Binning::Bytes, Variant::Privatized) => {
            histogram_privatized_bytes::launch(dev, cfg, b, bins)
        }
        (Binning::Bytes, Variant::Aggregated) => {
            histogram_aggregated_bytes::launch(dev, cfg, b, bins)
        }
        (Binning::Bytes, Variant::Words) => histogram_words_bytes::launch(dev, cfg, w, n, bins),
        (Binning::Bytes, Variant::Lanes) => histogram_lanes_bytes::launch(dev, cfg, w, n, bins),
        (Binning::Letters, Variant::Lanes) => unreachable!("run skips (f) on the text input"),
    }
}

/// Runs a variant once from zeroed bins and checks the result; on the GPU then times it
/// over many launches that keep adding to the same bins, and checks that the bins hold
/// (launches x the histogram), wrapping at 2^32 like the atomics.
fn run_variant(
    dev: &Device,
    cfg: LaunchConfig,
    variant: Variant,
    input: &Input,
    gpu: bool,
) -> Result<(bool, Timing), warpspeed::Error> {
    let nbins = input.want.len();
    // Poisoned, then zeroed on the device: a fill that failed would show.
    let mut bins = dev.upload(&vec![0xDEAD_BEEFu32; nbins])?;
    fill_u32::launch(dev, LaunchConfig::new(1, nbins as u32), &mut bins, 0)?;
    let wall_ms =
        common::wall_seconds(dev, 1, || launch(dev, cfg, variant, input, &mut bins))? * 1e3;
    let what = format!("{} on {}", variant.name(), input.name);
    let mut ok = check(&what, &bins.download()?, &input.want, 1);
    if !gpu {
        return Ok((ok, Some(wall_ms)));
    }
    let mut launches = 1u32;
    let ms = common::time_gpu(dev, || {
        launches += 1;
        launch(dev, cfg, variant, input, &mut bins)
    })?;
    ok &= check(
        &format!("{what}, after {launches} launches"),
        &bins.download()?,
        &input.want,
        launches,
    );
    Ok((ok, Some(ms)))
}

/// Whether `got` is `times` x `want` (wrapping); prints a line when not.
fn check(what: &str, got: &[u32], want: &[u32], times: u32) -> bool {
    let want: Vec<u32> = want.iter().map(|w| w.wrapping_mul(times)).collect();
    match common::first_difference(got, &want, |v| v) {
        None => true,
        Some((i, count)) => {
            println!(
                "MISMATCH {what}: {count} bins differ, first bin {i}: got {}, expected {}",
                got[i], want[i]
            );
            false
        }
    }
}

/// A pseudo-random lowercase text: words of 1 to 9 letters drawn with English letter
/// frequencies, separated by spaces, a comma or a full stop now and then.
fn random_text(rng: &mut XorShift, len: usize) -> Vec<u8> {
    // Letter frequencies in English text, per mille (a..z).
    const FREQ: [u32; 26] = [
        82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24,
        2, 20, 1,
    ];
    // A 1024-entry table maps 10 random bits to a letter with those frequencies.
    let total: u32 = FREQ.iter().sum();
    let mut table = Vec::with_capacity(1024);
    let mut cumulative = 0;
    for (letter, &f) in FREQ.iter().enumerate() {
        cumulative += f;
        let end = (cumulative * 1024 / total) as usize;
        table.resize(end.max(table.len()), b'a' + letter as u8);
    }
    table.resize(1024, b'e');
    let mut text = Vec::with_capacity(len + 16);
    let mut bits = 0u64;
    let mut left = 0;
    let mut draw = |rng: &mut XorShift| {
        if left == 0 {
            bits = rng.next_u64();
            left = 6;
        }
        left -= 1;
        let v = (bits & 1023) as usize;
        bits >>= 10;
        v
    };
    while text.len() < len {
        let word = 1 + draw(rng) % 9;
        for _ in 0..word {
            text.push(table[draw(rng)]);
        }
        match draw(rng) % 16 {
            0 => text.extend_from_slice(b". "),
            1 => text.extend_from_slice(b", "),
            _ => text.push(b' '),
        }
    }
    text.truncate(len);
    text
}

fn random_bytes(rng: &mut XorShift, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next_u64().to_le_bytes());
    }
    out.truncate(len);
    out
}

/// `value` for the first half, then random bytes in runs of 1 to 64 equal bytes.
fn mixed(rng: &mut XorShift, len: usize, value: u8) -> Vec<u8> {
    let mut out = vec![value; len / 2];
    out.reserve(len - len / 2 + 64);
    while out.len() < len {
        let r = rng.next_u64();
        let run = 1 + (r >> 8) as usize % 64;
        out.resize(out.len() + run, r as u8);
    }
    out.truncate(len);
    out
}

/// A horizontal bar chart: the seed's 7 letter bins (`a-d  ####### 1234`), or the 256 byte
/// bins in 16 rows of 16 values (`00-0f ####### 1234`).
fn print_chart(bins: &[u32], binning: Binning) {
    let rows: Vec<(String, u64)> = match binning {
        Binning::Letters => bins
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let first = b'a' + (i as u32 * LETTERS_PER_BIN) as u8;
                let last = (first + LETTERS_PER_BIN as u8 - 1).min(b'z');
                (format!("{}-{}", first as char, last as char), u64::from(c))
            })
            .collect(),
        Binning::Bytes => bins
            .chunks(16)
            .enumerate()
            .map(|(i, c)| {
                let sum = c.iter().map(|&v| u64::from(v)).sum();
                (format!("{:02x}-{:02x}", 16 * i, 16 * i + 15), sum)
            })
            .collect(),
    };
    let max = rows.iter().map(|r| r.1).max().unwrap_or(0).max(1);
    for (label, count) in rows {
        let width = (count * 50).div_ceil(max) as usize;
        println!("  {label:<6}{:<50} {count}", "#".repeat(width));
    }
}

fn print_table(inputs: &[Input], times: &[Vec<Timing>], len: usize, gpu: bool) {
    let unit = if gpu {
        "GPU ms (GB/s)"
    } else {
        "simulator wall ms"
    };
    println!("\ntimes, {len} bytes per input, {unit}:");
    print!("{:<40}", "variant");
    for input in inputs {
        print!(" {:>20}", input.short);
    }
    if gpu {
        print!("   H200, 2^28 bytes, 256 bins (uniform / one-value), ms");
    }
    println!();
    for (variant, row) in VARIANTS.iter().zip(times) {
        print!("{:<40}", variant.name());
        for t in row {
            let cell = match t {
                Some(ms) if gpu => format!("{ms:.3} ({:.0})", len as f64 / (ms * 1e-3) / 1e9),
                Some(ms) => format!("{ms:.1}"),
                None => "-".into(),
            };
            print!(" {cell:>20}");
        }
        if gpu {
            print!("   {}", variant.anchor());
        }
        println!();
    }
    if gpu {
        println!(
            "(GB/s: input bytes read per second. Reference figures (docs/benchmarks.md), H200: cupy.histogram 1.19 ms uniform, \
             2.13 ms one-value; torch.bincount 1.63 / 28.7 ms; device copy 4152 GB/s)"
        );
    }
}
