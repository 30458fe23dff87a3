use warpspeed::prelude::*;

const SCALE: f32 = 0.5;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    // Nothing here fixes SCALE's type: the macro asks for it instead of guessing.
    let s = SCALE * 2.0;
    out[0] = 1.0;
    let _ = s;
}

fn main() {}
