use warpspeed::prelude::*;
use warpspeed::Float;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Params<T: Float> {
    alpha: T,
    n: u32,
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Wide<T: Float> {
    v: [T; 2],
}

#[gpu_kernel]
fn no_args(p: Params, out: &mut [f32]) {
    out[0] = 1.0;
}

#[gpu_kernel]
fn int_args(p: Params<i32>, out: &mut [f32]) {
    out[0] = 1.0;
}

#[gpu_kernel]
fn unknown_instance<T: Float>(a: T, out: &mut [T]) {
    let w = Wide { v: [a, a] };
    out[0] = w.v[0];
}

fn main() {}
