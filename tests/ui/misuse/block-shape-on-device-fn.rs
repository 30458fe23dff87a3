use warpspeed::prelude::*;

#[gpu_device(block = (32, 1))]
fn twice(x: i32) -> i32 {
    2 * x
}

fn main() {}
