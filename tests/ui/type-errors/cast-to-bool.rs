use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], a: i32) {
    let b = a as bool;
    if b {
        out[0] = 1;
    }
}

fn main() {}
