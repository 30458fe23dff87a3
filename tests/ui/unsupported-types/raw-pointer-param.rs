use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: *mut f32, n: usize) {
}

fn main() {}
