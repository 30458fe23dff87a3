use warpspeed::prelude::*;

#[gpu_device]
fn half(x: f32) -> f32 {
    x * 0.5
}

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let v: i32 = half(3.0);
    out[0] = v;
}

fn main() {}
