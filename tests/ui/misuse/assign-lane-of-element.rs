use warpspeed::prelude::*;

#[gpu_kernel]
fn set_x(out: &mut [f32x4]) {
    let i = grid_1d();
    out[i].x = 1.0;
}

fn main() {}
