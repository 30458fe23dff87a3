// Fragments are made by `zeroed()` in the kernel that uses them: not annotated in a `let`
// and not passed to a #[gpu_device] function (yet).
use warpspeed::f16;
use warpspeed::prelude::*;

#[gpu_device]
fn take(a: FragmentA<f16, M16N8K16>) -> f16 {
    a.x[0]
}

#[gpu_kernel]
fn annotated(out: &mut [f32]) {
    let acc: FragmentAcc<f32, M16N8K16> = FragmentAcc::<f32, M16N8K16>::zeroed();
    out[0] = acc.x[0];
}

fn main() {}
