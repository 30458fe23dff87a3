use warpspeed::prelude::*;

const N: usize = 256;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let tile = SharedArray::<f32, N>::new();
    tile[0] = 1.0;
    out[0] = tile[0];
}

fn main() {}
