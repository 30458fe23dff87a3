use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], a: i32) {
    if a {
        out[0] = 1;
    }
}

fn main() {}
