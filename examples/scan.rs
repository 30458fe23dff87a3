//! Prefix sums (scan), seed 000's sequence, each result checked against a CPU reference:
//!
//! 1. the naive (Hillis-Steele) scan of 1024 f64 in one block, in shared memory, bit for bit;
//!    on the simulator also the seed's original kernel, whose data race it reports;
//! 2. the work-efficient (Blelloch) up-sweep/down-sweep scan of one tile in shared memory,
//!    for lengths that are not powers of two (padded with the identity inside the kernel),
//!    inclusive and exclusive, on u32 and i32 (wrapping `+`, so results match exactly);
//! 3. a multi-block scan of `--len` elements (2^28 u32 on the GPU): tiles scanned by blocks,
//!    their totals scanned the same way level by level, the scanned totals added back: a
//!    sequence of launches with no host synchronisation until the end; timed on the GPU and
//!    compared with cupy.cumsum of 2^28 int32 on an H200 (1.959 ms);
//! 4. the seed's own work-efficient scan (one launch per level, the host waiting for each)
//!    against the multi-block scan on the same 2^24 f64, both checked bit for bit against
//!    CPU replicas of their order of additions, and compared with the anchor figure;
//! 5. the single-pass scan with decoupled look-back (Merrill and Garland 2016, CUB's
//!    `DeviceScan`; kernels/scan_lookback.rs): one launch, so each element is read once
//!    and written once (8 bytes of traffic per u32). A block takes its tile (`32 *
//!    --lookback-block` elements, 8192 by default) from an atomic counter, so tiles go out
//!    in the order blocks start; scans it in registers (coalesced loads transposed through
//!    shared memory, 32 consecutive elements per thread, warp shuffles); publishes the
//!    tile's total in a 64-bit status word (flag and value in one atomic, so no fence); and
//!    its first warp looks back at the predecessors' words 32 at a time, adding aggregates
//!    up to the nearest inclusive prefix, before publishing its own prefix. Checked against
//!    the CPU on lengths around the tile (1, tile - 1, tile, tile + 1, ...) and `--len`,
//!    u32 and i32, inclusive and exclusive, bounds-checked and `unchecked` kernels, reusing
//!    one plan per length (the status words need no reset between launches: each launch
//!    has its own epoch in the flag); and on a lone block given tile 99 of 100 over preset
//!    status words, which takes the look-back across windows of 32. On the simulator the
//!    blocks pass nothing but atomics to each other, so the race checks have nothing to
//!    report, and a block that waits only ever waits for a block that has started, which
//!    the simulator runs to its end on another CPU thread. On the GPU it is timed against
//!    a device-to-device copy of the input, its hand-written CUDA C twin and the
//!    multi-block scan, with the targets: no slower than torch.cumsum of 2^28 int32 on an
//!    H200 (0.848 ms) and at least 75% of the copy's bandwidth. See docs/scan.md.
//!
//! On the simulator the sizes shrink automatically (`--len` and `--f64-len` override).
//!
//! ```text
//! cargo run --release --example scan                        # GPU if present, else simulator
//! WARPSPEED_BACKEND=sim cargo run --release --example scan -- --len 100001 --kind exclusive
//! cargo run --release --example scan -- --lookback-block 128 # tiles of 4096
//! cargo run --release --example scan -- --print-cuda        # the generated CUDA C
//! cargo run --release --example scan -- --check-nvrtc       # compile every kernel (sm_90)
//! ```

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use warpspeed::__private::KernelDef;
use warpspeed::{Backend, Device, DeviceBuffer, LaunchConfig};

mod common;
use common::{KernelFlags, XorShift};
#[path = "kernels/scan.rs"]
mod scan_kernels;
#[path = "kernels/scan_lookback.rs"]
mod scan_lookback;
use scan_kernels::{
    cpu_multi_block_scan, cpu_naive_prefix, cpu_scan, cpu_seed_work_efficient, naive_prefix,
    naive_prefix_racy, MultiBlockScan, ScanElem, MAX_TILE,
};
use scan_lookback::{HandLookback, LookbackElem, LookbackScan, LOOKBACK_BLOCK, MAX_LOOKBACK_BLOCK};

/// cupy.cumsum of 2^28 int32 on the H200, ms.
const CUPY_CUMSUM_MS: f64 = 1.959;
/// Seed 000's host-synchronised work-efficient scan of 2^24 f64 on the H200, ms.
const SEED_SCAN_MS: f64 = 4.716;
/// torch.cumsum of 2^28 int32 on the H200, ms: the look-back scan's target.
const TORCH_CUMSUM_MS: f64 = 0.848;
/// The look-back scan's other target: this share of the device-to-device copy bandwidth.
const COPY_SHARE_TARGET: f64 = 0.75;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Kind {
    Inclusive,
    Exclusive,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Dtype {
    U32,
    I32,
}

#[derive(Parser)]
#[command(
    about = "Prefix sums: naive, work-efficient and multi-block scans, checked against the CPU"
)]
struct Args {
    /// Elements of the multi-block scan [default: 2^28 on the GPU, 300001 on the simulator].
    #[arg(long)]
    len: Option<usize>,
    /// Inclusive (x0, x0+x1, ...) or exclusive (0, x0, x0+x1, ...) multi-block scan.
    #[arg(long, value_enum, default_value_t = Kind::Inclusive)]
    kind: Kind,
    /// Element type of the multi-block scan.
    #[arg(long, value_enum, default_value_t = Dtype::U32)]
    dtype: Dtype,
    /// Threads per block of the Blelloch kernels (a power of two up to 1024; tiles of twice that).
    #[arg(long, default_value_t = 1024)]
    block: u32,
    /// Elements (a power of two) of the f64 comparison with the seed's scan [default: 2^24 on
    /// the GPU, 2^12 on the simulator]; 0 skips it.
    #[arg(long)]
    f64_len: Option<usize>,
    /// Threads per block of the look-back scan (a multiple of 32 up to 256; tiles of 32 times
    /// that).
    #[arg(long, default_value_t = LOOKBACK_BLOCK)]
    lookback_block: u32,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    #[command(flatten)]
    flags: KernelFlags,
}

/// Every kernel of this example.
fn kernels() -> Vec<&'static KernelDef> {
    use scan_kernels::*;
    let mut all = vec![&naive_prefix::KERNEL, &naive_prefix_racy::KERNEL];
    all.extend(u32::kernels());
    all.extend(i32::kernels());
    all.extend(f64::kernels());
    all.extend([
        &seed_up_sweep::KERNEL,
        &seed_down_sweep::KERNEL,
        &copy_f64::KERNEL,
    ]);
    all.extend(u32::lookback_kernels());
    all.extend(i32::lookback_kernels());
    all
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.flags.check_nvrtc {
        // The generated kernels, and the look-back scan's hand-written CUDA C twin.
        let kernels = kernels();
        let mut sources: Vec<_> = kernels
            .iter()
            .map(|k| (k.rust_name, k.source.as_str(), k.options))
            .collect();
        sources.push((
            scan_lookback::LOOKBACK_HAND_KERNEL,
            scan_lookback::LOOKBACK_HAND_CUDA,
            u32::lookback_kernels()[0].options,
        ));
        return common::exit_code(common::compile_sources(
            &sources,
            &[common::sm(args.flags.arch)],
        ));
    }
    args.flags.main(&kernels(), || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    assert!(
        args.block.is_power_of_two() && args.block as usize <= scan_kernels::MAX_SCAN_BLOCK,
        "--block must be a power of two up to 1024"
    );
    let dev = common::open_device()?;
    let gpu = dev.backend() == Backend::Cuda;
    let mut rng = XorShift::new(args.seed);
    let mut ok = true;

    ok &= naive_scan(&dev, &mut rng)?;
    ok &= blelloch_one_block(&dev, &mut rng)?;

    let inclusive = args.kind == Kind::Inclusive;
    let len = args.len.unwrap_or(if gpu { 1 << 28 } else { 300_001 });
    ok &= match args.dtype {
        Dtype::U32 => multi_block::<u32>(&dev, &mut rng, len, args.block, inclusive, true)?,
        Dtype::I32 => multi_block::<i32>(&dev, &mut rng, len, args.block, inclusive, true)?,
    };
    // The other integer type and kind, smaller and untimed, with tiles of 128 so there are
    // three levels.
    let small = len.min(1 << 20);
    ok &= match args.dtype {
        Dtype::U32 => multi_block::<i32>(&dev, &mut rng, small, 64, !inclusive, false)?,
        Dtype::I32 => multi_block::<u32>(&dev, &mut rng, small, 64, !inclusive, false)?,
    };

    let f64_len = args.f64_len.unwrap_or(if gpu { 1 << 24 } else { 1 << 12 });
    if f64_len > 0 {
        ok &= seed_comparison(&dev, &mut rng, f64_len, args.block)?;
    }

    assert!(
        args.lookback_block.is_multiple_of(32)
            && (32..=MAX_LOOKBACK_BLOCK).contains(&args.lookback_block),
        "--lookback-block must be a multiple of 32 up to {MAX_LOOKBACK_BLOCK}"
    );
    ok &= lookback_lengths(&dev, &mut rng, len, args.lookback_block)?;
    // Blocks of 2 warps: the look-back does not depend on the block, the simulator's time does.
    ok &= lookback_far(&dev, &mut rng, 64)?;
    if gpu {
        ok &= match args.dtype {
            Dtype::U32 => lookback_timing::<u32>(&dev, &mut rng, len, args, inclusive)?,
            Dtype::I32 => lookback_timing::<i32>(&dev, &mut rng, len, args, inclusive)?,
        };
    }

    common::print_verdict(
        ok,
        "OK: every result matches its CPU reference",
        "FAILED: some results differ from their CPU references (see above)",
    );
    Ok(ok)
}

/// Seed 000's naive scan of 1024 f64 in one block; on the simulator, the seed's racy one.
fn naive_scan(dev: &Device, rng: &mut XorShift) -> Result<bool, warpspeed::Error> {
    let x: Vec<f64> = (0..1024).map(|_| rng.range_f64(-1.0, 1.0)).collect();
    let input = dev.upload(&x)?;
    let mut out = dev.upload(&vec![f64::NAN; 1024])?; // poisoned
    let cfg = LaunchConfig::new(1, 1024);
    naive_prefix::launch(dev, cfg, &input, &mut out)?;
    let got = out.download()?;
    let want = cpu_naive_prefix(&x);
    let ok = report(
        "naive (Hillis-Steele) scan, 1024 f64, one block, 20 barriers",
        &got,
        &want,
        f64::to_bits,
    );

    // The seed's own kernel updates sum_buf[tid] while thread tid + iter reads it.
    let mut out = dev.upload(&vec![f64::NAN; 1024])?;
    match (
        dev.backend(),
        naive_prefix_racy::launch(dev, cfg, &input, &mut out),
    ) {
        (Backend::Simulator, Err(e)) => {
            println!("  the seed's original kernel (in-place update) on the simulator:\n    {e}")
        }
        (Backend::Simulator, Ok(())) => {
            println!("  the seed's original kernel: no race reported (race checks off?)")
        }
        (Backend::Cuda, r) => {
            r?;
            let got = out.download()?;
            let differ =
                common::first_difference(&got, &want, f64::to_bits).map_or(0, |(_, count)| count);
            println!(
                "  the seed's original kernel (racy in-place update) on the GPU: {differ} of 1024 \
                 sums differ from the race-free order (run it on the simulator to see the race)"
            );
        }
    }
    Ok(ok)
}

/// The Blelloch tile kernel alone, one block covering the whole array: lengths that are not
/// powers of two, both kinds, both integer types.
fn blelloch_one_block(dev: &Device, rng: &mut XorShift) -> Result<bool, warpspeed::Error> {
    let lengths = [1usize, 2, 3, 31, 100, 777, 1000, 1024, 1025, 2047, MAX_TILE];
    let mut checked = 0;
    let mut ok = true;
    for &n in &lengths {
        for inclusive in [true, false] {
            let xu: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            ok &= one_block(dev, &xu, inclusive)?;
            let xi: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
            ok &= one_block(dev, &xi, inclusive)?;
            checked += 2;
        }
    }
    println!(
        "{} work-efficient (Blelloch) scan in one block: {checked} arrays of {} to {} elements, \
         inclusive and exclusive, u32 and i32 (random full-range values, wrapping +)",
        if ok { "OK      " } else { "MISMATCH" },
        lengths[0],
        lengths[lengths.len() - 1]
    );
    Ok(ok)
}

fn one_block<T: ScanElem>(
    dev: &Device,
    x: &[T],
    inclusive: bool,
) -> Result<bool, warpspeed::Error> {
    let n = x.len();
    let block = n.div_ceil(2).next_power_of_two() as u32;
    let input = dev.upload(x)?;
    let mut out = dev.upload(&vec![poison::<T>(); n])?;
    let mut sums = dev.upload(&[poison::<T>()])?;
    T::launch_tiles(
        dev,
        LaunchConfig::new(1, block),
        &input,
        &mut out,
        &mut sums,
        inclusive,
        true,
    )?;
    let want = cpu_scan(x, inclusive);
    let total = cpu_scan(x, true).last().copied().unwrap_or(T::ZERO);
    let got = out.download()?;
    let got_total = sums.download()?[0];
    let mut ok = true;
    if let Some((i, count)) = common::first_difference(&got, &want, T::to_bits) {
        eprintln!(
            "  MISMATCH: one-block {} scan of {n} {}: {count} elements differ, first at {i}: got {:?}, expected {:?}",
            kind_name(inclusive),
            T::NAME,
            got[i],
            want[i]
        );
        ok = false;
    }
    if got_total.to_bits() != total.to_bits() {
        eprintln!(
            "  MISMATCH: one-block scan of {n} {}: total {got_total:?}, expected {total:?}",
            T::NAME
        );
        ok = false;
    }
    Ok(ok)
}

/// A value no scan should leave behind: outputs start as this so unwritten elements show.
fn poison<T: ScanElem>() -> T {
    T::from_bits(0xDEAD_BEEF_DEAD_BEEF)
}

fn kind_name(inclusive: bool) -> &'static str {
    if inclusive {
        "inclusive"
    } else {
        "exclusive"
    }
}

/// The multi-block scan of `len` random elements, checked exactly against a sequential CPU
/// scan; timed on the GPU when `timed`.
fn multi_block<T: ScanElem>(
    dev: &Device,
    rng: &mut XorShift,
    len: usize,
    block: u32,
    inclusive: bool,
    timed: bool,
) -> Result<bool, warpspeed::Error> {
    let x: Vec<T> = (0..len).map(|_| T::from_bits(rng.next_u64())).collect();
    let want = cpu_scan(&x, inclusive);
    let input = dev.upload(&x)?;
    let mut out = dev.upload(&vec![poison::<T>(); len])?;
    let mut plan = MultiBlockScan::<T>::new(dev, len, block)?;
    let first_ms =
        common::wall_seconds(dev, 1, || plan.run(dev, &input, &mut out, inclusive))? * 1e3;
    let what = format!(
        "multi-block {} scan of {len} {} ({} levels, {} launches, tiles of {})",
        kind_name(inclusive),
        T::NAME,
        plan.levels(),
        plan.launches(),
        2 * block
    );
    let mut ok = report(&what, &out.download()?, &want, T::to_bits);
    if !timed {
        return Ok(ok);
    }
    if dev.backend() != Backend::Cuda {
        println!("  simulator: {first_ms:.1} ms (wall time; the simulator is for correctness)");
        return Ok(ok);
    }
    let ms = common::time_gpu(dev, || plan.run(dev, &input, &mut out, inclusive))?;
    ok &= report(
        "  the same output after the timed repetitions",
        &out.download()?,
        &want,
        T::to_bits,
    );
    let bytes = 2.0 * (len * std::mem::size_of::<T>()) as f64; // read once, write once
    let gbs = bytes / (ms * 1e-3) / 1e9;
    let cupy_gbs = 2.0 * 4.0 * (1u64 << 28) as f64 / (CUPY_CUMSUM_MS * 1e-3) / 1e9;
    println!(
        "  GPU: {ms:.3} ms = {gbs:.0} GB/s (read + write once); cupy.cumsum of 2^28 int32 on the \
         H200: {CUPY_CUMSUM_MS} ms = {cupy_gbs:.0} GB/s{}",
        if len == 1 << 28 && std::mem::size_of::<T>() == 4 {
            format!(" -> {:.2}x cupy's time", ms / CUPY_CUMSUM_MS)
        } else {
            String::new()
        }
    );
    Ok(ok)
}

/// The seed's host-synchronised work-efficient scan and the multi-block scan on the same
/// f64 data (exclusive), each checked bit for bit against a CPU replica of its additions.
fn seed_comparison(
    dev: &Device,
    rng: &mut XorShift,
    len: usize,
    block: u32,
) -> Result<bool, warpspeed::Error> {
    assert!(
        len.is_power_of_two() && len >= 2,
        "--f64-len must be a power of two >= 2"
    );
    let x: Vec<f64> = (0..len).map(|_| rng.range_f64(-1.0, 1.0)).collect();
    let gpu = dev.backend() == Backend::Cuda;

    // The seed's scan works in place: x holds the input and receives the result.
    let mut buf = dev.upload(&x)?;
    let mut old = dev.upload(&vec![f64::NAN; len])?;
    let first_ms = common::wall_seconds(dev, 1, || {
        scan_kernels::seed_work_efficient_scan(dev, &mut buf, &mut old)
    })? * 1e3;
    let levels = len.trailing_zeros();
    let mut ok = report(
        &format!(
            "seed 000's work-efficient scan of {len} f64 (exclusive, {} launches, host waits after each level)",
            4 * levels + 3
        ),
        &buf.download()?,
        &cpu_seed_work_efficient(&x),
        f64::to_bits,
    );
    // Timing scans the previous result again (the time does not depend on the values).
    let seed_ms = if gpu {
        Some(common::time_gpu(dev, || {
            scan_kernels::seed_work_efficient_scan(dev, &mut buf, &mut old)
        })?)
    } else {
        println!("  simulator: {first_ms:.1} ms (wall time)");
        None
    };

    let input = dev.upload(&x)?;
    let mut out = dev.upload(&vec![f64::NAN; len])?;
    let mut plan = MultiBlockScan::<f64>::new(dev, len, block)?;
    let first_ms = common::wall_seconds(dev, 1, || plan.run(dev, &input, &mut out, false))? * 1e3;
    ok &= report(
        &format!(
            "multi-block exclusive scan of {len} f64 ({} launches, no host wait)",
            plan.launches()
        ),
        &out.download()?,
        &cpu_multi_block_scan(&x, 2 * block as usize, false),
        f64::to_bits,
    );
    if !gpu {
        println!("  simulator: {first_ms:.1} ms (wall time)");
    }
    if let Some(seed_ms) = seed_ms {
        let ms = common::time_gpu(dev, || plan.run(dev, &input, &mut out, false))?;
        let gbs = |t: f64| 2.0 * 8.0 * len as f64 / (t * 1e-3) / 1e9;
        println!(
            "  GPU, {len} f64: seed's scan {seed_ms:.3} ms ({:.0} GB/s), multi-block scan {ms:.3} ms \
             ({:.0} GB/s, {:.1}x faster); the seed's scan of 2^24 f64 on the H200: {SEED_SCAN_MS} ms{}",
            gbs(seed_ms),
            gbs(ms),
            seed_ms / ms,
            if len == 1 << 24 {
                format!(" -> multi-block {:.1}x faster than that", SEED_SCAN_MS / ms)
            } else {
                String::new()
            }
        );
    }
    Ok(ok)
}

/// The single-pass look-back scan on lengths around its tile and on `len`, u32 and i32,
/// inclusive and exclusive, checked and unchecked kernels, each output poisoned first and
/// compared with the CPU's wrapping scan. One plan per length serves all its launches, so
/// later launches meet the status words of earlier ones (older epochs), and the counter
/// must have come back to zero after each.
fn lookback_lengths(
    dev: &Device,
    rng: &mut XorShift,
    len: usize,
    block: u32,
) -> Result<bool, warpspeed::Error> {
    let tile = (block * scan_lookback::ITEMS_PER_THREAD) as usize;
    let mut lengths = vec![1, 2, tile - 1, tile, tile + 1, 3 * tile + 77, len.max(1)];
    lengths.sort_unstable();
    lengths.dedup();
    let gpu = dev.backend() == Backend::Cuda;
    let mut ok = true;
    let mut launches = 0;
    for &n in &lengths {
        let mut plan = LookbackScan::new(dev, n, block)?;
        let mut xu = LookbackData::<u32>::new(dev, rng, n)?;
        let mut xi = LookbackData::<i32>::new(dev, rng, n)?;
        // (inclusive, checked) of the u32 scans; the i32 scans take the other kind. The GPU
        // runs all four; the simulator, where a type's checked and unchecked kernels run the
        // same Rust, the first two (each kind and each kernel once per type).
        let all = [(true, true), (false, false), (false, true), (true, false)];
        for &(inclusive, checked) in if gpu { &all[..] } else { &all[..2] } {
            ok &= xu.check(dev, &mut plan, inclusive, checked)?;
            ok &= xi.check(dev, &mut plan, !inclusive, checked)?;
            launches += 2;
        }
        let counter = plan.counter().download()?[0];
        if counter != 0 {
            println!("MISMATCH look-back scans of {n}: the tile counter ends at {counter}, not 0");
            ok = false;
        }
    }
    if ok {
        println!(
            "OK       single-pass look-back scan: {launches} launches on {} lengths from {} to {} \
             (tiles of {tile}; u32 and i32, inclusive and exclusive, checked and unchecked)",
            lengths.len(),
            lengths[0],
            lengths[lengths.len() - 1],
        );
    }
    Ok(ok)
}

/// The look-back over many predecessors, which a launch on the simulator never needs (with
/// a few CPU workers only the nearest predecessors are ever unfinished): one block is given
/// the last of 100 tiles (the counter starts at 99), and the status words of the tiles
/// before it are set beforehand as though their blocks had published their aggregates but
/// not yet their prefixes; in the second run tile 29 has published its inclusive prefix
/// too. The block must add 99 aggregates over four windows of 32 lanes (then 69 and tile
/// 29's prefix, found in the third window), scan its tile right and publish its prefix.
fn lookback_far(dev: &Device, rng: &mut XorShift, block: u32) -> Result<bool, warpspeed::Error> {
    let tile = (block * scan_lookback::ITEMS_PER_THREAD) as usize;
    let tiles = 100;
    let n = tiles * tile - 5;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let want = cpu_scan(&x, true);
    let epoch = 7u64;
    let word = |flag: u64, value: u32| flag << 32 | u64::from(value);
    let input = dev.upload(&x)?;
    let last = (tiles - 1) * tile;
    let mut ok = true;
    for (prefix_at, checked) in [(None, true), (Some(29), false)] {
        let mut status: Vec<u64> = x
            .chunks(tile)
            .map(|c| word(2 * epoch, c.iter().fold(0, |a, &v| a.wrapping_add(v))))
            .collect();
        if let Some(k) = prefix_at {
            status[k] = word(2 * epoch + 1, want[(k + 1) * tile - 1]);
        }
        status[tiles - 1] = 0;
        let mut status = dev.upload(&status)?;
        let mut counter = dev.upload(&[tiles as u32 - 1])?;
        let mut out = dev.upload(&vec![poison::<u32>(); n])?;
        u32::launch_lookback(
            dev,
            LaunchConfig::new(1, block),
            checked,
            &input,
            &mut out,
            &mut status,
            &mut counter,
            epoch as u32,
            true,
        )?;
        let got = out.download()?;
        let what = format!(
            "look-back from tile 99 over {}",
            match prefix_at {
                None => "99 aggregates".to_string(),
                Some(k) => format!("{} aggregates to tile {k}'s prefix", tiles - 2 - k),
            }
        );
        ok &= report_mismatch(&what, &got[last..], &want[last..]);
        if got[..last].iter().any(|&v| v != poison::<u32>()) {
            println!("MISMATCH {what}: the block wrote outside its tile");
            ok = false;
        }
        let published = status.download()?[tiles - 1];
        if published != word(2 * epoch + 1, want[n - 1]) {
            println!("MISMATCH {what}: published {published:#x}, expected the inclusive prefix");
            ok = false;
        }
    }
    if ok {
        println!(
            "OK       look-back across windows of 32 predecessors: a lone block given tile 99 of \
             100 over published aggregates (and an inclusive prefix 70 tiles back)"
        );
    }
    Ok(ok)
}

/// An input of the look-back scans, on the host and the device, and their output.
struct LookbackData<T: ScanElem> {
    x: Vec<T>,
    input: DeviceBuffer<T>,
    out: DeviceBuffer<T>,
}

impl<T: ScanElem + LookbackElem> LookbackData<T> {
    /// `n` random values.
    fn new(dev: &Device, rng: &mut XorShift, n: usize) -> Result<Self, warpspeed::Error> {
        let x: Vec<T> = (0..n).map(|_| T::from_bits(rng.next_u64())).collect();
        Ok(LookbackData {
            input: dev.upload(&x)?,
            out: dev.zeros(n)?,
            x,
        })
    }

    /// One scan into the poisoned output, against the CPU; says what differs.
    fn check(
        &mut self,
        dev: &Device,
        plan: &mut LookbackScan,
        inclusive: bool,
        checked: bool,
    ) -> Result<bool, warpspeed::Error> {
        let n = self.x.len();
        self.out.copy_from_host(&vec![poison::<T>(); n])?;
        plan.run(dev, &self.input, &mut self.out, inclusive, checked)?;
        Ok(report_mismatch(
            &format!(
                "look-back {} scan of {n} {} ({})",
                kind_name(inclusive),
                T::NAME,
                if checked { "checked" } else { "unchecked" }
            ),
            &self.out.download()?,
            &cpu_scan(&self.x, inclusive),
        ))
    }
}

/// Prints a MISMATCH line when `got` differs from `want`; returns whether they are equal.
fn report_mismatch<T: ScanElem>(what: &str, got: &[T], want: &[T]) -> bool {
    match common::first_difference(got, want, T::to_bits) {
        None => true,
        Some(_) => report(what, got, want, T::to_bits),
    }
}

/// On the GPU: the look-back scan of `len` elements (checked, unchecked and the hand-written
/// CUDA C twin), the multi-block scan and a device-to-device copy of the same bytes, each
/// timed with CUDA events, every output checked against the CPU.
fn lookback_timing<T: ScanElem + LookbackElem>(
    dev: &Device,
    rng: &mut XorShift,
    len: usize,
    args: &Args,
    inclusive: bool,
) -> Result<bool, warpspeed::Error> {
    let x: Vec<T> = (0..len).map(|_| T::from_bits(rng.next_u64())).collect();
    let want = cpu_scan(&x, inclusive);
    let input = dev.upload(&x)?;
    let poisoned = vec![poison::<T>(); len];
    let mut out = dev.upload(&poisoned)?;
    let mut plan = LookbackScan::new(dev, len, args.lookback_block)?;
    let hand = HandLookback::load(dev)?;
    let bytes = 2.0 * (len * std::mem::size_of::<T>()) as f64; // read once, write once
    let gbs = |ms: f64| bytes / (ms * 1e-3) / 1e9;
    let mut ok = true;
    let mut rows: Vec<(String, f64)> = Vec::new();

    let copy_ms = copy::time_copy(dev, &input)?;
    rows.push(("device-to-device copy of the input".into(), copy_ms));
    for (what, checked) in [
        ("look-back scan, unchecked", false),
        ("look-back scan, checked", true),
    ] {
        let ms = common::time_gpu(dev, || plan.run(dev, &input, &mut out, inclusive, checked))?;
        ok &= report_mismatch(what, &out.download()?, &want);
        out.copy_from_host(&poisoned)?;
        rows.push((what.into(), ms));
    }
    let ms = common::time_gpu(dev, || hand.run(&mut plan, &input, &mut out, inclusive))?;
    ok &= report_mismatch(
        "look-back scan, hand-written CUDA C",
        &out.download()?,
        &want,
    );
    out.copy_from_host(&poisoned)?;
    rows.push(("look-back scan, hand-written CUDA C".into(), ms));
    let mut multi = MultiBlockScan::<T>::new(dev, len, args.block)?;
    let ms = common::time_gpu(dev, || multi.run(dev, &input, &mut out, inclusive))?;
    ok &= report_mismatch("multi-block scan", &out.download()?, &want);
    rows.push((
        format!("multi-block scan ({} launches)", multi.launches()),
        ms,
    ));

    println!(
        "  GPU, {} scan of {len} {} ({} tiles of {}), 8 bytes per element:",
        kind_name(inclusive),
        T::NAME,
        plan.tiles(),
        plan.tile()
    );
    println!(
        "    {:<40} {:>8} {:>8} {:>9} {:>15}",
        "", "ms", "GB/s", "of copy", "torch.cumsum's"
    );
    for (what, ms) in &rows {
        println!(
            "    {what:<40} {ms:>8.3} {:>8.0} {:>8.0}% {:>8.2}x speed",
            gbs(*ms),
            100.0 * copy_ms / ms,
            TORCH_CUMSUM_MS / ms
        );
    }
    let best = rows[1].1;
    let met = |yes: bool| if yes { "met" } else { "MISSED" };
    println!(
        "    targets (2^28 x 4 bytes, H200): <= torch.cumsum's {TORCH_CUMSUM_MS} ms: {}; \
         >= {:.0}% of the copy's bandwidth: {} (unchecked: {:.3} ms, {:.0}%){}",
        met(best <= TORCH_CUMSUM_MS),
        100.0 * COPY_SHARE_TARGET,
        met(copy_ms / best >= COPY_SHARE_TARGET),
        best,
        100.0 * copy_ms / best,
        if len == 1 << 28 && std::mem::size_of::<T>() == 4 {
            ""
        } else {
            " (other sizes compare loosely)"
        }
    );
    Ok(ok)
}

/// A device-to-device copy, the bandwidth the look-back scan is measured against (GPU only).
mod copy {
    use cudarc::driver::DriverError;
    use warpspeed::{Device, DeviceBuffer, Error, KernelScalar};

    fn driver(what: &'static str) -> impl Fn(DriverError) -> Error {
        move |source| Error::Driver {
            kernel: None,
            what: what.into(),
            source,
        }
    }

    /// GPU milliseconds of a device-to-device copy of `input` (cuMemcpyDtoD into a buffer
    /// of the same size), by CUDA events.
    pub fn time_copy<T: KernelScalar>(dev: &Device, input: &DeviceBuffer<T>) -> Result<f64, Error> {
        let stream = dev.cuda_stream().expect("a GPU device has a stream");
        let src = input.cuda_bytes().expect("a GPU buffer");
        let mut dst = stream
            .alloc_zeros::<u8>(src.len())
            .map_err(driver("allocating the copy's destination"))?;
        crate::common::time_gpu(dev, || {
            stream
                .memcpy_dtod(src, &mut dst)
                .map_err(driver("copying on the device"))
        })
    }
}

/// Prints one verdict line; `false` when `got` differs from `want` (bitwise).
fn report<T: Copy + PartialEq + std::fmt::Debug, B: Eq>(
    what: &str,
    got: &[T],
    want: &[T],
    bits: impl Fn(T) -> B,
) -> bool {
    match common::first_difference(got, want, bits) {
        None => {
            println!("OK       {what}");
            true
        }
        Some((i, count)) => {
            println!(
                "MISMATCH {what}: {count} of {} elements differ, first at {i}: got {:?}, expected {:?}",
                got.len(),
                got[i],
                want[i]
            );
            false
        }
    }
}
