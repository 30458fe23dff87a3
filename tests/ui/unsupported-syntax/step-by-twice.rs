use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    for i in (0..16u32).step_by(2).step_by(3) {
        out[i as usize] = i;
    }
}

fn main() {}
