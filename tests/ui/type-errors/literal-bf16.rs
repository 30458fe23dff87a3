use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [warpspeed::bf16]) {
    out[0] = out[0] * 2.0;
}

fn main() {}
