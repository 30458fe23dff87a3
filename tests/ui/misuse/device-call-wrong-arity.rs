use warpspeed::prelude::*;

#[gpu_device]
fn twice(x: i32) -> i32 {
    x * 2
}

#[gpu_kernel]
fn k(out: &mut [i32]) {
    out[0] = twice(1, 2);
}

fn main() {}
