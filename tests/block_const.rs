//! `#[gpu_kernel(block = (B, 1, 1))]` with a const parameter `B` (issue 20, item 8): each
//! instance has its concrete block shape, which the launch checks, NVRTC gets as
//! `__launch_bounds__`, and the bounds prover knows as `thread_idx().x <= B - 1`. On the
//! simulator and the GPU where there is one, against a CPU reference, outputs poisoned.

use warpspeed::prelude::*;
use warpspeed::{Error, LaunchConfig};

mod common;
use common::{devices, Rng};

/// A block's sum of `B` elements, one thread each: `tile[t]` and `tile[k]` need no check
/// (`t <= B - 1` from the block shape, `k <= B - 1` from the loop), `x[i]` none either.
#[gpu_kernel(block = (B, 1, 1))]
fn block_sum<const B: usize>(#[len(n)] x: &[u32], sums: &mut [u32], n: usize) {
    let tile = SharedArray::<u32, B>::new();
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * B + t;
    tile[t] = if i < n { x[i] } else { 0 };
    sync_threads();
    if t == 0 {
        let mut s = 0u32;
        for k in 0..B {
            s = s.wrapping_add(tile[k]);
        }
        sums[block_idx().x as usize] = s;
    }
}

/// The same without the declared shape: `tile[t]` keeps its check.
#[gpu_kernel]
fn block_sum_any<const B: usize>(#[len(n)] x: &[u32], sums: &mut [u32], n: usize) {
    let tile = SharedArray::<u32, B>::new();
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * B + t;
    tile[t] = if i < n { x[i] } else { 0 };
    sync_threads();
    if t == 0 {
        let mut s = 0u32;
        for k in 0..B {
            s = s.wrapping_add(tile[k]);
        }
        sums[block_idx().x as usize] = s;
    }
}

/// Arithmetic of a const parameter and literals: `(2 * W, 2, 1)`, 2 * W * 2 threads.
#[gpu_kernel(block = (2 * W, 2, 1))]
fn count_threads<const W: usize>(out: &mut [u32]) {
    let t = thread_idx().y as usize * 2 * W + thread_idx().x as usize;
    let b = block_idx().x as usize;
    out[b * 4 * W + t] = (t as u32) ^ (b as u32) << 16;
}

fn reference(x: &[u32], b: usize, blocks: usize) -> Vec<u32> {
    (0..blocks)
        .map(|k| {
            x.iter()
                .skip(k * b)
                .take(b)
                .fold(0u32, |a, v| a.wrapping_add(*v))
        })
        .collect()
}

#[test]
fn each_instance_launches_with_its_block() {
    let n: usize = 3000;
    let mut rng = Rng::new(8);
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    for dev in devices("block_const_each_instance") {
        let xs = dev.upload(&x).unwrap();

        let blocks = n.div_ceil(64);
        let mut sums = dev.upload(&vec![0xdead_beef_u32; blocks]).unwrap();
        let cfg = LaunchConfig::new(blocks as u32, 64);
        block_sum::launch::<64>(&dev, cfg, &xs, &mut sums, n).unwrap();
        assert_eq!(sums.download().unwrap(), reference(&x, 64, blocks));

        let blocks = n.div_ceil(256);
        let mut sums = dev.upload(&vec![0xdead_beef_u32; blocks]).unwrap();
        let cfg = LaunchConfig::new(blocks as u32, 256);
        block_sum::launch::<256>(&dev, cfg, &xs, &mut sums, n).unwrap();
        assert_eq!(sums.download().unwrap(), reference(&x, 256, blocks));

        // The shape-free twin computes the same.
        let mut sums = dev.upload(&vec![0xdead_beef_u32; blocks]).unwrap();
        block_sum_any::launch::<256>(&dev, cfg, &xs, &mut sums, n).unwrap();
        assert_eq!(sums.download().unwrap(), reference(&x, 256, blocks));

        let w = 8;
        let mut out = dev.upload(&vec![u32::MAX; 3 * 4 * w]).unwrap();
        count_threads::launch::<8>(&dev, LaunchConfig::new(3, (16, 2)), &mut out).unwrap();
        let want: Vec<u32> = (0..3 * 4 * w)
            .map(|j| (j % (4 * w)) as u32 ^ ((j / (4 * w)) as u32) << 16)
            .collect();
        assert_eq!(out.download().unwrap(), want);
    }
}

#[test]
fn a_launch_with_another_block_is_refused() {
    for dev in devices("block_const_refused") {
        let xs = dev.upload(&[1u32; 512]).unwrap();
        let mut sums = dev.upload(&[7u32; 4]).unwrap();
        // The B = 64 instance with blocks of 128.
        let cfg = LaunchConfig::new(4, 128);
        let err = block_sum::launch::<64>(&dev, cfg, &xs, &mut sums, 512).unwrap_err();
        assert!(matches!(err, Error::InvalidLaunch { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "invalid launch of kernel `block_sum` with grid (4, 1, 1), block (128, 1, 1): \
             the kernel declares #[gpu_kernel(block = (64, 1, 1))], so every launch needs \
             blocks of (64, 1, 1) threads"
        );
        // The B = 256 instance with blocks of 64.
        let err = block_sum::launch::<256>(&dev, LaunchConfig::new(4, 64), &xs, &mut sums, 512)
            .unwrap_err();
        assert!(err.to_string().contains("block = (256, 1, 1)"), "{err}");
        let err =
            count_threads::launch::<8>(&dev, LaunchConfig::new(1, 32), &mut sums).unwrap_err();
        assert!(err.to_string().contains("block = (16, 2, 1)"), "{err}");
        // Nothing ran.
        assert_eq!(sums.download().unwrap(), vec![7u32; 4]);
    }
}

/// The instance's block, as its `KernelDef` has it and as the C's `__launch_bounds__`.
#[test]
fn each_instance_has_its_launch_bounds() {
    assert_eq!(block_sum::kernel::<64>().block, Some([64, 1, 1]));
    assert_eq!(block_sum::kernel::<256>().block, Some([256, 1, 1]));
    assert_eq!(count_threads::kernel::<8>().block, Some([16, 2, 1]));
    for (b, k) in [
        (64, block_sum::kernel::<64>()),
        (256, block_sum::kernel::<256>()),
    ] {
        let src = k.source.as_str();
        // `__launch_bounds__((ws_c0))`: the constant's macro, defined as the instance's B.
        let at = src.find("__launch_bounds__((").expect("launch bounds") + 19;
        let name: String = src[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let define = format!("#define {name} ");
        let value = src
            .lines()
            .find_map(|l| l.strip_prefix(&define))
            .expect("the constant's macro");
        assert_eq!(value, format!("((unsigned long long){b}ull)"));
        // The prover knew `t <= B - 1`: no check on the shared tile.
        let body = src.split("// ---- end of the prelude").nth(1).unwrap();
        assert!(!body.contains("ws_at_shared("), "{body}");
    }
    let free = block_sum_any::kernel::<64>().source.as_str();
    let body = free.split("// ---- end of the prelude").nth(1).unwrap();
    assert!(body.contains("ws_at_shared("), "{body}");
    assert!(!body.contains("__launch_bounds__"));
    let src = count_threads::kernel::<8>().source.as_str();
    assert!(src.contains("__launch_bounds__((ws_"), "{src}");
}

#[test]
fn nvrtc_compiles_each_instance_with_its_bounds() {
    common::nvrtc_compiles(&[
        ("block_sum::<64>", block_sum::kernel::<64>()),
        ("block_sum::<256>", block_sum::kernel::<256>()),
        ("count_threads::<8>", count_threads::kernel::<8>()),
        ("tile_ids", tile_ids::kernel()),
    ]);
}

/// A module-level constant gives a concrete kernel's shape the same way.
const SIDE: u32 = 8;

#[gpu_kernel(block = (SIDE, SIDE))]
fn tile_ids(out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().y as usize * 8 + thread_idx().x as usize;
    tile[t] = t as u32;
    sync_threads();
    out[block_idx().x as usize * 64 + t] = tile[63 - t];
}

#[test]
fn a_constant_gives_a_concrete_kernels_shape() {
    assert_eq!(tile_ids::KERNEL.block, Some([8, 8, 1]));
    assert!(tile_ids::CUDA_SOURCE.contains("__launch_bounds__((ws_"));
    for dev in devices("block_const_constant") {
        let mut out = dev.upload(&[u32::MAX; 128]).unwrap();
        tile_ids::launch(&dev, LaunchConfig::new(2, (8, 8)), &mut out).unwrap();
        let want: Vec<u32> = (0..128).map(|j| 63 - (j % 64)).collect();
        assert_eq!(out.download().unwrap(), want);
        let err = tile_ids::launch(&dev, LaunchConfig::new(2, (64, 1)), &mut out).unwrap_err();
        assert!(err.to_string().contains("block = (8, 8, 1)"), "{err}");
    }
}
