use warpspeed::prelude::*;

#[gpu_kernel]
unsafe fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
