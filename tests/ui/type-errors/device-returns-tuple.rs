use warpspeed::prelude::*;

#[gpu_device]
fn both(x: i32) -> (i32, i32) {
    x
}

fn main() {}
