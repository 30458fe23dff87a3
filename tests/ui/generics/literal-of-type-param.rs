use warpspeed::prelude::*;

#[gpu_kernel]
fn scale<T: Float>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    out[i] = x[i] * 2.0;
}

#[gpu_kernel]
fn offset<T: Int>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    let one = 1;
    out[i] = x[i] + one;
}

fn main() {}
