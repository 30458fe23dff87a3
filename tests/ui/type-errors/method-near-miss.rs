use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32], f: &mut [f32], a: u32, x: f32) {
    out[0] = a.leading_zeroes();
    f[0] = x.pow(2);
    out[1] = a.abs();
    out[2] = a.frobnicate();
}

fn main() {}
