use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    out[0] = 1;
    break;
}

fn main() {}
