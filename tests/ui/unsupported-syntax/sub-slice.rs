use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], a: &[i32]) {
    let s = a[1..3];
    out[0] = 1;
}

fn main() {}
