use warpspeed::prelude::*;

#[gpu_device]
fn bump(x: u32) -> u32 {
    x + 1
}

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let mut v = 1u32;
    out[0] = bump(&mut v);
}

fn main() {}
