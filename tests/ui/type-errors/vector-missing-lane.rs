use warpspeed::prelude::*;

#[gpu_kernel]
fn lanes(a: &[f32x2], out: &mut [f32]) {
    let i = grid_1d();
    let v = a[i];
    out[i] = v.x + v.z;
}

fn main() {}
