use warpspeed::prelude::*;

#[gpu_kernel]
fn scale(a: &[f32x4], s: f32, out: &mut [f32x4]) {
    let i = grid_1d();
    out[i] = a[i] * 2.0;
    out[i] = a[i] + s;
}

fn main() {}
