// `ldmatrix` reads a shared array of the fragment's 16-bit elements: not global memory,
// and not into an f32 accumulator.
use warpspeed::prelude::*;

#[gpu_kernel]
fn from_global(src: &[f16], out: &mut [f16]) {
    let mut a = FragmentA::<f16, M16N8K16>::zeroed();
    a.ldmatrix(src, 0);
    out[0] = a.x[0];
}

#[gpu_kernel]
fn into_f32(out: &mut [f32]) {
    let tile = SharedArray::<f32, 256>::new();
    tile[0] = 0.0;
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    acc.ldmatrix(&tile, 0);
    out[0] = acc.x[0];
}

fn main() {}
