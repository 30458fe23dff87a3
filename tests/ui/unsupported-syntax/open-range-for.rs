use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    for i in 0.. {
        out[i] = 1;
    }
}

fn main() {}
