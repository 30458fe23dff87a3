use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    unsafe {
        out[0] = 1;
    }
}

fn main() {}
