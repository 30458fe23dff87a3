use warpspeed::prelude::*;

// A call picks a generic device function's instance by its arguments' types: `T` must be
// a parameter's type.
#[gpu_device]
fn zero<T: Float>(n: u32) -> T {
    T::zero()
}

fn main() {}
