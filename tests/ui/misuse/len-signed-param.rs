use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(n)] out: &mut [u32], n: i32) {
    out[0] = n as u32;
}

fn main() {}
