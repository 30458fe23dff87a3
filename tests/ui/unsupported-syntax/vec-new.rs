use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let v = Vec::new();
    out[0] = 1;
}

fn main() {}
