//! Launch sizes given as `usize` (docs/host-api.md, "Launch sizes"): `LaunchConfig::new`,
//! `for_num_elems`, `with_shared_mem` and `for_occupancy` take any integer type, and a size
//! that does not fit CUDA's 32-bit `dim3` is an `Error::InvalidLaunch` naming the value
//! and the device's limit, never a truncated grid. On the simulator and on the GPU where
//! there is one: random data against the CPU, outputs poisoned before each run.

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;

/// `out[i] = a * x[i] + 1`.
#[gpu_kernel]
fn affine(out: &mut [f32], x: &[f32], a: f32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = a * x[i] + 1.0;
    }
}

/// `out[i] = x[i]`, staged through dynamic shared memory of one `f32` per thread.
#[gpu_kernel]
fn staged(out: &mut [f32], x: &[f32]) {
    let tile = dynamic_shared::<f32>();
    let t = thread_idx().x as usize;
    let i = grid_1d();
    if i < out.len() {
        tile[t] = x[i];
        out[i] = tile[t];
    }
}

fn inputs(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.range_f32(-1e3, 1e3)).collect()
}

fn affine_cpu(x: &[f32], a: f32) -> Vec<u32> {
    x.iter().map(|&v| (a * v + 1.0).to_bits()).collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn usize_sizes_launch_on_every_backend() {
    for dev in devices("usize_sizes_launch_on_every_backend") {
        let n: usize = 70_001;
        let x = inputs(n, 11);
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let configs = [
            LaunchConfig::new(n.div_ceil(256), 256),
            LaunchConfig::new((n.div_ceil(128), 1usize), (128u32, 1, 1)),
            LaunchConfig::for_num_elems(n),
            LaunchConfig::for_occupancy(&dev, &affine::KERNEL, n).unwrap(),
        ];
        for (k, cfg) in configs.into_iter().enumerate() {
            out.fill(f32::NAN).unwrap();
            let a = 0.5 + k as f32;
            affine::launch(&dev, cfg, &mut out, &dx, a).unwrap();
            assert_eq!(
                bits(&out.download().unwrap()),
                affine_cpu(&x, a),
                "{:?} {cfg}",
                dev.backend()
            );
        }
        // Dynamic shared memory in bytes as `usize` (`n * size_of::<f32>()`).
        let block: usize = 128;
        let cfg = LaunchConfig::new(n.div_ceil(block), block)
            .with_shared_mem(block * std::mem::size_of::<f32>());
        out.fill(f32::NAN).unwrap();
        staged::launch(&dev, cfg, &mut out, &dx).unwrap();
        assert_eq!(
            bits(&out.download().unwrap()),
            bits(&x),
            "{:?}",
            dev.backend()
        );
    }
}

/// The reason of an `InvalidLaunch`, or a panic naming what came instead.
fn reason(result: Result<(), Error>) -> String {
    match result {
        Err(Error::InvalidLaunch { kernel, reason, .. }) => {
            assert_eq!(kernel, "affine");
            reason
        }
        other => panic!("expected InvalidLaunch, got {other:?}"),
    }
}

#[test]
fn sizes_that_do_not_fit_are_errors_naming_value_and_limit() {
    for dev in devices("sizes_that_do_not_fit_are_errors_naming_value_and_limit") {
        let n = 1000;
        let x = inputs(n, 12);
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
        let max_x = dev.limits().max_grid_dim.x;
        // 2^32 + 1 blocks: a truncating `as u32` would launch one block.
        let big: usize = (1 << 32) + 1;
        let r = reason(affine::launch(
            &dev,
            LaunchConfig::new(big, 256),
            &mut out,
            &dx,
            2.0,
        ));
        assert!(
            r.contains("grid dimension x is 4294967297") && r.contains(&format!("at most {max_x}")),
            "{r}"
        );
        let err = affine::launch(
            &dev,
            LaunchConfig::new(1, (256usize, 1usize << 40)),
            &mut out,
            &dx,
            2.0,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("block dimension y is 1099511627776")
                && err.contains("block (256, 1099511627776, 1)"),
            "{err}"
        );
        let r = reason(affine::launch(
            &dev,
            LaunchConfig::for_num_elems(1usize << 41),
            &mut out,
            &dx,
            2.0,
        ));
        assert!(r.contains("grid dimension x is 8589934592"), "{r}");
        let r = reason(affine::launch(
            &dev,
            LaunchConfig::new(-3, 256),
            &mut out,
            &dx,
            2.0,
        ));
        assert!(
            r.contains("grid dimension x is -3") && r.contains("negative"),
            "{r}"
        );
        let r = reason(affine::launch(
            &dev,
            LaunchConfig::new(4, 256).with_shared_mem(1usize << 32),
            &mut out,
            &dx,
            2.0,
        ));
        assert!(
            r.contains("4294967296 bytes of dynamic shared memory"),
            "{r}"
        );
        let err = LaunchConfig::for_occupancy(&dev, &affine::KERNEL, 1u64 << 45).unwrap_err();
        assert!(
            err.to_string().contains("grid dimension x is"),
            "{:?} {err}",
            dev.backend()
        );
        // Nothing ran.
        dev.synchronize().unwrap();
        assert!(out.download().unwrap().iter().all(|v| v.is_nan()));
    }
}

#[test]
fn launch_size_kernels_compile_with_nvrtc() {
    common::nvrtc_compiles(&[("affine", &affine::KERNEL), ("staged", &staged::KERNEL)]);
}
