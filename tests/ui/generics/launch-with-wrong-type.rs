use warpspeed::prelude::*;

#[gpu_kernel]
fn axpy<T: Float>(y: &mut [T], a: T, x: &[T]) {
    let i = grid_1d();
    y[i] = a * x[i] + y[i];
}

fn main() {
    let dev = Device::simulator();
    let mut y = dev.zeros::<u32>(4).unwrap();
    let x = dev.zeros::<u32>(4).unwrap();
    let _ = axpy::launch(&dev, LaunchConfig::new(1, 4), &mut y, 2u32, &x);
}
