// Kernels read textures and never write them: not through `&mut`, not by index, and a
// texture is not a local's value.
use warpspeed::prelude::*;

#[gpu_kernel]
fn by_mut(out: &mut [f32], tex: &mut Texture2D<f32>) {
    out[0] = 1.0;
}

#[gpu_kernel]
fn by_index(out: &mut [f32], tex: &Texture2D<f32>) {
    tex[0] = 1.0;
    out[0] = tex[1];
    let t = tex;
}

fn main() {}
