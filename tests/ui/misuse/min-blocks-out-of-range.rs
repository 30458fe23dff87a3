use warpspeed::prelude::*;

#[gpu_kernel(block = (256, 1, 1), min_blocks_per_multiprocessor = 0)]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
