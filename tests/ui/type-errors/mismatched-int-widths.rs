use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i64], a: i32, b: i64) {
    out[0] = a + b;
}

fn main() {}
