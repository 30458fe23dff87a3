use warpspeed::prelude::*;

static SCALE: f32 = 2.0;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let i = grid_1d();
    out[i] = SCALE;
}

fn main() {}
