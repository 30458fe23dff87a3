use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let f = |x: i32| x + 1;
    out[0] = 1;
}

fn main() {}
