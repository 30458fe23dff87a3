use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let tile = dynamic_shared();
    tile[0] = 1.0f32;
    out[0] = tile[0];
}

fn main() {}
