use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], n: i32) {
    out[0] = match n {
        0 => 1,
        _ => 2,
    };
}

fn main() {}
