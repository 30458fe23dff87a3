//! A data-parallel histogram: each rank counts its share of the samples on its own device
//! (`warpspeed::algorithms::histogram::even`), then one `all_reduce` sums the counts, so
//! every rank holds the histogram of all the samples. Checked against the CPU's count on
//! every rank: counts are integers, so the sum over the ranks is exact.
//!
//! ```text
//! cargo run --release --example histogram_multi -- --gpus 2 --len 268435456
//! WARPSPEED_BACKEND=sim cargo run --release --example histogram_multi -- --gpus 3 --len 100000
//! torchrun --nproc-per-node=2 --no-python target/release/examples/histogram_multi
//! ```

use std::error::Error;

use clap::Parser;
use warpspeed::algorithms::histogram;
use warpspeed::{Communicator, Devices, ReduceOp};

#[derive(Parser)]
#[command(about = "a histogram over several devices, merged with all_reduce")]
struct Args {
    /// Ranks (GPUs where present, else simulated devices).
    #[arg(long, default_value_t = 2)]
    gpus: usize,
    /// Samples in all (f32, uniform in [0, 1)), split evenly over the ranks.
    #[arg(long, default_value_t = 1 << 24)]
    len: usize,
    /// Bins over [0, 1).
    #[arg(long, default_value_t = 256)]
    bins: usize,
}

/// Sample `i` of all of them: a hash of its index, in [0, 1). Each rank makes its share.
fn sample(i: usize) -> f32 {
    let mut h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x632b_e59b_d9b4_e019;
    h ^= h >> 31;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Rank `comm.rank()`'s share counted, then summed over the ranks: every rank's copy of
/// the whole histogram.
fn rank_histogram(comm: &Communicator, len: usize, bins: usize) -> warpspeed::Result<Vec<u32>> {
    let (dev, r, n) = (comm.device(), comm.rank(), comm.size());
    let share = len.div_ceil(n);
    let mine: Vec<f32> = (r * share..((r + 1) * share).min(len))
        .map(sample)
        .collect();
    let samples = dev.upload(&mine)?;
    let mut counts = dev.zeros::<u32>(bins)?;
    histogram::even(dev, &samples, &mut counts, 0.0, 1.0)?;
    comm.all_reduce(dev, &mut counts, ReduceOp::Sum)?;
    comm.synchronize()?;
    counts.download()
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    let (per_rank, ranks) = if std::env::var("WORLD_SIZE").is_ok() {
        // Under torchrun: this process is one rank, and checks its own copy.
        let comm = Communicator::from_env()?;
        (
            vec![rank_histogram(&comm, args.len, args.bins)?],
            comm.size(),
        )
    } else {
        let devices = Devices::new(args.gpus)?;
        let all = devices.run(|comm| rank_histogram(comm, args.len, args.bins))?;
        (all, devices.len())
    };
    // The CPU's histogram, with the bin rule of `histogram::even` (docs/histogram.md):
    // bin = floor((x - lo) * bins / (hi - lo)), in f32.
    let mut want = vec![0u32; args.bins];
    for i in 0..args.len {
        let b = (sample(i) * args.bins as f32) as usize;
        want[b.min(args.bins - 1)] += 1;
    }
    for (r, got) in per_rank.iter().enumerate() {
        if *got != want {
            let at = got.iter().zip(&want).position(|(g, w)| g != w);
            return Err(
                format!("rank {r}'s histogram differs from the CPU's at bin {at:?}").into(),
            );
        }
    }
    println!(
        "{} samples in {} bins over {ranks} ranks: the histogram is the CPU's (largest bin {})",
        args.len,
        args.bins,
        want.iter().max().unwrap_or(&0)
    );
    Ok(())
}
