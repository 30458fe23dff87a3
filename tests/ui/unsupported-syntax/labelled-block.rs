use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], n: i32) {
    'b: {
        if n > 0 {
            break 'b;
        }
        out[0] = 1;
    }
}

fn main() {}
