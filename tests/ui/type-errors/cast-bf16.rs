use warpspeed::prelude::*;

#[gpu_kernel]
fn k(x: &[f32], out: &mut [warpspeed::bf16]) {
    out[0] = x[0] as warpspeed::bf16;
}

fn main() {}
