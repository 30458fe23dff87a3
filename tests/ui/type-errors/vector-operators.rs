use warpspeed::prelude::*;

#[gpu_kernel]
fn ops(a: &[f32x4], b: &[f32x4], out: &mut [f32x4], flags: &mut [u32]) {
    let i = grid_1d();
    out[i] = a[i] / b[i];
    if a[i] == b[i] {
        flags[i] = 1;
    }
    out[i] = -a[i];
}

fn main() {}
