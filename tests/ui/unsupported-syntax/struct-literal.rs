use warpspeed::prelude::*;

struct P {
    x: i32,
}

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let p = P { x: 1 };
    out[0] = 1;
}

fn main() {}
