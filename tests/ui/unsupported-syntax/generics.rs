use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T>(out: &mut [T]) {
}

fn main() {}
