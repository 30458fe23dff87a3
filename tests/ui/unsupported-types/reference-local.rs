use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let x = 1.0f32;
    let r: &f32 = &x;
    out[0] = *r;
}

fn main() {}
