use warpspeed::prelude::*;

// Arrays by value are parameters of device functions only; they are not returned; a tuple
// holds scalars and tuples.
#[gpu_kernel]
fn k(out: &mut [f32], a: [f32; 4]) {
    let b = [1.0f32, 2.0];
    let t = (b, 1);
    out[0] = t.1 as f32;
}

#[gpu_device]
fn make(x: f32) -> [f32; 2] {
    [x, x]
}

#[gpu_device]
fn sized(a: [f32; N]) -> f32 {
    a[0]
}

const N: usize = 2;

fn main() {}
