// `setmaxnreg_inc(n)` / `setmaxnreg_dec(n)`: PTX encodes `n` in the instruction, so it is
// an integer literal, a multiple of 8 from 24 to 256.
use warpspeed::prelude::*;

#[gpu_kernel]
fn not_literal(out: &mut [u32], n: u32) {
    setmaxnreg_inc(n);
    out[0] = 1;
}

#[gpu_kernel]
fn not_a_multiple_of_8(out: &mut [u32]) {
    setmaxnreg_dec(100);
    out[0] = 1;
}

#[gpu_kernel]
fn too_many(out: &mut [u32]) {
    setmaxnreg_inc(264);
    out[0] = 1;
}

fn main() {}
