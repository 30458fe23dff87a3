//! Conway's Game of Life, the kernels of the seeds, on a torus (the lattice wraps around at
//! its edges). `--variant` picks one (or `all`):
//!
//! - `naive` (default): seed 000's global-memory kernel, one thread per cell on a 2-D grid
//!   of 32x32 blocks; every generation is one launch that reads one buffer and writes the
//!   other (ping-pong), so no thread reads a cell another thread is writing.
//! - `block`: seed 000's single block of up to 32x32 threads iterating every generation in
//!   place with one launch: compute the next value, `sync_threads()`, write, `sync_threads()`.
//! - `block-shared`: the same, with the lattice copied into a shared-memory tile and back.
//! - `tiled`: seed 003's tiled kernel for any lattice size: each 32x32 block loads its tile
//!   plus a one-cell halo into a 34x34 shared tile, waits, and computes from shared memory.
//! - `texture`: seed 003's texture kernel: the lattice is a wrap-around `Texture2D`
//!   (`AddressMode::Wrap`), each thread fetches its eight neighbours through the texture
//!   cache (no shared memory, no barrier) and writes the next generation into a second
//!   texture's memory; the two textures swap (docs/textures.md).
//! - `bits`: bit-packed Life (examples/kernels/life_bits.rs): 64 cells in each `u64` word,
//!   neighbour counts by bitwise adders, and `--bits-per-launch` generations (default 8) per
//!   launch from a shared-memory tile with a deep halo; the side must be a multiple of 64.
//!   The lattice is packed on the host before the run and unpacked after it.
//!
//! The initial lattice is random (a seeded xorshift, so runs are reproducible); after the
//! last generation the result is compared cell for cell with the CPU Life (`cpu_step`), and
//! the program exits non-zero on any difference. On the GPU it prints the time per
//! generation beside the reference figure of docs/benchmarks.md ("Reference figures"); on the simulator the default sizes are small.
//!
//! ```text
//! cargo run --release --example life                       # GPU if present, else simulator
//! cargo run --release --example life -- --variant all      # every kernel, each checked
//! cargo run --release --example life -- --variant all --size 500 --generations 1000
//!                                          # seed 003's comparison: naive, tiled, texture
//! cargo run --release --example life -- --variant bits     # bit-packed, 8 generations a launch
//! WARPSPEED_BACKEND=sim cargo run --release --example life -- --size 64 --generations 50
//! cargo run --release --example life -- --variant block --gif life.gif --png life.png
//! cargo run --release --example life -- --print-cuda       # show the generated CUDA C
//! cargo run --release --example life -- --check-nvrtc      # compile every kernel, no GPU
//! ```

use std::borrow::Cow;
use std::collections::HashMap;
use std::error::Error;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};

mod common;
use common::{KernelVariant, VariantFlags, XorShift};
#[path = "kernels/life_bits.rs"]
mod life_bits;
#[path = "kernels/life.rs"]
mod life_kernels;
use life_kernels::{
    conway, conway_block, conway_block_shared, conway_texture, conway_tiled, cpu_run,
};
use warpspeed::__private::KernelDef;
use warpspeed::{AddressMode, Backend, Device, DeviceBuffer, LaunchConfig, Texture2D};

/// docs/benchmarks.md, reference figures (one H200, hand-written CUDA C): Life 16384^2, the seed's naive int32 kernel.
const ANCHOR_NAIVE_MS: f64 = 1.716;
/// docs/benchmarks.md, reference figures: Life 16384^2, shared-memory tile.
const ANCHOR_TILED_MS: f64 = 2.665;
/// docs/benchmarks.md, reference figures: Life 32x32 in one block, 100k generations (seed 000).
const ANCHOR_BLOCK_NS: f64 = 189.0;
/// Seed 003 (MATLAB's MEX Life, 500^2, on its GPU): texture memory, ms per generation.
const SEED_TEXTURE_MS: f64 = 0.025;
/// Seed 003, the same GPU: the shared-memory kernel, ms per generation.
const SEED_SHARED_MS: f64 = 0.055;
/// Fujita, Nakano and Ito (2016): bit-parallel Life on a GTX TITAN X, cell updates per second.
const FUJITA_CELLS_PER_S: f64 = 1.35e12;
/// GIF frames show at most this many cells across (the top-left corner of larger lattices).
const GIF_MAX_CELLS: usize = 1024;

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
enum Variant {
    /// One launch per generation, global memory, ping-pong buffers.
    Naive,
    /// One block (side <= 32) runs every generation in place with barriers: one launch.
    Block,
    /// As `block`, in a shared-memory tile.
    BlockShared,
    /// One launch per generation, each block's tile and halo in shared memory.
    Tiled,
    /// One launch per generation, the lattice read through a wrap-around texture.
    Texture,
    /// 64 cells a word, `--bits-per-launch` generations per launch (side: a multiple of 64).
    Bits,
    /// Every variant above, one after the other.
    All,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
            Variant::Block => "block",
            Variant::BlockShared => "block-shared",
            Variant::Tiled => "tiled",
            Variant::Texture => "texture",
            Variant::Bits => "bits",
            Variant::All => "all",
        }
    }

    /// One block iterating every generation (as opposed to one launch per generation).
    fn in_one_block(self) -> bool {
        matches!(self, Variant::Block | Variant::BlockShared)
    }
}

impl KernelVariant for Variant {
    const ALL: Variant = Variant::All;
    const EACH: &'static [Variant] = &[
        Variant::Naive,
        Variant::Block,
        Variant::BlockShared,
        Variant::Tiled,
        Variant::Texture,
        Variant::Bits,
    ];

    fn kernel(self) -> &'static KernelDef {
        match self {
            Variant::Naive => &conway::KERNEL,
            Variant::Block => &conway_block::KERNEL,
            Variant::BlockShared => &conway_block_shared::KERNEL,
            Variant::Tiled => &conway_tiled::KERNEL,
            Variant::Texture => &conway_texture::KERNEL,
            Variant::Bits => &life_bits::conway_bits::KERNEL,
            Variant::All => unreachable!("`all` is not a kernel"),
        }
    }
}

#[derive(Parser)]
#[command(
    about = "Conway's Game of Life on the GPU (or the warpspeed simulator), checked against the CPU"
)]
struct Args {
    /// Which kernel runs.
    #[arg(long, value_enum, default_value_t = Variant::Naive)]
    variant: Variant,
    /// Side of the square lattice for `naive`, `tiled`, `texture` (cells; any size, the grid is
    /// rounded up to 32x32 blocks) and `bits` (a multiple of 64). Default: 16384 on a GPU, 256 on the simulator. For
    /// `block`/`block-shared` run alone it replaces `--block-size`.
    #[arg(long)]
    size: Option<usize>,
    /// Side of the lattice for `block` and `block-shared` (1..=32: one thread per cell, one
    /// block). When one of them runs alone, `--size` sets it too.
    #[arg(long, default_value_t = 32)]
    block_size: usize,
    /// Generations to run. Default: `naive`/`tiled` 100 on a GPU, 40 on the simulator;
    /// `block`/`block-shared` 100000 on a GPU, 1000 on the simulator.
    #[arg(long)]
    generations: Option<usize>,
    /// Generations per launch of `bits` (1..=16; the last launch runs what is left).
    #[arg(long, default_value_t = life_bits::GENERATIONS_PER_LAUNCH)]
    bits_per_launch: u32,
    /// Seed of the random initial lattice.
    #[arg(long, default_value_t = 2024)]
    seed: u64,
    /// Fraction of cells alive at the start.
    #[arg(long, default_value_t = 0.25)]
    density: f64,
    /// Write the final lattice as a PNG (white = alive; small lattices scaled up). With
    /// several variants the variant's name is added to the file name.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Write the run as an animated GIF, one frame per generation (generation 0 first),
    /// recomputed one generation per launch after the timed run; small lattices are
    /// scaled up, lattices wider than 1024 cells show their top-left 1024x1024 corner.
    #[arg(long)]
    gif: Option<PathBuf>,
    /// At most this many generations go into the GIF.
    #[arg(long, default_value_t = 1000)]
    gif_max_frames: usize,
    /// Draw the final lattice as text (only sensible for small sizes).
    #[arg(long)]
    show: bool,
    #[command(flatten)]
    flags: VariantFlags,
}

fn main() -> ExitCode {
    let args = Args::parse();
    args.flags.main(args.variant, || run(&args))
}

fn run(args: &Args) -> Result<bool, warpspeed::Error> {
    let dev = common::open_device()?;
    let variants = args.variant.expand();
    let mut references: HashMap<(usize, usize), Vec<i32>> = HashMap::new();
    let mut all_ok = true;
    for &v in &variants {
        all_ok &= run_variant(&dev, args, v, variants.len() > 1, &mut references)?;
    }
    if variants.len() > 1 {
        common::print_verdict(
            all_ok,
            "OK: every variant matches the CPU reference",
            "FAILED: a variant differs from the CPU reference",
        );
    }
    Ok(all_ok)
}

/// The random initial lattice of side `n` (the same for every variant of one run).
fn initial_lattice(args: &Args, n: usize) -> Vec<i32> {
    let mut rng = XorShift::new(args.seed);
    (0..n * n)
        .map(|_| i32::from(rng.next_f64() < args.density))
        .collect()
}

fn run_variant(
    dev: &Device,
    args: &Args,
    v: Variant,
    several: bool,
    references: &mut HashMap<(usize, usize), Vec<i32>>,
) -> Result<bool, warpspeed::Error> {
    let gpu = dev.backend() == Backend::Cuda;
    let n = if v.in_one_block() {
        // `--size` sets the side when a one-block variant runs alone.
        if several {
            args.block_size
        } else {
            args.size.unwrap_or(args.block_size)
        }
    } else {
        args.size.unwrap_or(if gpu { 16384 } else { 256 })
    };
    if n == 0 || (v.in_one_block() && n > 32) {
        eprintln!(
            "error: {} needs a lattice side of {}, got {n}",
            v.name(),
            if v.in_one_block() {
                "1..=32 (one thread per cell in one block of at most 32x32 threads)"
            } else {
                "at least 1"
            }
        );
        return Ok(false);
    }
    if v == Variant::Bits && !n.is_multiple_of(64) {
        if several {
            println!("life bits: skipped, the side {n} is not a multiple of 64");
            return Ok(true);
        }
        eprintln!("error: bits needs a lattice side that is a multiple of 64, got {n}");
        return Ok(false);
    }
    if v == Variant::Bits && !(1..=life_bits::MAX_GENERATIONS).contains(&args.bits_per_launch) {
        eprintln!(
            "error: --bits-per-launch must be 1..={}, got {}",
            life_bits::MAX_GENERATIONS,
            args.bits_per_launch
        );
        return Ok(false);
    }
    let generations = args.generations.unwrap_or(match (v.in_one_block(), gpu) {
        (true, true) => 100_000,
        (true, false) => 1000,
        (false, true) => 100,
        (false, false) => 40,
    });
    let initial = initial_lattice(args, n);

    let (result, elapsed, cfg) = if v.in_one_block() {
        run_in_one_block(dev, v, &initial, n, generations)?
    } else if v == Variant::Bits {
        run_bits(dev, &initial, n, generations, args.bits_per_launch)?
    } else {
        run_ping_pong(dev, v, &initial, n, generations)?
    };

    let expected = references
        .entry((n, generations))
        .or_insert_with(|| cpu_run(&initial, n, generations));

    let alive = result.iter().filter(|&&c| c == 1).count();
    println!(
        "life {}: {n}x{n} lattice, {generations} generations on {cfg}, {:.3} ms; \
         {alive} of {} cells alive at the end",
        v.name(),
        elapsed.as_secs_f64() * 1e3,
        n * n
    );
    if generations > 0 {
        print_timing(dev, v, n, generations, elapsed);
    }
    if args.show {
        for row in result.chunks(n) {
            let line: String = row
                .iter()
                .map(|&c| if c == 1 { '#' } else { '.' })
                .collect();
            println!("{line}");
        }
    }

    let mut ok = true;
    let wrong: Vec<usize> = (0..n * n).filter(|&i| result[i] != expected[i]).collect();
    if let Some(&first) = wrong.first() {
        eprintln!(
            "MISMATCH ({}): {} of {} cells differ from the CPU Life; first at (x={}, y={}): \
             got {}, expected {}",
            v.name(),
            wrong.len(),
            n * n,
            first % n,
            first / n,
            result[first],
            expected[first]
        );
        ok = false;
    } else {
        println!("OK ({}): matches the CPU reference cell for cell", v.name());
    }

    if let Some(path) = &args.png {
        let path = per_variant(path, v, several);
        match write_png(&path, &result, n) {
            Ok(()) => println!("wrote {}", path.display()),
            Err(e) => {
                eprintln!("error: writing {}: {e}", path.display());
                ok = false;
            }
        }
    }
    if let Some(path) = &args.gif {
        let path = per_variant(path, v, several);
        match write_gif(
            &path,
            dev,
            v,
            &initial,
            n,
            generations,
            args.gif_max_frames,
            &result,
        ) {
            Ok(true) => println!("wrote {}", path.display()),
            Ok(false) => ok = false,
            Err(e) => {
                eprintln!("error: writing {}: {e}", path.display());
                ok = false;
            }
        }
    }
    Ok(ok)
}

/// ms (or ns) per generation, and on the GPU the reference figure (docs/benchmarks.md) beside it.
fn print_timing(dev: &Device, v: Variant, n: usize, generations: usize, elapsed: Duration) {
    let per_gen = elapsed.as_secs_f64() / generations as f64;
    let gcells = (n * n) as f64 / per_gen / 1e9;
    let on = if dev.backend() == Backend::Cuda {
        "GPU"
    } else {
        "simulator"
    };
    let anchor = match v {
        Variant::Naive => format!(
            "reference (docs/benchmarks.md, H200, the seed's naive kernel in hand CUDA C, 16384^2): {ANCHOR_NAIVE_MS} ms/gen"
        ),
        Variant::Tiled => format!(
            "reference (docs/benchmarks.md, H200, shared-memory tile in hand CUDA C, 16384^2): {ANCHOR_TILED_MS} ms/gen; seed 003 (500^2, its GPU): {SEED_SHARED_MS} ms/gen"
        ),
        Variant::Texture => format!(
            "reference (seed 003, MATLAB MEX on its GPU, 500^2): texture {SEED_TEXTURE_MS} ms/gen, shared memory {SEED_SHARED_MS} ms/gen"
        ),
        Variant::Bits => format!(
            "reference: Fujita, Nakano and Ito's bit-parallel Life on a GTX TITAN X (2016), \
             {:.0} Gcell/s",
            FUJITA_CELLS_PER_S / 1e9
        ),
        _ => format!(
            "reference (docs/benchmarks.md, H200, seed 000's 32x32 block, 100k generations): {ANCHOR_BLOCK_NS} ns/gen"
        ),
    };
    let time = if v.in_one_block() && dev.backend() == Backend::Cuda {
        format!("{:.1} ns/generation", per_gen * 1e9)
    } else if v.in_one_block() {
        format!("{:.1} us/generation", per_gen * 1e6)
    } else {
        format!("{:.4} ms/generation", per_gen * 1e3)
    };
    if dev.backend() == Backend::Cuda {
        println!("  {on}: {time} ({gcells:.2} Gcell/s); {anchor}");
    } else {
        println!("  {on}: {time} ({:.3} Mcell/s)", gcells * 1e3);
    }
}

/// The naive kernel's lattice side, a `u32` (its coordinates are 32-bit: at most 65535).
fn side_u32(n: usize) -> u32 {
    u32::try_from(n)
        .ok()
        .filter(|&n| n <= 65535)
        .expect("the naive kernel's lattice side is at most 65535")
}

/// One generation of `v` (a one-launch-per-generation variant): reads `cells`, writes `out`.
fn step(
    dev: &Device,
    v: Variant,
    cfg: LaunchConfig,
    out: &mut DeviceBuffer<i32>,
    cells: &DeviceBuffer<i32>,
    n: usize,
) -> Result<(), warpspeed::Error> {
    match v {
        Variant::Naive => conway::launch(dev, cfg, out, cells, side_u32(n)),
        Variant::Tiled => conway_tiled::launch(dev, cfg, out, cells, n),
        Variant::Texture => unreachable!("texture steps between textures (TexturePair)"),
        _ => unreachable!("{} runs in one block", v.name()),
    }
}

fn grid_config(n: usize) -> LaunchConfig {
    let blocks = n.div_ceil(32) as u32;
    LaunchConfig::new((blocks, blocks), (32, 32))
}

/// `texture`: the lattice and its next generation as two wrap-around textures. A
/// generation reads `cur` through the texture and writes `next`'s memory (rows
/// `next.pitch()` apart), then the two swap: no copy between generations.
struct TexturePair {
    cur: Texture2D<i32>,
    next: Texture2D<i32>,
}

impl TexturePair {
    /// `initial` in `cur`; `next` poisoned (-1), so a cell no thread writes shows.
    fn new(dev: &Device, initial: &[i32], n: usize) -> Result<Self, warpspeed::Error> {
        Ok(TexturePair {
            cur: Texture2D::upload(dev, initial, n, n, AddressMode::Wrap)?,
            next: Texture2D::upload(dev, &vec![-1; n * n], n, n, AddressMode::Wrap)?,
        })
    }

    fn step(&mut self, dev: &Device, cfg: LaunchConfig) -> Result<(), warpspeed::Error> {
        let pitch = u32::try_from(self.next.pitch()).expect("a texture row fits a u32");
        conway_texture::launch(dev, cfg, &mut self.next.memory_mut(), &self.cur, pitch)?;
        std::mem::swap(&mut self.cur, &mut self.next);
        Ok(())
    }
}

/// `texture`: one launch per generation between two textures ([`TexturePair`]).
fn run_texture(
    dev: &Device,
    initial: &[i32],
    n: usize,
    generations: usize,
) -> Result<(Vec<i32>, Duration, LaunchConfig), warpspeed::Error> {
    let cfg = grid_config(n);
    if dev.backend() == Backend::Cuda {
        // Warm-up: NVRTC compiles and loads the kernel here, outside the timing.
        TexturePair::new(dev, initial, n)?.step(dev, cfg)?;
        dev.synchronize()?;
    }
    let mut pair = TexturePair::new(dev, initial, n)?;
    dev.synchronize()?;
    let start = Instant::now();
    for _ in 0..generations {
        pair.step(dev, cfg)?;
    }
    dev.synchronize()?;
    let elapsed = start.elapsed();
    Ok((pair.cur.download()?, elapsed, cfg))
}

/// `naive` and `tiled`: one launch per generation, ping-pong between two buffers
/// (`texture`: between two textures).
fn run_ping_pong(
    dev: &Device,
    v: Variant,
    initial: &[i32],
    n: usize,
    generations: usize,
) -> Result<(Vec<i32>, Duration, LaunchConfig), warpspeed::Error> {
    if v == Variant::Texture {
        return run_texture(dev, initial, n, generations);
    }
    let poison = vec![-1i32; n * n]; // every cell must be written
    let mut a = dev.upload(initial)?;
    let mut b = dev.upload(&poison)?;
    let cfg = grid_config(n);
    if dev.backend() == Backend::Cuda {
        // Warm-up: NVRTC compiles and loads the kernel here, outside the timing.
        step(dev, v, cfg, &mut b, &a, n)?;
        dev.synchronize()?;
        b.copy_from_host(&poison)?;
    }
    let start = Instant::now();
    for _ in 0..generations {
        step(dev, v, cfg, &mut b, &a, n)?;
        std::mem::swap(&mut a, &mut b);
    }
    dev.synchronize()?;
    let elapsed = start.elapsed();
    Ok((a.download()?, elapsed, cfg))
}

/// `bits`: the lattice packed on the GPU (`pack_cells`: 64 cells a word), `generations`
/// generations in launches of `per_launch`, ping-pong between two buffers (the second
/// poisoned), unpacked on the GPU (`unpack_cells`) at the end. The packing is outside the
/// timing.
fn run_bits(
    dev: &Device,
    initial: &[i32],
    n: usize,
    generations: usize,
    per_launch: u32,
) -> Result<(Vec<i32>, Duration, LaunchConfig), warpspeed::Error> {
    let words = n / 64;
    let form = life_bits::Form::Checked;
    let cells = dev.upload(initial)?;
    let poison = vec![0xdead_beef_dead_beef_u64; n * words];
    let mut a = dev.upload(&poison)?;
    let mut b = dev.upload(&poison)?;
    let pack = |a: &mut DeviceBuffer<u64>| {
        life_bits::pack_cells::launch(dev, life_bits::pack_config(n * words), a, &cells, n * words)
    };
    if dev.backend() == Backend::Cuda {
        // Warm-up: NVRTC compiles and loads the kernel here, outside the timing.
        pack(&mut a)?;
        life_bits::run(dev, form, &mut a, &mut b, n, words, 1, per_launch)?;
        dev.synchronize()?;
        b.copy_from_host(&poison)?;
    }
    pack(&mut a)?;
    dev.synchronize()?;
    let start = Instant::now();
    life_bits::run(dev, form, &mut a, &mut b, n, words, generations, per_launch)?;
    dev.synchronize()?;
    let elapsed = start.elapsed();
    let mut result = dev.upload(&vec![-1i32; n * n])?;
    life_bits::unpack_cells::launch(dev, LaunchConfig::for_num_elems(n * n), &mut result, &a)?;
    let cfg = life_bits::config(n, words, per_launch.min(generations.max(1) as u32));
    Ok((result.download()?, elapsed, cfg))
}

/// One launch of `block`/`block-shared` running `generations` generations in place.
fn launch_in_one_block(
    dev: &Device,
    v: Variant,
    cells: &mut DeviceBuffer<i32>,
    n: usize,
    generations: u32,
) -> Result<LaunchConfig, warpspeed::Error> {
    let cfg = LaunchConfig::new(1, (n as u32, n as u32));
    match v {
        Variant::Block => conway_block::launch(dev, cfg, cells, n, generations)?,
        Variant::BlockShared => conway_block_shared::launch(dev, cfg, cells, n, generations)?,
        _ => unreachable!("{} runs one launch per generation", v.name()),
    }
    Ok(cfg)
}

/// `block` and `block-shared`: all generations in one launch of one block.
fn run_in_one_block(
    dev: &Device,
    v: Variant,
    initial: &[i32],
    n: usize,
    generations: usize,
) -> Result<(Vec<i32>, Duration, LaunchConfig), warpspeed::Error> {
    let generations = u32::try_from(generations).expect("--generations must fit in a u32");
    if dev.backend() == Backend::Cuda {
        // Warm-up (compile and load), zero generations on a scratch copy.
        let mut scratch = dev.upload(initial)?;
        launch_in_one_block(dev, v, &mut scratch, n, 0)?;
        dev.synchronize()?;
    }
    let mut cells = dev.upload(initial)?;
    let start = Instant::now();
    let cfg = launch_in_one_block(dev, v, &mut cells, n, generations)?;
    dev.synchronize()?;
    let elapsed = start.elapsed();
    Ok((cells.download()?, elapsed, cfg))
}

/// `out.png` -> `out-tiled.png` when several variants write files.
fn per_variant(path: &Path, v: Variant, several: bool) -> PathBuf {
    if !several {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .map_or_else(|| "life".to_string(), |s| s.to_string_lossy().into_owned());
    let mut name = format!("{stem}-{}", v.name());
    if let Some(ext) = path.extension() {
        name.push('.');
        name.push_str(&ext.to_string_lossy());
    }
    path.with_file_name(name)
}

/// Pixels per cell: small lattices come out at least 256 pixels wide.
fn scale_for(side: usize) -> usize {
    (256 / side).max(1)
}

fn write_png(path: &Path, cells: &[i32], n: usize) -> Result<(), Box<dyn Error>> {
    let scale = scale_for(n);
    let w = n * scale;
    let width = u32::try_from(w)?;
    let mut pixels = vec![0u8; w * w];
    for (py, row) in pixels.chunks_mut(w).enumerate() {
        let cells_row = &cells[(py / scale) * n..][..n];
        for (px, p) in row.iter_mut().enumerate() {
            *p = if cells_row[px / scale] == 1 { 255 } else { 0 };
        }
    }
    let image = image::GrayImage::from_raw(width, width, pixels).ok_or("image size")?;
    image.save_with_format(path, image::ImageFormat::Png)?;
    Ok(())
}

/// The run as an animated GIF: generation 0, then one frame per generation, recomputed
/// with one launch per generation (for `block`/`block-shared` and `bits`: the same kernel
/// with `generations = 1`), each frame encoded as soon as it is downloaded, so memory holds one
/// lattice and one frame. When every generation is in the GIF, its last frame must equal
/// the timed run's result.
#[allow(clippy::too_many_arguments)]
fn write_gif(
    path: &Path,
    dev: &Device,
    v: Variant,
    initial: &[i32],
    n: usize,
    generations: usize,
    max_frames: usize,
    result: &[i32],
) -> Result<bool, Box<dyn Error>> {
    let side = n.min(GIF_MAX_CELLS);
    let scale = scale_for(side);
    let w = side * scale;
    let width = u16::try_from(w)?;
    let last = generations.min(max_frames);
    if last < generations {
        println!(
            "gif: {generations} generations, the GIF shows the first {last} (--gif-max-frames)"
        );
    }
    if side < n {
        println!("gif: {n}x{n} lattice, the GIF shows its top-left {side}x{side} corner");
    }
    let palette = [0u8, 0, 0, 255, 255, 255]; // index 0 dead (black), 1 alive (white)
    let mut encoder =
        gif::Encoder::new(BufWriter::new(File::create(path)?), width, width, &palette)?;
    encoder.set_repeat(gif::Repeat::Infinite)?;
    let mut frame_pixels = vec![0u8; w * w];
    let mut write_frame = |cells: &[i32]| -> Result<(), gif::EncodingError> {
        for (py, row) in frame_pixels.chunks_mut(w).enumerate() {
            let cells_row = &cells[(py / scale) * n..][..side];
            for (px, p) in row.iter_mut().enumerate() {
                *p = u8::from(cells_row[px / scale] == 1);
            }
        }
        let frame = gif::Frame {
            width,
            height: width,
            delay: 5, // 1/100 s units: 20 generations per second
            buffer: Cow::Borrowed(&frame_pixels),
            ..gif::Frame::default()
        };
        encoder.write_frame(&frame)
    };

    write_frame(initial)?;
    let mut host = vec![0i32; n * n];
    if v.in_one_block() {
        let mut cells = dev.upload(initial)?;
        for _ in 0..last {
            launch_in_one_block(dev, v, &mut cells, n, 1)?;
            cells.copy_to_host(&mut host)?;
            write_frame(&host)?;
        }
    } else if v == Variant::Bits {
        let words = n / 64;
        let mut a = dev.upload(&life_bits::pack(initial, n))?;
        let mut b = dev.upload(&vec![0u64; n * words])?;
        for _ in 0..last {
            life_bits::run(
                dev,
                life_bits::Form::Checked,
                &mut a,
                &mut b,
                n,
                words,
                1,
                1,
            )?;
            host = life_bits::unpack(&a.download()?);
            write_frame(&host)?;
        }
    } else if v == Variant::Texture {
        let cfg = grid_config(n);
        let mut pair = TexturePair::new(dev, initial, n)?;
        for _ in 0..last {
            pair.step(dev, cfg)?;
            host = pair.cur.download()?;
            write_frame(&host)?;
        }
    } else {
        let cfg = grid_config(n);
        let mut a = dev.upload(initial)?;
        let mut b = dev.upload(&vec![-1i32; n * n])?;
        for _ in 0..last {
            step(dev, v, cfg, &mut b, &a, n)?;
            std::mem::swap(&mut a, &mut b);
            a.copy_to_host(&mut host)?;
            write_frame(&host)?;
        }
    }
    if last == generations && last > 0 && host != result {
        eprintln!(
            "MISMATCH ({}): the GIF's last generation (one launch per generation) differs from \
             the timed run",
            v.name()
        );
        return Ok(false);
    }
    Ok(true)
}
