use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], data: &[f64]) {
    let i = grid_1d();
    out[i] = data[i];
    let n: u32 = out.len();
}

fn main() {}
