use warpspeed::prelude::*;

fn helper(x: i32) -> i32 {
    x + 1
}

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let v: i32 = helper(3);
    out[0] = v;
}

fn main() {}
