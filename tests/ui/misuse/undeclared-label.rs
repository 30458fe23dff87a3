use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    'outer: for i in 0..4 {
        break 'inner;
    }
}

fn main() {}
