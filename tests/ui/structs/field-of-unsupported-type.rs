use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Bad {
    n: u32,
    name: String,
    v: Vec<f32>,
}

fn main() {}
