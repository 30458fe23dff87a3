use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32]) {
    let (q, r) = divmod(7, 2);
    out[0] = q + r;
}

fn main() {}
