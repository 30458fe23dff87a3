use warpspeed::prelude::*;

#[gpu_kernel(crate = "my lib")]
fn k(x: &mut [f32]) {
    let i = grid_1d();
    x[i] = 1.0;
}

#[gpu_struct(crate = "::")]
#[derive(Clone, Copy)]
struct P {
    x: f32,
}

fn main() {}
