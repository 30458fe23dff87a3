use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], f: &mut [f32], a: i32, x: f32) {
    out[0] = a.checked_add(1);
    out[1] = a.overflowing_mul(3);
    f[0] = x.sin_cos();
    f[1] = x.classify();
}

fn main() {}
