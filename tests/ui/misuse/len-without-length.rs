use warpspeed::prelude::*;

#[gpu_device]
fn f(#[len] v: &[u32]) -> u32 {
    v[0]
}

fn main() {}
