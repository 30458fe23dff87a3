use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32], f: &mut [f32], a: i32, x: f32) {
    f[0] = f32::sqrt(x);
    out[0] = u32::try_from(a);
    out[1] = u32::from(a);
    f[1] = f32::from_bits(a);
    out[2] = u32::from(x);
}

fn main() {}
