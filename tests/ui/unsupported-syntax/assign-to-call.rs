use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    thread_idx().x = 3;
    out[0] = 1;
}

fn main() {}
