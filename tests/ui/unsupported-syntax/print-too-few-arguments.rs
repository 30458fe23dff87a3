use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    gpu_println!("{} and {}", out[0]);
}

fn main() {}
