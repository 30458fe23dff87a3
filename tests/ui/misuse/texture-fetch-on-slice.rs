// `fetch` reads a texture: on a slice or a scalar it is an error that names the
// parameter type to declare.
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], s: &[f32], v: f32) {
    out[0] = s.fetch(0, 0);
    out[1] = v.fetch(1, 1);
}

fn main() {}
