use warpspeed::prelude::*;

#[gpu_kernel]
fn k(#[len(rows * cols)] out: &mut [u32], rows: usize) {
    out[0] = rows as u32;
}

fn main() {}
