use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], w: [f32; 4]) {
    out[0] = w[0];
}

fn main() {}
