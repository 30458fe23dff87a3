use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32], a: u32) {
    out[0] = -a;
}

fn main() {}
