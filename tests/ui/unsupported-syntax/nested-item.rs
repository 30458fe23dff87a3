use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    fn helper(x: i32) -> i32 {
        x + 1
    }
    out[0] = 1;
}

fn main() {}
