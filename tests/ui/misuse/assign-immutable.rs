use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let x = 1;
    x = 2;
    out[0] = x;
}

fn main() {}
