use warpspeed::prelude::*;

#[gpu_kernel]
fn k(x: &[u32], out: &mut [u32]) {
    let p = &x[1..=3];
    out[0] = p[0];
}

fn main() {}
