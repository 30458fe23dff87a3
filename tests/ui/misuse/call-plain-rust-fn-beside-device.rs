use warpspeed::prelude::*;

fn helper(x: i32) -> i32 {
    x + 1
}

#[gpu_device]
fn twice(x: i32) -> i32 {
    x * 2
}

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let v: i32 = helper(3);
    let w: i32 = twice(v);
    out[0] = w;
}

fn main() {}
