use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Tuple(f32, u32);

#[gpu_struct]
#[derive(Clone, Copy)]
#[repr(C, packed)]
struct Packed {
    a: u8,
    b: u32,
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Grid {
    cells: [[f32; 4]; 4],
    n: [u32; N],
}

const N: usize = 2;

fn main() {}
