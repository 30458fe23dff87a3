use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u8]) {
    let b = b"abc";
    out[0] = 1;
}

fn main() {}
