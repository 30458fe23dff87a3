use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let t = thread_idx(0);
    out[0] = t.x;
}

fn main() {}
