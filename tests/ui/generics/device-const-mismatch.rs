use warpspeed::prelude::*;

#[gpu_device]
fn nth<const N: usize>(x: &[f32]) -> f32 {
    x[N]
}

#[gpu_device]
fn plain(x: f32) -> f32 {
    x
}

#[gpu_kernel]
fn k(x: &[f32], out: &mut [f32]) {
    // Two const arguments for one const parameter.
    out[0] = nth::<1, 2>(x);
    // A bool for a usize.
    out[1] = nth::<true>(x);
    // A const argument for a function with none.
    out[2] = plain::<3>(x[0]);
}

fn main() {}
