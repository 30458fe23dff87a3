use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(99999999999999999999999)] out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
