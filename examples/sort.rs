//! Sorting with `warpspeed::algorithms::sort`: `--len` normally distributed f32 keys (drawn
//! on the device by `random::fill_normal_f32`) sorted with their indices
//! (`sort::sort_with_indices`, or `sort_with_indices_descending` with `--descending`:
//! torch.sort's values and indices), so the indices come out as the stable sorting
//! permutation. The indices are made on the device; the buffer given is only written (it
//! is poisoned first, so an index the sort left unwritten shows). The result is checked against the CPU's
//! stable sort by `total_cmp` (keys bit for bit, indices exactly); the program exits
//! non-zero on a difference. Then it times the sort with scratch made once.
//!
//! On the simulator the default length shrinks to 2^14; `--len` overrides.
//!
//! ```text
//! cargo run --release --example sort                      # GPU if present, else simulator
//! cargo run --release --example sort -- --len 1000000 --descending
//! cargo run --release --example sort -- --print-cuda      # the generated CUDA C of a pass
//! ```

mod common;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use common::open_device;
use warpspeed::algorithms::random;
use warpspeed::algorithms::sort::{self, kernels, Order, Scratch};
use warpspeed::Backend;

#[derive(Parser)]
#[command(about = "Sort f32 keys with their indices on the GPU (stable radix sort)")]
struct Args {
    /// Keys (2^24 on a GPU, 2^14 on the simulator).
    #[arg(long)]
    len: Option<usize>,
    /// Greatest first (still stable: equal keys keep their input order).
    #[arg(long)]
    descending: bool,
    /// Seed of the keys.
    #[arg(long, default_value_t = 2026)]
    seed: u64,
    /// Print the generated CUDA C of the f32 pass kernel and exit.
    #[arg(long)]
    print_cuda: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let pass = kernels::onesweep_f32::kernel::<u32, 16, 4096, false>();
    common::run_main(args.print_cuda, &[pass], || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = open_device()?;
    let sim = dev.backend() == Backend::Simulator;
    let n = args.len.unwrap_or(if sim { 1 << 14 } else { 1 << 24 });
    let order = if args.descending {
        Order::Descending
    } else {
        Order::Ascending
    };

    // Keys drawn on the device; rounded to 1/64 so that many are equal (stability shows).
    let mut keys = dev.zeros::<f32>(n)?;
    random::fill_normal_f32(&dev, &mut keys, args.seed, 0)?;
    let drawn: Vec<f32> = keys
        .download()?
        .iter()
        .map(|k| (k * 64.0).round() / 64.0)
        .collect();
    keys.copy_from_host(&drawn)?;
    let poison = vec![u32::MAX; n];
    let mut index = dev.upload(&poison)?;

    let start = Instant::now();
    match order {
        Order::Ascending => sort::sort_with_indices(&dev, &mut keys, &mut index)?,
        Order::Descending => sort::sort_with_indices_descending(&dev, &mut keys, &mut index)?,
    }
    dev.synchronize()?;
    let first_ms = start.elapsed().as_secs_f64() * 1e3;
    let (got_keys, got_index) = (keys.download()?, index.download()?);

    // The CPU's stable sort of the same keys.
    let mut want: Vec<(f32, u32)> = drawn.iter().copied().zip(0..n as u32).collect();
    match order {
        Order::Ascending => want.sort_by(|a, b| a.0.total_cmp(&b.0)),
        Order::Descending => want.sort_by(|a, b| b.0.total_cmp(&a.0)),
    }
    let want_index: Vec<u32> = want.iter().map(|p| p.1).collect();
    let want_keys: Vec<f32> = want.iter().map(|p| p.0).collect();
    let ok = common::check_elements(&got_keys, &want_keys, f32::to_bits, "OK: keys as the CPU's")
        & common::check_elements(
            &got_index,
            &want_index,
            |i| i,
            "OK: indices as the CPU's stable sort",
        );
    let show = n.min(6);
    println!(
        "sort_with_indices {order:?} of {n} f32 keys: first {show} keys {:?}, their indices {:?}",
        &got_keys[..show],
        &got_index[..show]
    );
    println!("first sort (allocating scratch, compiling or loading the kernels): {first_ms:.1} ms");

    // Again with scratch made once: nothing allocated, the kernels already loaded.
    let mut scratch = Scratch::<f32, u32>::with_values(&dev, n)?;
    keys.copy_from_host(&drawn)?;
    index.copy_from_host(&poison)?;
    dev.synchronize()?;
    let start = Instant::now();
    sort::sort_with_indices_with_scratch(&dev, &mut keys, &mut index, order, &mut scratch)?;
    dev.synchronize()?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    println!(
        "with scratch: {ms:.3} ms, {:.2} M pairs/s (host clock around one sort)",
        n as f64 / (ms * 1e-3) / 1e6
    );
    let again = common::check_elements(
        &index.download()?,
        &want_index,
        |i| i,
        "OK: the second sort's indices too",
    );
    Ok(ok && again)
}
