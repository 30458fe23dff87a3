use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct P {
    x: f32,
    y: f32,
}

#[gpu_kernel]
fn k(base: P, out: &mut [f32]) {
    let p = P { x: 1.0, ..base };
    out[0] = p.x + p.y;
}

fn main() {}
