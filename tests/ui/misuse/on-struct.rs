use warpspeed::prelude::*;

#[gpu_kernel]
struct S {
    x: i32,
}

fn main() {}
