use warpspeed::prelude::*;

#[gpu_kernel]
fn k<T>(out: &mut [T], x: &[T])
where
    T: Float,
{
    out[0] = x[0];
}

fn main() {}
