use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(n.pow(2))] out: &mut [u32], n: usize) {
    out[0] = n as u32;
}

fn main() {}
