use warpspeed::prelude::*;

#[derive(Clone, Copy)]
struct Plain {
    dt: f32,
}

#[gpu_kernel]
fn k(p: Plain, out: &mut [f32]) {
    out[0] = p.dt;
}

fn main() {}
