use warpspeed::prelude::*;

// Rust infers no const parameter of a device function (its array parameters have literal
// lengths): every call names them, as rustc says.
#[gpu_device]
fn nth<const N: usize>(x: &[f32]) -> f32 {
    x[N]
}

#[gpu_kernel]
fn k(x: &[f32], out: &mut [f32]) {
    out[0] = nth(x);
}

fn main() {}
