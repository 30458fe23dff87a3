use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], p: (i32, i32)) {
    out[0] = p.0;
}

fn main() {}
