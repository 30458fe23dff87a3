use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], img: &Texture2D<4>) {
    out[0] = 0.0;
}

fn main() {}
