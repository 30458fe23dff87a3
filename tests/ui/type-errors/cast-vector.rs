use warpspeed::prelude::*;

#[gpu_kernel]
fn convert(a: &[i32x4], out: &mut [f32x4], sums: &mut [f32]) {
    let i = grid_1d();
    out[i] = a[i] as f32x4;
    sums[i] = out[i] as f32;
}

fn main() {}
