// A texture holds u8, i8, u16, i16, u32, i32 or f32: the one-channel formats CUDA reads
// back exactly.
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f64], a: &Texture2D<f64>, b: &Texture2D<u64>, c: &Texture2D<bool>, d: &Texture2D) {
    out[0] = 0.0;
}

fn main() {}
