use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let b = Box::new(1);
    out[0] = 1;
}

fn main() {}
