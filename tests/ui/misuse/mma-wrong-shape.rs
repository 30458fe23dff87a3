// `mma_sync` takes the A and B fragments of the accumulator's shape: an m16n8k8 A with an
// m16n8k16 accumulator is refused at the argument, and so are B and A swapped.
use warpspeed::prelude::*;

#[gpu_kernel]
fn wrong_shape(out: &mut [f32]) {
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    let a = FragmentA::<f16, M16N8K8>::zeroed();
    let b = FragmentB::<f16, M16N8K16>::zeroed();
    acc.mma_sync(a, b);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn swapped(out: &mut [f32]) {
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    let a = FragmentA::<f16, M16N8K16>::zeroed();
    let b = FragmentB::<f16, M16N8K16>::zeroed();
    acc.mma_sync(b, a);
    out[0] = acc.x[0];
}

fn main() {}
