use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T: Int>(out: &mut [T]) {
    let i = grid_1d();
    out[i] = T::MAX;
}

fn main() {}
