// Texture coordinates are i32 (as CUDA's integer texel coordinates, so `x - 1` at the
// left edge is a coordinate the address mode resolves); a texture has `fetch`, and
// `width` and `height`, which are `usize` as on the host.
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32], tex: &Texture2D<u32>, x: u32, f: f32) {
    out[0] = tex.fetch(x, 0);
    out[1] = tex.fetch(f, 0);
    out[2] = tex.fetch(1);
    out[3] = tex.sample(0, 0);
    let w: i32 = tex.width();
    out[4] = w as u32;
}

fn main() {}
