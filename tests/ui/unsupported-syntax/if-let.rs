use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], n: i32) {
    if let 0 = n {
        out[0] = 1;
    }
}

fn main() {}
