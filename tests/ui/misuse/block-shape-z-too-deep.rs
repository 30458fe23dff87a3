use warpspeed::prelude::*;

#[gpu_kernel(block = (1, 1, 128))]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
