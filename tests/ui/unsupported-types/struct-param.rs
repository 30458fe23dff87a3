use warpspeed::prelude::*;

pub struct Point {
    pub x: f32,
    pub y: f32,
}

#[gpu_kernel]
fn k(out: &mut [f32], p: Point) {
    out[0] = p.x;
}

fn main() {}
