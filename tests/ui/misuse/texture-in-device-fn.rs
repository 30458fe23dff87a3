// Textures are kernel parameters; `#[len]` declares a slice's length, not a texture's.
use warpspeed::prelude::*;

#[gpu_device]
fn corner(tex: &Texture2D<u8>) -> u8 {
    tex.fetch(0, 0)
}

#[gpu_kernel]
fn k(out: &mut [u8], #[len(4)] tex: &Texture2D<u8>) {
    out[0] = tex.fetch(0, 0);
}

fn main() {}
