//! The Life kernels of the seeds, shared by the `life`, `bench` and `sim_speed` examples
//! (each includes this file with `#[path = "kernels/life.rs"] mod life_kernels;`), and the
//! CPU reference they are checked against.
//!
//! Seed 003's texture kernel (`conway_texture`) reads the lattice through a wrap-around
//! `Texture2D`.
//!
//! Each kernel exists twice: [`checked`] (the default, bounds-checked; also re-exported
//! here under the same names) and [`unchecked`] (`#[gpu_kernel(unchecked)]`, with
//! `conway_unchecked` the old name of `unchecked::conway`), written once by
//! `life_kernels!`; `conway_undeclared` is the checked naive kernel without `#[len]`
//! declarations. The bench times what each costs.

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use warpspeed::prelude::*;

/// Seed 000's naive Life, written once: `life_naive!(nbrs, conway, [], (n * n))` gives the
/// kernels with bounds checks (the default) and the slices' lengths declared with
/// `#[len(n * n)]`, so the launch checks them once and the indexes, proven below `n * n`,
/// need no check of their own; without the last argument every index is checked;
/// `[unchecked]` gives the kernels without checks. The bench measures what each costs.
macro_rules! life_naive {
    ($nbrs:ident, $conway:ident, [$($option:tt)*] $(, $len:tt)?) => {
        /// Live neighbours of cell (x, y) on an n x n torus. Adding `n - 1` instead of
        /// subtracting 1 keeps the unsigned arithmetic from going below zero at the edge.
        ///
        /// Coordinates are `u32`, as the seed's `int`s (the u32 idiom, docs/bounds.md): a
        /// 32-bit `%` and multiply cost a fraction of 64-bit ones, and a lattice of up to
        /// 65535^2 cells keeps `y * n + x` below 2^32. The index is widened (`as usize`)
        /// only where it meets the slice.
        #[gpu_device($($option)*)]
        pub fn $nbrs($(#[len $len])? cells: &[i32], x: u32, y: u32, n: u32) -> i32 {
            // A cell off the lattice has no neighbours. Saying so up front (Rust's
            // assert-first idiom) also tells the bounds prover that x, y < n, so n >= 1 and
            // every wrapped coordinate is below n: no index below needs its own check.
            if x >= n || y >= n {
                return 0;
            }
            let xm = (x + n - 1) % n;
            let xp = (x + 1) % n;
            let ym = (y + n - 1) % n;
            let yp = (y + 1) % n;
            cells[(ym * n + xm) as usize]
                + cells[(ym * n + x) as usize]
                + cells[(ym * n + xp) as usize]
                + cells[(y * n + xm) as usize]
                + cells[(y * n + xp) as usize]
                + cells[(yp * n + xm) as usize]
                + cells[(yp * n + x) as usize]
                + cells[(yp * n + xp) as usize]
        }

        /// One generation (seed 000's naive kernel): a live cell stays alive with 2 or 3
        /// live neighbours, a dead cell comes alive with exactly 3. Reads `cells`, writes
        /// `out`. The lattice side `n` is at most 65535 (u32 coordinates, see `nbrs`).
        #[gpu_kernel($($option)*)]
        pub fn $conway($(#[len $len])? out: &mut [i32], $(#[len $len])? cells: &[i32], n: u32) {
            let x = block_idx().x * block_dim().x + thread_idx().x;
            let y = block_idx().y * block_dim().y + thread_idx().y;
            if x >= n || y >= n {
                return;
            }
            let k: i32 = $nbrs(cells, x, y, n);
            let alive = cells[(y * n + x) as usize] == 1;
            out[(y * n + x) as usize] = if k == 3 || (alive && k == 2) { 1 } else { 0 };
        }
    };
}

life_naive!(nbrs_undeclared, conway_undeclared, []);

/// The CPU reference: one generation of Life on an n x n torus.
pub fn cpu_step(cells: &[i32], n: usize) -> Vec<i32> {
    let mut out = vec![0; n * n];
    for y in 0..n {
        for x in 0..n {
            let mut k = 0;
            for dy in [n - 1, 0, 1] {
                for dx in [n - 1, 0, 1] {
                    if dx != 0 || dy != 0 {
                        k += cells[((y + dy) % n) * n + (x + dx) % n];
                    }
                }
            }
            let alive = cells[y * n + x] == 1;
            out[y * n + x] = i32::from(k == 3 || (alive && k == 2));
        }
    }
    out
}

/// Every Life kernel of the seeds with the kernel options `$opt` (none: checked;
/// `unchecked`): the naive one with its lengths declared, and the one-block and tiled ones.
macro_rules! life_kernels {
    ($($opt:tt)*) => {
        life_naive!(nbrs, conway, [$($opt)*], (n * n));

        /// Seed 000's second kernel: one block of n x n threads (n <= 32, one thread per cell)
        /// runs `generations` generations in place in global memory, with a single launch. Every
        /// thread first computes its cell's next value, the block waits (`sync_threads`) until all
        /// have read the lattice, the thread writes, and the block waits again before anyone reads
        /// the next generation. Launch with one block of (n, n) threads.
        #[gpu_kernel($($opt)*)]
        pub fn conway_block(#[len(n * n)] cells: &mut [i32], n: usize, generations: u32) {
            let x = thread_idx().x as usize;
            let y = thread_idx().y as usize;
            // The block is the lattice: a thread outside it has no cell (as in `nbrs`, saying
            // so first also proves every index below `n * n`).
            if x >= n || y >= n {
                return;
            }
            // The wrapped neighbour coordinates do not change between generations: computed once.
            let xm = (x + n - 1) % n;
            let xp = (x + 1) % n;
            let ym = (y + n - 1) % n;
            let yp = (y + 1) % n;
            for _generation in 0..generations {
                let k = cells[ym * n + xm]
                    + cells[ym * n + x]
                    + cells[ym * n + xp]
                    + cells[y * n + xm]
                    + cells[y * n + xp]
                    + cells[yp * n + xm]
                    + cells[yp * n + x]
                    + cells[yp * n + xp];
                let alive = cells[y * n + x] == 1;
                let next = if k == 3 || (alive && k == 2) { 1 } else { 0 };
                sync_threads();
                cells[y * n + x] = next;
                sync_threads();
            }
        }

        /// Seed 000's shared-memory kernel: the same as `conway_block`, but the lattice is copied
        /// into a shared 32x32 tile first, the generations run in shared memory, and the tile is
        /// copied back at the end. Launch with one block of (n, n) threads, n <= 32.
        #[gpu_kernel($($opt)*)]
        pub fn conway_block_shared(#[len(n * n)] cells: &mut [i32], n: usize, generations: u32) {
            let lattice = SharedArray::<[i32; 32], 32>::new();
            let x = thread_idx().x as usize;
            let y = thread_idx().y as usize;
            // One thread per cell of a lattice that fits the 32x32 tile: saying so first
            // proves every index below (a block of more than 32x32 threads cannot be
            // launched anyway).
            if n > 32 || x >= n || y >= n {
                return;
            }
            let xm = (x + n - 1) % n;
            let xp = (x + 1) % n;
            let ym = (y + n - 1) % n;
            let yp = (y + 1) % n;
            lattice[y][x] = cells[y * n + x];
            sync_threads();
            for _generation in 0..generations {
                let k = lattice[ym][xm]
                    + lattice[ym][x]
                    + lattice[ym][xp]
                    + lattice[y][xm]
                    + lattice[y][xp]
                    + lattice[yp][xm]
                    + lattice[yp][x]
                    + lattice[yp][xp];
                let alive = lattice[y][x] == 1;
                let next = if k == 3 || (alive && k == 2) { 1 } else { 0 };
                sync_threads();
                lattice[y][x] = next;
                sync_threads();
            }
            cells[y * n + x] = lattice[y][x];
        }

        /// Seed 003's tiled kernel, for a lattice of any size: each 32x32 block loads its tile plus
        /// a one-cell halo (34x34 cells, wrapped around the torus) into shared memory, waits, and
        /// computes its 32x32 cells from shared memory alone. One generation per launch (reads
        /// `cells`, writes `out`); launch with blocks of (32, 32) threads covering the lattice.
        #[gpu_kernel(block = (32, 32), $($opt)*)]
        pub fn conway_tiled(#[len(n * n)] out: &mut [i32], #[len(n * n)] cells: &[i32], n: usize) {
            let tile = SharedArray::<[i32; 34], 34>::new();
            // The declared block shape makes tx, ty < 32 known: the tile's indexes need no
            // check.
            let tx = thread_idx().x as usize;
            let ty = thread_idx().y as usize;
            let x0 = block_idx().x as usize * 32;
            let y0 = block_idx().y as usize * 32;
            // Tile cell (r, c) is lattice cell (y0 + r - 1, x0 + c - 1), wrapped. The 1024 threads
            // load the 1156 cells in two rounds; a subtraction loop wraps without a 64-bit `%`.
            let mut i = ty * 32 + tx;
            while i < 34 * 34 {
                let r = i / 34;
                let c = i % 34;
                let mut gy = y0 + r + n - 1;
                while gy >= n {
                    gy -= n;
                }
                let mut gx = x0 + c + n - 1;
                while gx >= n {
                    gx -= n;
                }
                tile[r][c] = cells[gy * n + gx];
                i += 1024;
            }
            sync_threads();
            let x = x0 + tx;
            let y = y0 + ty;
            if x < n && y < n {
                let k = tile[ty][tx]
                    + tile[ty][tx + 1]
                    + tile[ty][tx + 2]
                    + tile[ty + 1][tx]
                    + tile[ty + 1][tx + 2]
                    + tile[ty + 2][tx]
                    + tile[ty + 2][tx + 1]
                    + tile[ty + 2][tx + 2];
                let alive = tile[ty + 1][tx + 1] == 1;
                out[y * n + x] = if k == 3 || (alive && k == 2) { 1 } else { 0 };
            }
        }

        /// Seed 003's texture kernel: the lattice is a wrap-around texture
        /// (`AddressMode::Wrap`), so the neighbours of an edge cell are fetched at -1 and
        /// n and the texture wraps them; the reads go through the texture cache, and no
        /// thread copies anything into shared memory or waits for another. One generation
        /// per launch: reads `cells`, writes `out`, the memory of a second texture of the
        /// same size (`&mut next.memory_mut()`, rows `pitch` apart, `next.pitch()`);
        /// launch with a grid that covers the lattice.
        #[gpu_kernel($($opt)*)]
        pub fn conway_texture(out: &mut [i32], cells: &Texture2D<i32>, pitch: u32) {
            let x = block_idx().x * block_dim().x + thread_idx().x;
            let y = block_idx().y * block_dim().y + thread_idx().y;
            if x as usize >= cells.width() || y as usize >= cells.height() {
                return;
            }
            // Texture coordinates are i32: -1 is a coordinate the texture wraps.
            let (tx, ty) = (x as i32, y as i32);
            let k = cells.fetch(tx - 1, ty - 1)
                + cells.fetch(tx, ty - 1)
                + cells.fetch(tx + 1, ty - 1)
                + cells.fetch(tx - 1, ty)
                + cells.fetch(tx + 1, ty)
                + cells.fetch(tx - 1, ty + 1)
                + cells.fetch(tx, ty + 1)
                + cells.fetch(tx + 1, ty + 1);
            let alive = cells.fetch(tx, ty) == 1;
            out[(y * pitch + x) as usize] = if k == 3 || (alive && k == 2) { 1 } else { 0 };
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use super::*;
    life_kernels!();
}

/// The same kernels `#[gpu_kernel(unchecked)]` (and `#[gpu_device(unchecked)]`). Not
/// `use super::*`: that would import the crate root's `nbrs` (`checked::nbrs`, re-exported
/// below) beside this module's own, which rustc calls ambiguous for the macro a kernel asks
/// for a device function's signature (docs/language.md, "Across modules and crates").
pub mod unchecked {
    use warpspeed::prelude::*;
    life_kernels!(unchecked);
}

pub use checked::{conway, conway_block, conway_block_shared, conway_texture, conway_tiled, nbrs};
pub use unchecked::{conway as conway_unchecked, nbrs as nbrs_unchecked};

/// `cpu_step` for rows `rows` only, written into `out` (those rows, row-major): the same
/// rule and the same wrap-around, so large lattices can be checked on several CPU threads.
pub fn cpu_step_rows(cells: &[i32], n: usize, rows: std::ops::Range<usize>, out: &mut [i32]) {
    assert_eq!(out.len(), rows.len() * n);
    for (oy, y) in rows.enumerate() {
        let ym = (y + n - 1) % n;
        let yp = (y + 1) % n;
        let (up, mid, down) = (
            &cells[ym * n..][..n],
            &cells[y * n..][..n],
            &cells[yp * n..][..n],
        );
        let row = &mut out[oy * n..][..n];
        for x in 0..n {
            let xm = if x == 0 { n - 1 } else { x - 1 };
            let xp = if x + 1 == n { 0 } else { x + 1 };
            let k = up[xm] + up[x] + up[xp] + mid[xm] + mid[xp] + down[xm] + down[x] + down[xp];
            let alive = mid[x] == 1;
            row[x] = i32::from(k == 3 || (alive && k == 2));
        }
    }
}

/// `generations` generations of the CPU reference. Small lattices use `cpu_step` itself;
/// larger ones split the rows over the CPU's threads (`cpu_step_rows`, the same rule).
pub fn cpu_run(initial: &[i32], n: usize, generations: usize) -> Vec<i32> {
    let mut cells = initial.to_vec();
    if n <= 512 {
        for _ in 0..generations {
            cells = cpu_step(&cells, n);
        }
        return cells;
    }
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let rows_per = n.div_ceil(threads);
    let mut next = vec![0; n * n];
    for _ in 0..generations {
        std::thread::scope(|s| {
            for (i, chunk) in next.chunks_mut(rows_per * n).enumerate() {
                let cells = &cells;
                let y0 = i * rows_per;
                s.spawn(move || cpu_step_rows(cells, n, y0..y0 + chunk.len() / n, chunk));
            }
        });
        std::mem::swap(&mut cells, &mut next);
    }
    cells
}
