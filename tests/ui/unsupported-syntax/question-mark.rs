use warpspeed::prelude::*;

#[gpu_device]
fn d(x: i32) -> i32 {
    let y = x.checked_add(1)?;
    y
}

fn main() {}
