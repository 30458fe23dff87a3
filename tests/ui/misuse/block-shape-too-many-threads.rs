use warpspeed::prelude::*;

#[gpu_kernel(block = (64, 32))]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
