use warpspeed::prelude::*;

#[gpu_kernel]
fn k<'a>(out: &'a mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
