use warpspeed::prelude::*;

const N: usize = 4;

// An error in a const-generic device function is its own: the calls that name it, with
// their const arguments, add none (the stub after the error takes them).
#[gpu_device]
fn pick<const K: usize>(x: &[f32]) -> f32 {
    x[K] + undefined_name
}

// An array parameter's length is a literal: this refusal is the only error too.
#[gpu_device]
fn sum(a: [f32; N]) -> f32 {
    a[0]
}

#[gpu_kernel]
fn k(x: &[f32], out: &mut [f32]) {
    let a = [1.0f32; 4];
    out[0] = pick::<3>(x) + sum(a);
}

fn main() {}
