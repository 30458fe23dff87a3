use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u64]) {
    out[0] = 340282366920938463463374607431768211456;
}

fn main() {}
