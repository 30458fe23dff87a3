use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u8]) {
    let c: char = 'a';
    out[0] = 1;
}

fn main() {}
