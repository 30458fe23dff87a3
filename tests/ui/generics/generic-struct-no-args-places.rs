use warpspeed::prelude::*;
use warpspeed::Float;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Params<T: Float> {
    alpha: T,
}

// A generic #[gpu_struct] named without its arguments (or with too many) is one error
// wherever it is named: ours in a kernel, rustc's (E0107) where the macro emits the type as
// written, a device function's signature (its host function's) and a struct's field.
#[gpu_kernel]
fn local(p: Params<f32>, out: &mut [f32]) {
    let q: Params = p;
    out[0] = q.alpha;
}

#[gpu_device]
fn device_param(p: Params) -> f32 {
    1.0
}

#[gpu_device]
fn device_result(x: f32) -> Params {
    Params { alpha: x }
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Holder {
    p: Params,
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct TooMany {
    p: Params<f32, f32>,
}

#[gpu_kernel]
fn uses(out: &mut [f32]) {
    out[0] = device_param(Params { alpha: 1.0f32 });
}

fn main() {}
