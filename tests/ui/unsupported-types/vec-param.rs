use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut Vec<i32>) {
    out[0] = 1;
}

fn main() {}
