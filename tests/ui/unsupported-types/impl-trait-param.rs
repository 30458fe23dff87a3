use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], f: impl Fn(i32) -> i32) {
    out[0] = 1;
}

fn main() {}
