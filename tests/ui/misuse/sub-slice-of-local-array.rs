use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let a = [1u32; 8];
    let p = &a[1..3];
    out[0] = p[0];
}

fn main() {}
