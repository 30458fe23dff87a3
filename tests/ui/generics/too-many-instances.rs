use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T: Scalar, U: Scalar>(out: &mut [T], x: &[U]) {
}

fn main() {}
