use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    out[0] = 1u7;
}

fn main() {}
