use warpspeed::prelude::*;

#[gpu_kernel]
fn k(a: &[i32]) -> i32 {
    a[0]
}

fn main() {}
