use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], scale: &f32) {
    out[0] = *scale;
}

fn main() {}
