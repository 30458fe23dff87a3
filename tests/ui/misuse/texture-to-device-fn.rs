// A device function takes no texture: passing one where it takes a slice is a type error.
use warpspeed::prelude::*;

#[gpu_device]
fn first(s: &[i32]) -> i32 {
    s[0]
}

#[gpu_kernel]
fn k(out: &mut [i32], tex: &Texture2D<i32>) {
    out[0] = first(tex);
}

fn main() {}
