use warpspeed::prelude::*;

// A block extent counts threads: a const parameter can give it, a type parameter cannot.
#[gpu_kernel(block = (T, 1, 1))]
fn scale<T: Float>(out: &mut [T]) {
    let i = grid_1d();
    out[i] = out[i] * T::from_f32(2.0);
}

fn main() {}
