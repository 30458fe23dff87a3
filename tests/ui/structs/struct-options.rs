use warpspeed::prelude::*;

#[gpu_struct(packed)]
#[derive(Clone, Copy)]
struct P {
    x: f32,
}

fn main() {}
