use warpspeed::prelude::*;

#[gpu_kernel(min_blocks_per_multiprocessor = 4)]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
