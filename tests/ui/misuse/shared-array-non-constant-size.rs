use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], n: usize) {
    let tile = SharedArray::<f32, { n }>::new();
    tile[0] = 1.0;
    out[0] = tile[0];
}

fn main() {}
