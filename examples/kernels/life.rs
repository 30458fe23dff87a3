//! The Life kernels of the seeds, shared by the `life`, `bench` and `sim_speed` examples
//! (each includes this file with `#[path = "kernels/life.rs"] mod life_kernels;`), and the
//! CPU reference they are checked against.

#![allow(dead_code)]

use warpspeed::prelude::*;

/// Live neighbours of cell (x, y) on an n x n torus. Adding `n - 1` instead of
/// subtracting 1 keeps the unsigned arithmetic from going below zero at the left/top edge.
#[gpu_device]
pub fn nbrs(cells: &[i32], x: usize, y: usize, n: usize) -> i32 {
    let xm = (x + n - 1) % n;
    let xp = (x + 1) % n;
    let ym = (y + n - 1) % n;
    let yp = (y + 1) % n;
    cells[ym * n + xm]
        + cells[ym * n + x]
        + cells[ym * n + xp]
        + cells[y * n + xm]
        + cells[y * n + xp]
        + cells[yp * n + xm]
        + cells[yp * n + x]
        + cells[yp * n + xp]
}

/// One generation (seed 000's naive kernel): a live cell stays alive with 2 or 3 live
/// neighbours, a dead cell comes alive with exactly 3. Reads `cells`, writes `out`.
#[gpu_kernel]
pub fn conway(out: &mut [i32], cells: &[i32], n: usize) {
    let (x, y) = grid_2d();
    if x >= n || y >= n {
        return;
    }
    let k: i32 = nbrs(cells, x, y, n);
    let alive = cells[y * n + x] == 1;
    out[y * n + x] = if k == 3 || (alive && k == 2) { 1 } else { 0 };
}

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
