use warpspeed::prelude::*;

#[gpu_kernel]
fn k(h: &[warpspeed::f16], out: &mut [f32]) {
    out[0] = h[0] as f32;
}

fn main() {}
