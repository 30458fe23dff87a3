use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    #[unroll(0)]
    for i in 0..4 {
        out[i] = 1;
    }
}

fn main() {}
