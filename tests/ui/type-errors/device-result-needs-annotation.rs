use warpspeed::prelude::*;

#[gpu_device]
fn nbrs(cells: &[i32], i: usize) -> i32 {
    cells[i] + cells[i + 1]
}

#[gpu_kernel]
fn k(out: &mut [i32], cells: &[i32]) {
    let i = grid_1d();
    let k = nbrs(cells, i);
    if k == 3 {
        out[i] = 1;
    }
}

fn main() {}
