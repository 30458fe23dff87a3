use warpspeed::prelude::*;

const SIDE: u32 = 16;

#[gpu_kernel(block = (SIDE, SIDE))]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
