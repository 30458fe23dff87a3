use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    #[unroll]
    #[unroll(4)]
    for i in 0..8u32 {
        out[i as usize] = i;
    }
}

fn main() {}
