use warpspeed::prelude::*;

#[gpu_kernel(block = (4, 4, 4, 4))]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
