use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    println!("hello {}", out[0]);
    out[0] = 1;
}

fn main() {}
