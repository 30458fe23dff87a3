use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T: Float>(out: &mut [T], n: u32) {
    let i = grid_1d();
    out[i] = n as T;
}

fn main() {}
