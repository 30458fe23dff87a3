use warpspeed::prelude::*;

#[gpu_device]
fn fact(n: u32) -> u32 {
    if n <= 1 {
        1
    } else {
        n * fact(n - 1)
    }
}

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let v: u32 = fact(5);
    out[0] = v;
}

fn main() {}
