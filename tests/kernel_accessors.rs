//! Every kernel module has `kernel()` and `cuda_source()` (issue 20, item 7): a concrete
//! kernel's give its statics `KERNEL` and `CUDA_SOURCE`, a generic kernel's take the
//! instance's parameters. What naming a generic kernel's `CUDA_SOURCE` gives is
//! tests/ui/generics/generic-kernel-statics.rs.

use warpspeed::prelude::*;
use warpspeed::{f16, KernelDef, LaunchConfig};

mod common;
use common::{devices, Rng};

#[gpu_kernel]
fn scale(y: &mut [f32], a: f32) {
    let i = grid_1d();
    if i < y.len() {
        y[i] *= a;
    }
}

#[gpu_kernel]
fn axpy<T: Float>(y: &mut [T], a: T, x: &[T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[test]
fn concrete_and_generic_kernels_have_the_same_accessors() {
    // Concrete: the functions are the statics.
    assert!(std::ptr::eq(scale::kernel(), &scale::KERNEL));
    assert_eq!(scale::cuda_source(), *scale::CUDA_SOURCE);
    assert!(scale::cuda_source().contains("scale("));
    // Generic: one per instance, built once.
    let k: &'static KernelDef = axpy::kernel::<f32>();
    assert!(std::ptr::eq(k, axpy::kernel::<f32>()));
    assert!(!std::ptr::eq(k, axpy::kernel::<f64>()));
    assert_eq!(axpy::cuda_source::<f32>(), k.source.as_str());
    assert!(axpy::cuda_source::<f64>().contains("double"));
    // Both kinds go where a `&'static KernelDef` goes.
    for dev in devices("kernel_accessors") {
        for k in [scale::kernel(), axpy::kernel::<f16>()] {
            let cfg = LaunchConfig::for_occupancy(&dev, k, 4096).unwrap();
            assert!(cfg.block.x >= 32, "{cfg:?}");
        }
        let n = 1000;
        let mut rng = Rng::new(3);
        let v: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
        let mut y = dev.upload(&v).unwrap();
        scale::launch(
            &dev,
            LaunchConfig::for_occupancy(&dev, scale::kernel(), n as u32).unwrap(),
            &mut y,
            2.5,
        )
        .unwrap();
        let want: Vec<f32> = v.iter().map(|x| x * 2.5).collect();
        assert_eq!(y.download().unwrap(), want);
    }
}
