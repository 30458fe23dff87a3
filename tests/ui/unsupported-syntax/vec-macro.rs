use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let v = vec![0; 4];
    out[0] = 1;
}

fn main() {}
