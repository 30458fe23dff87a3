use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], out: &[i32]) {
    let i = grid_1d();
}

fn main() {}
