//! The kernels of a crate that names warpspeed `ws` (issue 20 S6), launched on the
//! simulator and on the GPU where there is one, against a CPU reference, outputs
//! poisoned. This file, too, names warpspeed only as `ws`.

use warpspeed_reexport::{apply, map, scale, Affine};
use ws::prelude::*;
use ws::Backend;

/// A third crate's kernel with the library's `pub` struct and device function, the
/// macros told the path as the library's are.
#[gpu_kernel(crate = "::ws")]
fn twice(t: Affine, x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] = warpspeed_reexport::apply(t, apply(t, x[i]));
    }
}

/// The simulator, then the GPU when there is one (as tests/common/mod.rs `devices`,
/// which names the crate `warpspeed`).
fn devices(test: &str) -> Vec<Device> {
    let mut v = vec![Device::simulator()];
    let require = std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1");
    match Device::new() {
        Ok(d) if d.backend() == Backend::Cuda => v.push(d),
        other => {
            assert!(!require, "WARPSPEED_REQUIRE_GPU=1 but no GPU was found");
            let why = other.err().map_or("no GPU".to_string(), |e| e.to_string());
            println!("SKIPPED {test} on the GPU: {why}; checked on the simulator only");
        }
    }
    v
}

/// xorshift: deterministic inputs without a dependency.
fn inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 20_000) as f32 / 1000.0 - 10.0
        })
        .collect()
}

/// NVRTC compiles the kernels' C (for sm_75 and sm_90), where it can be loaded.
fn nvrtc_compiles(kernels: &[(&str, &'static ws::KernelDef)]) {
    if !ws::compile::nvrtc_available() {
        assert!(
            std::env::var("WARPSPEED_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "NVRTC is required (WARPSPEED_REQUIRE_NVRTC=1) but not loadable"
        );
        println!("SKIPPED: NVRTC is not loadable here");
        return;
    }
    for arch in [(7, 5), (9, 0)] {
        for (name, k) in kernels {
            ws::compile::compile_cubin(k.source.as_str(), arch, k.options).unwrap_or_else(|e| {
                panic!("{name} does not compile for sm_{}{}: {e}", arch.0, arch.1)
            });
        }
    }
}

#[test]
fn struct_device_fn_and_kernel_under_another_crate_name() {
    nvrtc_compiles(&[
        ("map", map::kernel()),
        ("twice", twice::kernel()),
        ("scale::<f16>", scale::kernel::<ws::f16>()),
        ("scale::<f64>", scale::kernel::<f64>()),
    ]);
    let n = 3001;
    let t = Affine { a: 1.5, b: -0.25 };
    let x = inputs(n, 7);
    let want: Vec<f32> = x.iter().map(|&x| apply(t, x)).collect();
    assert!(map::cuda_source().contains("apply"));
    for dev in devices("struct_device_fn_and_kernel_under_another_crate_name") {
        let dx = dev.upload(&x).unwrap();
        let mut y = dev.upload(&vec![f32::NAN; n]).unwrap();
        map::launch(&dev, LaunchConfig::for_num_elems(n as u32), t, &dx, &mut y).unwrap();
        assert_eq!(y.download().unwrap(), want, "{:?}", dev.backend());
        let want2: Vec<f32> = want.iter().map(|&v| apply(t, v)).collect();
        let mut y2 = dev.upload(&vec![f32::NAN; n]).unwrap();
        twice::launch(&dev, LaunchConfig::for_num_elems(n as u32), t, &dx, &mut y2).unwrap();
        assert_eq!(y2.download().unwrap(), want2, "{:?}", dev.backend());
    }
}

#[test]
fn generic_kernel_under_another_crate_name() {
    let n = 1000;
    let x = inputs(n, 11);
    let want32: Vec<f32> = x.iter().map(|&v| v * 0.5).collect();
    let x16: Vec<ws::f16> = x.iter().map(|&v| ws::f16::from_f32(v)).collect();
    let want16: Vec<ws::f16> = x16.iter().map(|&v| v * ws::f16::from_f32(0.5)).collect();
    for dev in devices("generic_kernel_under_another_crate_name") {
        let cfg = LaunchConfig::for_num_elems(n as u32);
        let mut d32 = dev.upload(&x).unwrap();
        scale::launch(&dev, cfg, 0.5f32, &mut d32).unwrap();
        assert_eq!(d32.download().unwrap(), want32, "{:?}", dev.backend());
        let mut d16 = dev.upload(&x16).unwrap();
        scale::launch(&dev, cfg, ws::f16::from_f32(0.5), &mut d16).unwrap();
        assert_eq!(d16.download().unwrap(), want16, "{:?}", dev.backend());
    }
}
