// A lane holds 4 elements of an m16n8k16 accumulator: `acc.x[4]` is past the end, and a
// constant index says so at compile time, as rustc does for an array.
use warpspeed::prelude::*;

#[gpu_kernel]
fn past_the_end(out: &mut [f32]) {
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    acc.x[4] = 1.0;
    out[0] = acc.x[0];
}

fn main() {}
