use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(4)] n: usize, out: &mut [u32]) {
    out[0] = n as u32;
}

fn main() {}
