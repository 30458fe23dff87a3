use warpspeed::prelude::*;

#[gpu_device(fast_math)]
fn d(x: f32) -> f32 {
    x
}

fn main() {}
