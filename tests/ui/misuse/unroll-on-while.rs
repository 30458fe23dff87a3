use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let mut i = 0;
    #[unroll]
    while i < 4 {
        out[i] = 1;
        i += 1;
    }
}

fn main() {}
