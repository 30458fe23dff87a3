use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T: Float + Copy>(out: &mut [T], x: &[T]) {
    out[0] = x[0];
}

fn main() {}
