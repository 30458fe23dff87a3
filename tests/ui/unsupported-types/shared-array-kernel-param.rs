use warpspeed::prelude::*;

#[gpu_kernel]
fn k(tile: &mut SharedArray<u32, 64>, out: &mut [u32]) {
    out[0] = tile[0];
}

fn main() {}
