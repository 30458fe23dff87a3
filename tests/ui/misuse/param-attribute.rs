use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[inline] out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
