use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let x: i32 = 1.5;
    out[0] = x;
}

fn main() {}
