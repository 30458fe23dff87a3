//! Conway's Life split across devices: the torus of `rows x side` cells is cut into bands of
//! rows, one a rank; each generation every rank sends its first and last rows to its
//! neighbours (a halo exchange: one [`Group`](warpspeed::Group) of two sends and two
//! receives) and computes its band.
//!
//! The exchange overlaps the computation: the band's inner rows, which need no halo, run on
//! one stream while the exchange and then the two edge rows run on another; each stream
//! waits for the other's event before the next generation.
//!
//! Every run is checked: against the CPU's Life where the lattice is small and square,
//! else against the same lattice on one device, band by band. Two tables, on 1, 2, 4 ..
//! devices (GPUs where present, else simulated devices):
//! - weak scaling: `side x side` cells a device (efficiency: the time a generation on one
//!   device over the time on n, each with n times the lattice);
//! - strong scaling: one `strong x strong` lattice (speed-up over one device).
//!
//! ```text
//! cargo run --release --example life_multi                    # 32768^2 a GPU, 65536^2
//! WARPSPEED_BACKEND=sim cargo run --release --example life_multi -- --side 64 --strong 96 --gpus 1,2,3
//! ```

use std::error::Error;
use std::time::Duration;

use clap::Parser;
use warpspeed::prelude::*;
use warpspeed::{Communicator, Devices};

#[path = "kernels/life.rs"]
mod life_kernels;

/// The band kernel, written once: `life_band` (bounds-checked, the default) and
/// `life_band_unchecked` (`--unchecked`: what the checks cost).
macro_rules! life_band {
    ($name:ident, [$($option:tt)*]) => {
/// One generation of rows `row0 .. row0 + out.len() / side` of a band of `rows` rows of
/// `side` cells (`cells`), whose neighbours above row 0 and below the last row are the
/// halo rows `top` and `bot`; `out` holds the rows computed, from `row0` on. Columns wrap
/// around (a torus); rows wrap through the halos, which the neighbours sent.
#[gpu_kernel($($option)*)]
        pub fn $name(
            out: &mut [i32],
            #[len(rows * side)] cells: &[i32],
            #[len(side)] top: &[i32],
            #[len(side)] bot: &[i32],
            side: u32,
            rows: u32,
            row0: u32,
        ) {
            // u32 coordinates, as the seeds' Life (docs/bounds.md, "the u32 idiom"): a band
            // holds at most 2^32 cells, so `y * side + x` fits. Saying first that the cell
            // is on the band, and each neighbour row's test, proves every index below its
            // slice's declared length: no index needs a check of its own.
            let x = block_idx().x * block_dim().x + thread_idx().x;
            let dy = block_idx().y * block_dim().y + thread_idx().y;
            let y = row0 + dy;
            if x >= side || y >= rows {
                return;
            }
            let o = (dy * side + x) as usize;
            if o >= out.len() {
                return;
            }
            let xm = (x + side - 1) % side;
            let xp = (x + 1) % side;
            let mut k = 0;
            if y >= 1 {
                k += cells[((y - 1) * side + xm) as usize]
                    + cells[((y - 1) * side + x) as usize]
                    + cells[((y - 1) * side + xp) as usize];
            } else {
                k += top[xm as usize] + top[x as usize] + top[xp as usize];
            }
            let yd = y + 1;
            if yd < rows {
                k += cells[(yd * side + xm) as usize]
                    + cells[(yd * side + x) as usize]
                    + cells[(yd * side + xp) as usize];
            } else {
                k += bot[xm as usize] + bot[x as usize] + bot[xp as usize];
            }
            k += cells[(y * side + xm) as usize] + cells[(y * side + xp) as usize];
            let alive = cells[(y * side + x) as usize] == 1;
            out[o] = if k == 3 || (alive && k == 2) { 1 } else { 0 };
        }
    };
}

life_band!(life_band, []);
life_band!(life_band_unchecked, [unchecked]);

/// The initial lattice, the same however it is cut: cell (`row0 + y`, x) of the whole
/// torus is alive when a hash of its coordinates is a multiple of 3.
#[gpu_kernel]
pub fn life_seed(cells: &mut [i32], side: u32, row0: u32) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let dy = block_idx().y * block_dim().y + thread_idx().y;
    let i = dy as usize * side as usize + x as usize;
    if x >= side || i >= cells.len() {
        return;
    }
    let y = (row0 + dy) as u64;
    let x = x as u64;
    let mut h = (y * 0x9e37_79b9_7f4a_7c15) ^ (x + 0x632b_e59b_d9b4_e019);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 32;
    cells[i] = if h % 3 == 0 { 1 } else { 0 };
}

/// `--unchecked`, for every rank's thread.
static UNCHECKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// One launch of the band kernel on `s`: rows from `row0` into `out`.
#[allow(clippy::too_many_arguments)]
fn launch_band(
    s: &warpspeed::Stream,
    cfg: LaunchConfig,
    out: &mut warpspeed::DeviceViewMut<'_, i32>,
    cells: &warpspeed::DeviceBuffer<i32>,
    top: &impl warpspeed::AsDeviceView<Elem = i32>,
    bot: &impl warpspeed::AsDeviceView<Elem = i32>,
    (side, rows, row0): (u32, u32, u32),
) -> warpspeed::Result<()> {
    if UNCHECKED.load(std::sync::atomic::Ordering::Relaxed) {
        life_band_unchecked::launch(s, cfg, out, cells, top, bot, side, rows, row0)
    } else {
        life_band::launch(s, cfg, out, cells, top, bot, side, rows, row0)
    }
}

#[derive(Parser)]
#[command(about = "Life split across devices, with halo exchange; weak and strong scaling")]
struct Args {
    /// The ranks to run with, comma-separated (default: 1, 2, 4 .. up to the GPUs present).
    #[arg(long, value_delimiter = ',')]
    gpus: Vec<usize>,
    /// Weak scaling: the side of each device's square share (0: skip the table).
    #[arg(long, default_value_t = 32768)]
    side: usize,
    /// Strong scaling: the side of the whole lattice (0: skip the table).
    #[arg(long, default_value_t = 65536)]
    strong: usize,
    /// The band kernel without bounds checks (`#[gpu_kernel(unchecked)]`), to measure what
    /// they cost.
    #[arg(long)]
    unchecked: bool,
    /// Print the band kernel's generated CUDA C and stop.
    #[arg(long)]
    print_cuda: bool,
    /// Generations a run (the first is not timed).
    #[arg(long, default_value_t = 21)]
    generations: usize,
}

/// What a run gives back: seconds a generation (the slowest rank), and each rank's band.
struct Run {
    seconds: f64,
    bands: Vec<Vec<i32>>,
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    UNCHECKED.store(args.unchecked, std::sync::atomic::Ordering::Relaxed);
    if args.print_cuda {
        println!("{}", *life_band::CUDA_SOURCE);
        return Ok(());
    }
    if args.generations < 2 {
        return Err("--generations: at least 2 (the first is a warm-up, not timed)".into());
    }
    // Under torchrun each process is a rank: the same halo exchange, one band a process.
    if std::env::var("WORLD_SIZE").is_ok() {
        return under_launcher(&args);
    }
    let present = match warpspeed::Device::new()?.backend() {
        warpspeed::Backend::Cuda => Devices::cuda_all()?.len(),
        warpspeed::Backend::Simulator => 4,
    };
    let gpus: Vec<usize> = if args.gpus.is_empty() {
        (0..)
            .map(|k| 1 << k)
            .take_while(|&n| n <= present)
            .collect()
    } else {
        args.gpus.clone()
    };
    let device = Devices::new(1)?;
    println!(
        "Life across devices ({}), {} generations a run, band kernel {}",
        device.device(0).map_or("", |d| d.name()),
        args.generations,
        if args.unchecked {
            "unchecked"
        } else {
            "bounds-checked"
        }
    );
    if args.side > 0 {
        println!("\nweak scaling: {0} x {0} cells a device", args.side);
        table(&gpus, args.generations, true, |n| {
            (n * args.side, args.side)
        })?;
    }
    if args.strong > 0 {
        println!("\nstrong scaling: {0} x {0} cells", args.strong);
        table(&gpus, args.generations, false, |_| {
            (args.strong, args.strong)
        })?;
    }
    Ok(())
}

/// One scaling table: a run on each rank count, checked, with the lattice `shape(n)`
/// (rows, side) for `n` ranks. Weak scaling (each device the same share): efficiency is
/// one device's time a generation over n's. Strong (one lattice): speed-up is one
/// device's time over n's, efficiency the speed-up over n.
fn table(
    gpus: &[usize],
    generations: usize,
    weak: bool,
    shape: impl Fn(usize) -> (usize, usize),
) -> Result<(), Box<dyn Error>> {
    println!(
        "{:>6} {:>16} {:>12} {:>12} {:>10} {:>11}",
        "ranks", "lattice", "ms / gen", "Gcells/s", "speed-up", "efficiency"
    );
    // The one-device run: the time to compare with, and (strong) the lattice to check.
    let mut one: Option<(f64, Option<Run>)> = None;
    for &n in gpus {
        let (rows, side) = shape(n);
        let devices = Devices::new(n)?.with_timeout(Duration::from_secs(300));
        let run = run_world(&devices, rows, side, generations)?;
        let reference = match &one {
            Some((_, Some(run1))) => Some(run1),
            _ => None,
        };
        check(&run, rows, side, generations, reference)?;
        let t = run.seconds;
        let rate = (rows * side) as f64 / t / 1e9;
        if n == 1 {
            one = Some((t, if weak { None } else { Some(run) }));
        }
        let (speed_up, efficiency) = match &one {
            Some((t1, _)) if weak => (n as f64 * t1 / t, t1 / t),
            Some((t1, _)) => (t1 / t, t1 / t / n as f64),
            None => (f64::NAN, f64::NAN),
        };
        println!(
            "{n:>6} {:>16} {:>12.3} {rate:>12.1} {speed_up:>10.2} {:>10.1}%",
            format!("{rows} x {side}"),
            t * 1e3,
            efficiency * 100.0
        );
    }
    Ok(())
}

/// `rows x side` cells over `devices`, `generations` generations.
fn run_world(
    devices: &Devices,
    rows: usize,
    side: usize,
    generations: usize,
) -> Result<Run, Box<dyn Error>> {
    let ranks = devices.len();
    if !rows.is_multiple_of(ranks) || rows / ranks < 2 {
        return Err(
            format!("{rows} rows do not split into {ranks} bands of 2 rows or more").into(),
        );
    }
    let out = devices.run(|comm| rank_run(comm, rows, side, generations))?;
    let seconds = out.iter().map(|(s, _)| *s).fold(0.0, f64::max);
    Ok(Run {
        seconds,
        bands: out.into_iter().map(|(_, band)| band).collect(),
    })
}

/// Under a launcher: this process's band, its time, and a check against the CPU when the
/// lattice is small (rank 0 prints).
fn under_launcher(args: &Args) -> Result<(), Box<dyn Error>> {
    let comm = Communicator::from_env()?;
    let (rows, side) = (args.side * comm.size(), args.side);
    let (seconds, band) = rank_run(&comm, rows, side, args.generations)?;
    let dev = comm.device();
    let mut t = dev.upload(&[seconds])?;
    comm.all_reduce(dev, &mut t, warpspeed::ReduceOp::Max)?;
    let seconds = t.download()?[0];
    let mut all = dev.zeros::<i32>(rows * side)?;
    if rows * side <= 1 << 22 {
        let band = dev.upload(&band)?;
        comm.all_gather(dev, &band, &mut all)?;
        let want = cpu_reference(rows, side, args.generations);
        if all.download()? != want {
            return Err(format!("rank {}: the lattice differs from the CPU's", comm.rank()).into());
        }
    }
    comm.synchronize()?;
    if comm.rank() == 0 {
        println!(
            "{} ranks, {rows} x {side}: {:.3} ms a generation, {:.1} Gcells/s{}",
            comm.size(),
            seconds * 1e3,
            (rows * side) as f64 / seconds / 1e9,
            if rows * side <= 1 << 22 {
                ", as the CPU's"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// One rank's band of `rows / size` rows: seeded, `generations` generations with the halo
/// exchange overlapping the inner rows, timed; the band comes back to the host.
fn rank_run(
    comm: &Communicator,
    rows: usize,
    side: usize,
    generations: usize,
) -> warpspeed::Result<(f64, Vec<i32>)> {
    let (dev, rank, size) = (comm.device(), comm.rank(), comm.size());
    let band = rows / size;
    let (up, down) = ((rank + size - 1) % size, (rank + 1) % size);
    let mut cur = dev.zeros::<i32>(band * side)?;
    let mut nxt = dev.zeros::<i32>(band * side)?;
    let mut top = dev.zeros::<i32>(side)?;
    let mut bot = dev.zeros::<i32>(side)?;
    let block = (32u32, 8u32, 1u32);
    let grid = |n_rows: usize| ((side as u32).div_ceil(32), (n_rows as u32).div_ceil(8), 1);
    let seed = LaunchConfig::new(grid(band), block);
    life_seed::launch(dev, seed, &mut cur, side as u32, (rank * band) as u32)?;
    dev.synchronize()?;
    let (inner, edge) = (dev.create_stream()?, dev.create_stream()?);
    let (s32, b32) = (side as u32, band as u32);
    let mut start = None;
    // Generation 0 is a warm-up (compilation, NCCL's connections), untimed.
    for generation in 0..generations {
        if generation == 1 {
            let (a, b) = (inner.record()?, edge.record()?);
            inner.wait(&b)?;
            edge.wait(&a)?;
            start = Some(inner.record()?);
        }
        // The edge stream: the halo exchange, then the first and last rows. Between two
        // ranks, sends and receives match in order: the last row goes first, as the
        // receiver's `top` (the row above its band) comes before its `bot`. (With one or two
        // ranks, `up` and `down` are the same rank.)
        let mut group = comm.group(&edge);
        group.send(cur.slice((band - 1) * side..), down)?;
        group.send(cur.slice(..side), up)?;
        group.recv(&mut top, up)?;
        group.recv(&mut bot, down)?;
        group.end()?;
        let cfg = LaunchConfig::new(grid(1), block);
        launch_band(
            &edge,
            cfg,
            &mut nxt.slice_mut(..side),
            &cur,
            &top,
            &bot,
            (s32, b32, 0),
        )?;
        let last = (band - 1) * side;
        launch_band(
            &edge,
            cfg,
            &mut nxt.slice_mut(last..),
            &cur,
            &top,
            &bot,
            (s32, b32, b32 - 1),
        )?;
        // The inner stream, meanwhile: every other row.
        if band > 2 {
            let cfg = LaunchConfig::new(grid(band - 2), block);
            let mut inner_rows = nxt.slice_mut(side..last);
            // Inner rows never read the halos, which the edge stream is receiving: they
            // get the band's own first row in their place, so that the two streams share
            // nothing written (the simulator refuses a launch that would).
            let no_halo = cur.slice(..side);
            launch_band(
                &inner,
                cfg,
                &mut inner_rows,
                &cur,
                &no_halo,
                &no_halo,
                (s32, b32, 1),
            )?;
        }
        // The next generation reads what both wrote, and overwrites what both read.
        let (a, b) = (inner.record()?, edge.record()?);
        inner.wait(&b)?;
        edge.wait(&a)?;
        std::mem::swap(&mut cur, &mut nxt);
    }
    let end = inner.record()?;
    end.synchronize()?;
    let seconds = match &start {
        Some(start) => end.elapsed_since(start)?.as_secs_f64() / (generations - 1) as f64,
        None => 0.0,
    };
    comm.synchronize()?;
    Ok((seconds, cur.download()?))
}

/// The whole lattice after `generations` generations on the CPU (square lattices), from
/// the same seed as `life_seed`.
fn cpu_reference(rows: usize, side: usize, generations: usize) -> Vec<i32> {
    assert_eq!(rows, side, "the CPU reference is square");
    let dev = warpspeed::Device::simulator();
    let mut cells = dev.zeros::<i32>(rows * side).expect("simulated memory");
    let grid = ((side as u32).div_ceil(32), (rows as u32).div_ceil(8), 1);
    let cfg = LaunchConfig::new(grid, (32, 8, 1));
    life_seed::launch(&dev, cfg, &mut cells, side as u32, 0).expect("the seed on the simulator");
    let initial = cells.download().expect("simulated memory");
    life_kernels::cpu_run(&initial, side, generations)
}

/// A run's bands against the CPU (small square lattices), else against one device's run
/// of the same lattice: `one` where the caller has it, else run here.
fn check(
    run: &Run,
    rows: usize,
    side: usize,
    generations: usize,
    one: Option<&Run>,
) -> Result<(), Box<dyn Error>> {
    let ranks = run.bands.len();
    let (whole, against) = if rows == side && rows * side <= 1 << 20 {
        (cpu_reference(rows, side, generations), "the CPU's Life")
    } else if ranks == 1 {
        return Ok(()); // the one-device run is the others' reference
    } else {
        let here;
        let one = match one {
            Some(one) => one,
            None => {
                here = run_world(&Devices::new(1)?, rows, side, generations)?;
                &here
            }
        };
        let whole = one.bands.concat();
        (whole, "the same lattice on one device")
    };
    let band = rows / ranks * side;
    for (r, got) in run.bands.iter().enumerate() {
        let want = &whole[r * band..(r + 1) * band];
        if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
            return Err(format!(
                "{ranks} ranks, {rows} x {side}: rank {r}'s band differs from {against} at \
                 row {}, column {}",
                r * band / side + i / side,
                i % side
            )
            .into());
        }
    }
    Ok(())
}
