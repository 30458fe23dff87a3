use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], a: f32) {
    out[0] = a.frobnicate();
}

fn main() {}
