use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let x = 1;
    let r = &x;
    out[0] = 1;
}

fn main() {}
