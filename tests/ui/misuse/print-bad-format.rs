use warpspeed::prelude::*;

#[gpu_kernel]
fn k(x: f32, n: u32) {
    gpu_print!("{:x} {:.2} {:?}\n", x, n, n);
}

fn main() {}
