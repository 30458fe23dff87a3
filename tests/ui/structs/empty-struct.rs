use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Empty {}

fn main() {}
