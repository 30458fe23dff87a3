use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let nothing = sync_threads();
    out[0] = 1;
}

fn main() {}
