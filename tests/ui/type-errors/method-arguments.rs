use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32], f: &mut [f32], a: u32, x: f32, b: bool, n: i64) {
    f[0] = x.clamp(1.0);
    out[0] = a.rotate_left(n);
    out[1] = b.count_ones();
    out[2] = a.ilog(2, 3);
}

fn main() {}
