use warpspeed::prelude::*;

#[gpu_kernel]
fn scale<T: Float>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    out[i] = x[i] * 2.0;
}

#[gpu_kernel]
fn offset<T: Int>(out: &mut [T], x: &[T]) {
    let i = grid_1d();
    let one = 1;
    out[i] = x[i] + one;
}

// The launches of a kernel that failed add no errors of their own.
fn main() {
    let dev = Device::simulator();
    let mut y = dev.zeros::<f32>(4).unwrap();
    let x = dev.zeros::<f32>(4).unwrap();
    let _ = scale::launch(&dev, LaunchConfig::new(1, 4), &mut y, &x);
    let mut a = dev.zeros::<u32>(4).unwrap();
    let b = dev.zeros::<u32>(4).unwrap();
    let _ = offset::launch::<u32>(&dev, LaunchConfig::new(1, 4), &mut a, &b);
}
