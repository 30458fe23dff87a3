use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u8]) {
    out[0] = 300;
}

fn main() {}
