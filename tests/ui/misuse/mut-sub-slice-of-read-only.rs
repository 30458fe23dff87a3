use warpspeed::prelude::*;

#[gpu_kernel]
fn k(x: &[u32], out: &mut [u32]) {
    let p = &mut x[1..];
    p[0] = 1;
    out[0] = 1;
}

fn main() {}
