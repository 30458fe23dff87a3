use warpspeed::prelude::*;

#[gpu_device]
fn nth<const N: usize>(x: &[f32]) -> f32 {
    x[N]
}

#[gpu_device]
fn twice<const N: usize>(x: &[f32]) -> f32 {
    // Rust's rule (generic_const_exprs is unstable): a const parameter only by itself.
    nth::<{ N + 1 }>(x)
}

#[gpu_kernel]
fn k(x: &[f32], out: &mut [f32]) {
    // A float is no const argument.
    out[0] = nth::<{ 1.5 }>(x);
    // Nor a local's value.
    let i = 3usize;
    out[1] = nth::<{ i }>(x);
}

fn main() {}
