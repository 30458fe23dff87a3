use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let x = 5;
    out[0] = x.count_ones();
}

fn main() {}
