use warpspeed::prelude::*;

#[gpu_kernel]
fn rotate(a: &[f32x4], out: &mut [f32x4]) {
    let i = grid_1d();
    out[i] = shfl_down_sync(u32::MAX, a[i], 1);
    gpu_print!("{}\n", a[i]);
}

fn main() {}
