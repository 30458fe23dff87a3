//! A generic kernel's instances are compiled once each (docs/language.md, "Generics"):
//! the first launch of an instance runs NVRTC, a second launch of it does not, and another
//! instance is another compilation. Alone in its test binary, so NVRTC's process-wide
//! compilation count is this test's; the disk cache is off, so the first launch compiles.
//! Runs on the GPU (skipped, with a notice, without one).

use warpspeed::compile::nvrtc_compile_count;
use warpspeed::prelude::*;
use warpspeed::{Backend, LaunchConfig};

mod common;

#[gpu_kernel]
fn scale<T: Float>(y: &mut [T], a: T) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = y[i] * a;
    }
}

#[test]
fn second_launch_of_an_instance_does_not_recompile() {
    // Before any device exists: the disk cache reads this when it is first opened.
    std::env::set_var("WARPSPEED_CACHE", "off");
    for dev in common::devices("second_launch_of_an_instance_does_not_recompile") {
        let cfg = LaunchConfig::new(1, 64);
        let mut y32 = dev.upload(&[3.0f32; 64]).unwrap();
        let mut y64 = dev.upload(&[3.0f64; 64]).unwrap();
        let start = nvrtc_compile_count();
        scale::launch(&dev, cfg, &mut y32, 2.0f32).unwrap();
        let first = nvrtc_compile_count();
        scale::launch(&dev, cfg, &mut y32, 2.0f32).unwrap();
        let second = nvrtc_compile_count();
        scale::launch::<f64>(&dev, cfg, &mut y64, 0.5).unwrap();
        scale::launch::<f64>(&dev, cfg, &mut y64, 0.5).unwrap();
        let other = nvrtc_compile_count();
        assert_eq!(y32.download().unwrap(), vec![12.0f32; 64]);
        assert_eq!(y64.download().unwrap(), vec![0.75f64; 64]);
        if dev.backend() == Backend::Cuda {
            assert_eq!(
                first,
                start + 1,
                "the first launch of scale::<f32> compiles it"
            );
            assert_eq!(
                second, first,
                "a second launch of scale::<f32> does not recompile"
            );
            assert_eq!(
                other,
                second + 1,
                "scale::<f64> is compiled once, on its own"
            );
        } else {
            assert_eq!(other, start, "the simulator compiles nothing");
        }
    }
}
