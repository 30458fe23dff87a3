use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Pair<T> {
    a: T,
    b: T,
}

fn main() {}
