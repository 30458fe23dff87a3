use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(n)] out: &mut [u32], mut n: usize) {
    n += 1;
    out[0] = n as u32;
}

fn main() {}
