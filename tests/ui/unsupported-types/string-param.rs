use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], s: String) {
    out[0] = 1;
}

fn main() {}
