use warpspeed::prelude::*;

#[gpu_kernel]
fn k(a: &[warpspeed::bf16x2], out: &mut [u32]) {
    out[0] = (a[0] == a[1]) as u32;
}

fn main() {}
