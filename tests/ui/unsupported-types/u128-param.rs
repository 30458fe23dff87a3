use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u128]) {
    out[0] = 1;
}

fn main() {}
