use warpspeed::prelude::*;

#[gpu_device]
fn divmod(a: u32, b: u32) -> (u32, u32) {
    (a / b, a % b)
}

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let (q, r) = divmod(7, 2.5);
    out[0] = q + r;
}

fn main() {}
