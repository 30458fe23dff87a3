use warpspeed::prelude::*;

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

fn main() {}
