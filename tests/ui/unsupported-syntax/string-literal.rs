use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let s = "hello";
    out[0] = 1;
}

fn main() {}
