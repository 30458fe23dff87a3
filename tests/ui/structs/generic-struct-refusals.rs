use warpspeed::prelude::*;
use warpspeed::Float;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Borrowed<'a> {
    x: &'a f32,
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Tile<const N: usize> {
    v: [f32; N],
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct NotOurs<T: Copy> {
    x: T,
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Where<T>
where
    T: Float,
{
    x: T,
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Unknown<T: Float> {
    x: T,
    y: U,
}

fn main() {}
