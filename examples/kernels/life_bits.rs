//! Bit-packed Life: 64 cells in each `u64` word, neighbour counts by bitwise adders, and
//! several generations per launch from a shared-memory tile with a deep halo. Shared by the
//! `life` example (`--variant bits`), the bench and tests/life_bits.rs (each includes this
//! file with `#[path = "../kernels/life_bits.rs"]` or the like), beside the packing
//! kernels and host helpers and a CPU reference on packed words.
//!
//! # The lattice
//!
//! A torus of `rows` rows of `words` words each, `64 * words` cells wide: bit `b` of word
//! `w` of row `y` (`lattice[y * words + w]`) is cell `(64 * w + b, y)`, 1 alive. [`pack`]
//! and [`unpack`] on the host, [`pack_cells`] and [`unpack_cells`] on the GPU, convert
//! from and to the `i32` lattice of the naive kernels (one cell per element, row-major),
//! whose side must then be a multiple of 64.
//!
//! # One launch, `generations` generations ([`conway_bits`])
//!
//! Each block of 32x8 threads owns a tile of 32 words by 64 rows ([`TILE_WORDS`],
//! [`TILE_ROWS`]) and writes its inner 30 words by `64 - 2 * generations` rows: one word
//! of halo on the left and the right (64 cells, more than the at most 16 generations a
//! launch runs), `generations` rows of halo above and below. The block
//!
//! 1. loads the tile from global memory once, each warp one row of 32 consecutive words
//!    at a time (coalesced), wrapping around the torus;
//! 2. runs the generations in shared memory, between two halves of one shared array
//!    (ping-pong, one barrier per generation). Generation `g` computes tile rows `g ..
//!    64 - g` only: the tile shrinks by one row at the top and the bottom each generation,
//!    since a row's next state needs the rows above and below it, and the halo rows, which
//!    lack them, grow stale from the edge inwards. The same happens inside the two halo
//!    words, one bit per generation from their outer edges: a halo word's 64 bits outlast
//!    16 generations, so the words are computed whole;
//! 3. writes its inner words back, once.
//!
//! So a launch reads the lattice once (plus the halo) and writes it once per `generations`
//! generations, and between the two it is arithmetic on registers and shared memory.
//!
//! # Neighbour counts by bitwise adders (carry-save)
//!
//! A thread owns one word column of eight tile rows (a strip) and walks down it with a
//! window of three rows. For each row it reads the word `c` once from shared memory and
//! its neighbours' edge bits from the lanes left and right (`shfl_up_sync`,
//! `shfl_down_sync`: one 32-bit shuffle each), forms the words of the west and east
//! neighbours (`w = c << 1 | ..`, `e = c >> 1 | ..`), and adds the three with one full
//! adder, 64 cells at once: the row sum `w + c + e` (0..3) as two bit planes
//! ([`row_sums`]). The nine-cell sum of a cell is the sum of the row sums of its row and
//! the rows above and below (three two-bit numbers, one more full adder per plane), and the
//! rule reads it without finishing the count: a cell is alive next when the nine-cell sum
//! is 3, or 4 and it is alive ([`next_cells`]). That is Life's rule, counting the cell
//! itself: 3 live neighbours, or 2 and alive.
//!
//! # Checked at no cost
//!
//! Every index is proven in bounds (docs/bounds.md): the lattice's lengths are declared
//! `#[len(rows * words)]` and every lattice index is `y * words + x` with `y = .. % rows`
//! and `x = .. % words`; the block shape is declared `block = (32, 8)`, so the tile's
//! column is `thread_idx().x <= 31` and a strip's rows `thread_idx().y * 8 + k <= 63`;
//! the tile's sizes are literals (the prover does not know a constant's value), 132 rows:
//! two halves of 66, tile row `r` at half row `r + 1`, so the window walks half rows `a`
//! from `lo` (tile row `lo - 1`) with no subtraction, and writes half row `a - 1` where
//! `a >= lo + 2` is known. Each kernel exists twice, [`checked`] (the default, re-exported here) and [`unchecked`],
//! written once by `life_bits_kernels!`.
//!
//! Cells as bits and rules as bitwise logic is the approach of Fujita, Nakano and Ito ("Fast
//! Simulation of Conway's Game of Life Using Bitwise Parallel Bulk Computation on a GPU",
//! International Journal of Foundations of Computer Science 27(8), 2016), who report
//! 1.35e12 cell updates per second on a GTX TITAN X; this kernel is written afresh for
//! warpspeed (docs/life.md; its bench rows: docs/benchmarks.md, "Bit-packed Life").

#![allow(dead_code, unused_imports)] // each includer uses a part of it

use warpspeed::prelude::*;
use warpspeed::{Device, DeviceBuffer, LaunchConfig};

/// Words across a tile: one word per lane of a warp (the block's x extent).
pub const TILE_WORDS: usize = 32;
/// Rows of a tile: 8 strips (the block's y extent) of [`STRIP_ROWS`] rows.
pub const TILE_ROWS: usize = 64;
/// Rows of one thread's strip.
pub const STRIP_ROWS: usize = 8;
/// The most generations one launch runs: the tile keeps `64 - 2 * 16 = 32` rows of output.
pub const MAX_GENERATIONS: u32 = 16;
/// Generations per launch of the example and the bench: the halo then costs a quarter of
/// the tile's rows, and a launch's global traffic is shared by 8 generations.
pub const GENERATIONS_PER_LAUNCH: u32 = 8;

/// The row sums of one word `c` of a row: `w + c + e` for each of its 64 cells, where `w`
/// and `e` are the words of the west and east neighbours, as two bit planes `(s0, s1)`
/// (the sum is `s0 + 2 * s1`, 0..=3): one full adder. `left_hi` is the high half of the
/// word to the left (its bit 31 is the cell west of bit 0), `right_lo` the low half of the
/// word to the right (its bit 0 is the cell east of bit 63).
#[gpu_device]
pub fn row_sums(c: u64, left_hi: u32, right_lo: u32) -> (u64, u64) {
    let w = (c << 1) | (left_hi >> 31) as u64;
    let e = (c >> 1) | (((right_lo & 1) as u64) << 63);
    (w ^ c ^ e, (w & c) | (e & (w | c)))
}

/// The next state of the 64 cells of a word, from the row sums ([`row_sums`]) of the rows
/// above (`u0`, `u1`), of its own row (`m0`, `m1`), below (`d0`, `d1`), and the cells
/// themselves (`alive`). The nine-cell sum (the cell included) is `t0 + 2 * (p + k + 2 *
/// q)`: `t0` and the carry `k` from adding the three low planes, `p` and the carry `q` from
/// the three high planes. A cell lives next when that sum is 3 (`t0` set, `p + k == 1`,
/// `q` clear) or 4 and it is alive (`t0` clear, `p + k + 2 * q == 2`).
#[gpu_device]
pub fn next_cells(u0: u64, u1: u64, m0: u64, m1: u64, d0: u64, d1: u64, alive: u64) -> u64 {
    let t0 = u0 ^ m0 ^ d0;
    let k = (u0 & m0) | (d0 & (u0 | m0));
    let p = u1 ^ m1 ^ d1;
    let q = (u1 & m1) | (d1 & (u1 | m1));
    let one = !q & (p ^ k);
    let two = (q & !(p | k)) | (!q & p & k);
    (t0 & one) | (!t0 & alive & two)
}

/// The bit-packed kernel, written once for each set of kernel options.
macro_rules! life_bits_kernels {
    ($($opt:tt)*) => {
        /// `generations` generations (0..=16) of Life on a torus of `rows` rows of `words`
        /// words (`64 * words` cells wide), reading `cells` and writing `out`. Launch with
        /// [`config`] (blocks of 32x8 threads; the grid depends on `generations`).
        #[gpu_kernel(block = (32, 8), $($opt)*)]
        pub fn conway_bits(
            #[len(rows * words)] out: &mut [u64],
            #[len(rows * words)] cells: &[u64],
            rows: u32,
            words: u32,
            generations: u32,
        ) {
            // Two halves of 66 rows (tile row r at half row r + 1): generation g reads one
            // half and writes the other.
            let tile = SharedArray::<[u64; 32], 132>::new();
            if rows == 0 || words == 0 || generations > 16 {
                return;
            }
            let tx = thread_idx().x as usize;
            let r0 = thread_idx().y as usize * 8;
            let halo = generations as usize;
            // Tile word column tx is lattice column x0 + tx - 1, tile row r lattice row
            // y0 + r - generations, both wrapped around the torus.
            let x0 = block_idx().x * 30;
            let y0 = block_idx().y * (64 - 2 * generations);
            let x = (x0 + tx as u32 + words - 1) % words;
            let up = generations % rows;
            for k in 0..8 {
                let r = r0 + k;
                let y = (y0 + r as u32 + rows - up) % rows;
                tile[r + 1][tx] = cells[(y * words + x) as usize];
            }
            sync_threads();
            let full = 0xffff_ffffu32;
            for g in 1..=halo {
                let src = ((g - 1) & 1) * 66;
                let dst = 66 - src;
                // The strip's rows still exact after this generation, and the window of
                // rows a (half row a: tile row a - 1) that computes them.
                // (`lo` is at most 56 anyway; `.min(64)` shows the prover that `lo + 2`
                // below cannot wrap, which proves `a - 1` where `a >= lo + 2`.)
                let lo = r0.max(g).min(64);
                let hi = (r0 + 8).min(64 - g);
                let mut u0 = 0u64;
                let mut u1 = 0u64;
                let mut m0 = 0u64;
                let mut m1 = 0u64;
                let mut alive = 0u64;
                for a in lo..hi + 2 {
                    let c = tile[src + a][tx];
                    // Lane 0 and lane 31 get their own halves back: their outer bits go
                    // stale, one a generation, as the halo rows do.
                    let left_hi = shfl_up_sync(full, (c >> 32) as u32, 1);
                    let right_lo = shfl_down_sync(full, c as u32, 1);
                    let (d0, d1) = row_sums(c, left_hi, right_lo);
                    if a >= lo + 2 {
                        tile[dst + a - 1][tx] = next_cells(u0, u1, m0, m1, d0, d1, alive);
                    }
                    u0 = m0;
                    u1 = m1;
                    m0 = d0;
                    m1 = d1;
                    alive = c;
                }
                sync_threads();
            }
            // The inner 30 words of the inner rows, where they lie on the lattice.
            let fin = (halo & 1) * 66;
            if tx >= 1 && tx <= 30 && x0 + (tx as u32) <= words {
                for k in 0..8 {
                    let r = r0 + k;
                    if r >= halo && r + halo < 64 && y0 + (r as u32) < rows + generations {
                        let y = (y0 + r as u32 + rows - up) % rows;
                        out[(y * words + x) as usize] = tile[fin + r + 1][tx];
                    }
                }
            }
        }

        /// Packs an `i32` lattice (one cell per element, 1 alive) into words on the GPU:
        /// bit `b` of `out[w]` is `cells[64 * w + b] == 1`, as [`pack`] does on the host.
        /// Each warp packs a word at a time: its lanes read 32 consecutive cells twice
        /// (coalesced) and `ballot_sync` gathers them into the word's two halves. Launch
        /// with [`pack_config`] (blocks of 256 threads, any grid: the warps stride over the
        /// words).
        #[gpu_kernel(block = (256, 1, 1), $($opt)*)]
        pub fn pack_cells(#[len(words)] out: &mut [u64], #[len(64 * words)] cells: &[i32], words: usize) {
            let lane = thread_idx().x as usize % 32;
            let warp = (block_idx().x as usize * 256 + thread_idx().x as usize) / 32;
            let warps = grid_dim().x as usize * 8;
            let full = 0xffff_ffffu32;
            for w in (warp..words).step_by(warps) {
                let lo = ballot_sync(full, cells[64 * w + lane] == 1);
                let hi = ballot_sync(full, cells[64 * w + 32 + lane] == 1);
                if lane == 0 {
                    out[w] = lo as u64 | (hi as u64) << 32;
                }
            }
        }

        /// Unpacks words into one `i32` per cell (0 or 1) on the GPU, as [`unpack`] does
        /// on the host: `out[i]` is bit `i % 64` of `words[i / 64]`. One thread per cell
        /// (`LaunchConfig::for_num_elems(out.len())`).
        #[gpu_kernel($($opt)*)]
        pub fn unpack_cells(out: &mut [i32], words: &[u64]) {
            let i = grid_1d();
            let w = i / 64;
            if i < out.len() && w < words.len() {
                out[i] = (words[w] >> (i % 64) & 1) as i32;
            }
        }
    };
}

/// The launch configuration of `pack_cells` for `words` words: blocks of 256 threads
/// (8 warps), one warp per word up to 4096 blocks; more words are strided over.
pub fn pack_config(words: usize) -> LaunchConfig {
    LaunchConfig::new(words.div_ceil(8).clamp(1, 4096), 256)
}

/// The kernel with bounds checks (the default).
pub mod checked {
    use super::*;
    life_bits_kernels!();
}

/// The same kernel `#[gpu_kernel(unchecked)]`.
pub mod unchecked {
    use super::*;
    life_bits_kernels!(unchecked);
}

pub use checked::{conway_bits, pack_cells, unpack_cells};

/// The launch configuration of [`conway_bits`] for a lattice of `rows` rows of `words`
/// words and `generations` generations per launch: blocks of 32x8 threads, each writing 30
/// words by `64 - 2 * generations` rows.
///
/// # Panics
///
/// If `generations` is above [`MAX_GENERATIONS`], the lattice is empty, or it has 2^32
/// words or more (the kernel's indexes are `u32`).
pub fn config(rows: usize, words: usize, generations: u32) -> LaunchConfig {
    assert!(
        generations <= MAX_GENERATIONS,
        "conway_bits runs at most {MAX_GENERATIONS} generations per launch, not {generations}"
    );
    assert!(
        rows > 0 && words > 0,
        "conway_bits needs a lattice, got {rows} x {words} words"
    );
    assert!(
        u32::try_from(rows * words).is_ok(),
        "conway_bits indexes with u32: {rows} x {words} words is too many"
    );
    let out_words = TILE_WORDS - 2;
    let out_rows = TILE_ROWS - 2 * generations as usize;
    LaunchConfig::new(
        (words.div_ceil(out_words), rows.div_ceil(out_rows)),
        (TILE_WORDS as u32, (TILE_ROWS / STRIP_ROWS) as u32),
    )
}

/// The kernel's argument for a lattice side or width (`u32`).
fn side(v: usize) -> u32 {
    u32::try_from(v).expect("conway_bits's lattice sides are u32")
}

/// Which form of [`conway_bits`] runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    Checked,
    Unchecked,
}

/// One launch of [`conway_bits`] (the `form` asked for): `generations` generations from
/// `cells` into `out`, on a lattice of `rows` rows of `words` words.
pub fn launch(
    dev: &Device,
    form: Form,
    out: &mut DeviceBuffer<u64>,
    cells: &DeviceBuffer<u64>,
    rows: usize,
    words: usize,
    generations: u32,
) -> warpspeed::Result<()> {
    let cfg = config(rows, words, generations);
    let (r, w) = (side(rows), side(words));
    match form {
        Form::Checked => checked::conway_bits::launch(dev, cfg, out, cells, r, w, generations),
        Form::Unchecked => unchecked::conway_bits::launch(dev, cfg, out, cells, r, w, generations),
    }
}

/// `total` generations in launches of `per_launch` (the last one shorter), ping-ponging
/// between `a` (the lattice, at the start and at the end) and `b` (scratch, any content).
#[allow(clippy::too_many_arguments)]
pub fn run(
    dev: &Device,
    form: Form,
    a: &mut DeviceBuffer<u64>,
    b: &mut DeviceBuffer<u64>,
    rows: usize,
    words: usize,
    total: usize,
    per_launch: u32,
) -> warpspeed::Result<()> {
    assert!(per_launch >= 1, "at least one generation per launch");
    let mut left = total;
    while left > 0 {
        let g = per_launch.min(u32::try_from(left).unwrap_or(u32::MAX));
        launch(dev, form, b, a, rows, words, g)?;
        std::mem::swap(a, b);
        left -= g as usize;
    }
    Ok(())
}

/// The `i32` lattice of side `n` (row-major, 1 alive; `n` a multiple of 64) as words: bit
/// `b` of word `w` of row `y` is cell `(64 * w + b, y)`.
///
/// # Panics
///
/// If `n` is not a multiple of 64 or `cells` is not `n * n` long.
pub fn pack(cells: &[i32], n: usize) -> Vec<u64> {
    assert!(
        n.is_multiple_of(64),
        "bit-packed Life needs a side that is a multiple of 64, got {n}"
    );
    assert_eq!(
        cells.len(),
        n * n,
        "a lattice of side {n} has {} cells",
        n * n
    );
    cells
        .chunks(64)
        .map(|cells| {
            cells
                .iter()
                .enumerate()
                .fold(0u64, |w, (b, &c)| w | (u64::from(c == 1) << b))
        })
        .collect()
}

/// The words of [`pack`] back as one `i32` per cell (0 or 1), row-major.
pub fn unpack(words: &[u64]) -> Vec<i32> {
    words
        .iter()
        .flat_map(|&w| (0..64).map(move |b| i32::from(w >> b & 1 == 1)))
        .collect()
}

/// One generation on the CPU, on packed words (`rows` rows of `words` words): a reference
/// for lattices too large for the `i32` one (65536^2 is 16 GiB of `i32`), word-parallel
/// but independent of the kernel's adders: each of a word's eight neighbour words is added
/// into a three-bit counter per cell (8 wraps to 0, neither 2 nor 3), and a cell lives
/// when the count is 3, or 2 and it is alive. Rows split over the CPU's threads.
pub fn cpu_step_packed(cells: &[u64], rows: usize, words: usize) -> Vec<u64> {
    assert_eq!(cells.len(), rows * words, "{rows} rows of {words} words");
    let mut out = vec![0u64; rows * words];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per = rows.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (i, chunk) in out.chunks_mut(per * words).enumerate() {
            s.spawn(move || {
                for (oy, next) in chunk.chunks_mut(words).enumerate() {
                    let y = i * per + oy;
                    let row = |dy: usize| &cells[(y + dy) % rows * words..][..words];
                    let (up, mid, down) = (row(rows - 1), row(0), row(1));
                    for (w, word) in next.iter_mut().enumerate() {
                        let (wl, wr) = ((w + words - 1) % words, (w + 1) % words);
                        // The cells west of the word's 64 cells, and east, in each row.
                        let west = |r: &[u64]| r[w] << 1 | r[wl] >> 63;
                        let east = |r: &[u64]| r[w] >> 1 | r[wr] << 63;
                        let (mut s0, mut s1, mut s2) = (0u64, 0u64, 0u64);
                        for n in [
                            west(up),
                            up[w],
                            east(up),
                            west(mid),
                            east(mid),
                            west(down),
                            down[w],
                            east(down),
                        ] {
                            let c0 = s0 & n;
                            s0 ^= n;
                            let c1 = s1 & c0;
                            s1 ^= c0;
                            s2 ^= c1;
                        }
                        *word = s1 & !s2 & (s0 | mid[w]);
                    }
                }
            });
        }
    });
    out
}

/// `generations` generations of [`cpu_step_packed`].
pub fn cpu_run_packed(cells: &[u64], rows: usize, words: usize, generations: usize) -> Vec<u64> {
    let mut cells = cells.to_vec();
    for _ in 0..generations {
        cells = cpu_step_packed(&cells, rows, words);
    }
    cells
}
