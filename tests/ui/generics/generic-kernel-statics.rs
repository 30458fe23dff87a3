use warpspeed::prelude::*;

// A generic kernel's C and `KernelDef` are per instance: `axpy::cuda_source::<f32>()` and
// `axpy::kernel::<f32>()`, not the statics of a concrete kernel.
#[gpu_kernel]
fn axpy<T: Float>(y: &mut [T], a: T, x: &[T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn main() {
    println!("{}", *axpy::CUDA_SOURCE);
    let dev = warpspeed::Device::simulator();
    let _ = warpspeed::LaunchConfig::for_occupancy(&dev, &axpy::KERNEL, 1000);
}
