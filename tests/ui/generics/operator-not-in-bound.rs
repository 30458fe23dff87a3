use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T: Float>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    out[i] = x[i] << 1u32;
}

fn main() {}
