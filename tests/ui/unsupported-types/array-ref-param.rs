use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32; 4]) {
    out[0] = 1.0;
}

fn main() {}
