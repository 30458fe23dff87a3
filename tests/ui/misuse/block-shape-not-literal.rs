use warpspeed::prelude::*;

// A block extent is an integer literal, a constant (`block = (SIDE, SIDE)` with a
// module-level `const SIDE: u32`) or a const parameter: not a float, a variable or a call.
const SIDE: u32 = 16;

#[gpu_kernel(block = (16.0, 1))]
fn float_extent(out: &mut [i32]) {
    out[0] = 1;
}

#[gpu_kernel(block = (side, 1))]
fn variable_extent(out: &mut [i32], side: u32) {
    out[0] = side as i32;
}

#[gpu_kernel(block = (SIDE.min(8), 1))]
fn call_extent(out: &mut [i32]) {
    out[0] = 1;
}

fn main() {}
