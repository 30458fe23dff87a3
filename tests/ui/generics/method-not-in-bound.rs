use warpspeed::prelude::*;

// Every integer has `abs_diff`, but `Int` does not offer it (its result type differs per
// type): rustc says so through the generic simulator body.
#[gpu_kernel]
fn dist<T: Int>(out: &mut [u64], x: &[T], y: &[T]) {
    let i = grid_1d();
    out[i] = x[i].abs_diff(y[i]).to_u64();
}

fn main() {}
