use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(n)] #[len(2 * n)] out: &mut [u32], n: usize) {
    out[0] = n as u32;
}

fn main() {}
