// `swizzle_128b(i, size)` and kin: `size` is the element's bytes, an integer literal that a
// 16-byte chunk holds whole (1, 2, 4, 8 or 16).
use warpspeed::prelude::*;

#[gpu_kernel]
fn not_literal(out: &mut [usize], size: usize) {
    out[0] = swizzle_128b(3, size);
}

#[gpu_kernel]
fn not_a_chunk_divisor(out: &mut [usize]) {
    out[0] = swizzle_64b(3, 3);
}

#[gpu_kernel]
fn wider_than_a_chunk(out: &mut [usize]) {
    out[0] = swizzle_32b(3, 32);
}

fn main() {}
