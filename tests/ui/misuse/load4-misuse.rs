// `load4` reads the four elements of a slice (`&x[i..i + 4]`), `store4` writes those of a
// writable one, with values of its element type: not an element, not a read-only slice,
// not a value of another type.
use warpspeed::prelude::*;

#[gpu_kernel]
fn not_a_slice(x: &[f32], out: &mut [f32]) {
    let (a, b, c, d) = load4(x[0]);
    out[0] = a + b + c + d;
}

#[gpu_kernel]
fn read_only_destination(x: &[f32], out: &mut [f32]) {
    store4(&x[0..4], 1.0, 2.0, 3.0, 4.0);
    out[0] = 0.0;
}

#[gpu_kernel]
fn wrong_element_type(out: &mut [f32]) {
    store4(&mut out[0..4], 1u32, 2.0, 3.0, 4.0);
}

fn main() {}
