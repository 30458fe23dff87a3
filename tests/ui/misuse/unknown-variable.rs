use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let i = grid_1d();
    let scale = 2.0f32;
    out[i] = scale * offset;
}

fn main() {}
