// `load4` and `store4` take their four elements as a range of a slice written at the call
// (`&x[i..i + 4]`, `&mut out[0..4]`): a whole slice, borrowed or not, a slice with no end
// and a device function's slice parameter would be four long only if their lengths said so
// at run time, so they are refused where they are written.
use warpspeed::prelude::*;

#[gpu_kernel]
fn whole_slice(x: &[f32], out: &mut [f32]) {
    let (a, b, c, d) = load4(x);
    out[0] = a + b + c + d;
}

#[gpu_kernel]
fn borrowed_whole_slice(x: &[f32], out: &mut [f32]) {
    let (a, b, c, d) = load4(&x);
    out[0] = a + b + c + d;
}

#[gpu_kernel]
fn no_end(x: &[f32], out: &mut [f32]) {
    store4(&mut out[4..], x[0], x[1], x[2], x[3]);
}

#[gpu_device]
fn sum4(q: &[f32]) -> f32 {
    let (a, b, c, d) = load4(q);
    a + b + c + d
}

#[gpu_kernel]
fn through_a_device_fn(x: &[f32], out: &mut [f32]) {
    out[0] = sum4(&x[0..4]);
}

fn main() {}
