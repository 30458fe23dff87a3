// An accumulator's element type is one an `mma.sync` of its shape gives: f16 x f16 adds
// into f32 or f16, never i32 or f64.
use warpspeed::prelude::*;

#[gpu_kernel]
fn int_acc(out: &mut [i32]) {
    let acc = FragmentAcc::<i32, M16N8K16>::zeroed();
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn f32_operands(out: &mut [f32]) {
    let a = FragmentA::<f32, M16N8K16>::zeroed();
    out[0] = a.x[0];
}

fn main() {}
