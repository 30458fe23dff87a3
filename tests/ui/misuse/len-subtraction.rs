use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(n - 1)] out: &mut [u32], n: usize) {
    out[0] = n as u32;
}

fn main() {}
