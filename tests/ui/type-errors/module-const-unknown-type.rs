use warpspeed::prelude::*;

const SCALE: f32 = 0.5;
const STEPS: u32 = 4;
const LEVEL: i64 = 2;

#[gpu_kernel]
fn k(out: &mut [f32]) {
    // Nothing here fixes SCALE's type: the macro asks for it instead of guessing.
    let s = SCALE * 2.0;
    out[0] = 1.0;
    let _ = s;
    // Nor here: a loop variable only converted, a value only printed.
    for k in 0..STEPS {
        out[0] += k as f32;
    }
    gpu_print!("{}", LEVEL);
}

fn main() {}
