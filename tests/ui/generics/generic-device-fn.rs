use warpspeed::prelude::*;

#[gpu_device]
fn twice<T: Float>(x: T) -> T {
    x + x
}

fn main() {}
