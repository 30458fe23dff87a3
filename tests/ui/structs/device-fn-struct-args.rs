use warpspeed::prelude::*;
use warpspeed::Float;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Params<T: Float> {
    alpha: T,
}

#[derive(Clone, Copy)]
struct Plain {
    dt: f32,
}

// A plain struct in a device function's signature: one error, rustc's missing macro (the
// function asks the struct's hand-over for its definition).
#[gpu_device]
fn step(p: Plain) -> f32 {
    p.dt
}

// A generic struct's argument outside its bound: one error, rustc's, in the signature (it
// is also the host function's).
#[gpu_device]
fn int_args(p: Params<i32>) -> f32 {
    1.0
}

#[gpu_device]
fn int_result(x: f32) -> Params<u8> {
    Params { alpha: x }
}

fn main() {}
