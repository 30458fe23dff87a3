use warpspeed::prelude::*;

#[gpu_kernel]
fn k(a: &[i32]) {
    let i = grid_1d();
    a[i] = 1;
}

fn main() {}
