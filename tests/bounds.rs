//! Bounds checks on the GPU and the simulator: an index out of a slice, a shared array, a
//! row of a 2-D tile, a local array or an atomic slice is `Error::OutOfBounds` naming the
//! kernel, the Rust file:line, the index and the length; the access is not performed (the
//! poisoned output keeps its poison), the first failure wins, and the device stays usable.
//! `#[gpu_kernel(unchecked)]` emits plain indexing.

mod common;

use common::{devices, line_of};
use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;
use warpspeed::{Device, Error, LaunchConfig};

const SOURCE: &str = include_str!("bounds.rs");
const FILE: &str = "tests/bounds.rs";

/// Thread i writes element i + shift: with shift 1 the last thread is one past the end.
#[gpu_kernel]
fn shifted_write(out: &mut [u32], shift: usize) {
    let i = grid_1d();
    out[i + shift] = i as u32; // @SLICE
}

#[gpu_kernel]
fn shared_overrun(out: &mut [u32], extra: usize) {
    let s = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    s[t] = 7;
    sync_threads();
    out[t] = s[t + extra]; // @SHARED
}

#[gpu_kernel]
fn tile_row_overrun(out: &mut [u32], row: usize) {
    let tile = SharedArray::<[u32; 8], 4>::new();
    let t = thread_idx().x as usize;
    tile[t / 8][t % 8] = 1;
    sync_threads();
    if t == 0 {
        out[0] = tile[row][0]; // @TILE
    }
}

#[gpu_kernel]
fn local_overrun(out: &mut [i32], k: usize) {
    let mut a = [0i32; 4];
    a[k] = 5; // @LOCAL
    out[0] = a[0];
}

#[gpu_kernel]
fn atomic_overrun(counts: &[AtomicU32], k: usize) {
    counts[k].fetch_add(1, Ordering::Relaxed); // @ATOMIC
}

#[gpu_kernel(unchecked)]
fn unchecked_copy(src: &[f32], dst: &mut [f32]) {
    let i = grid_1d();
    if i < dst.len() {
        dst[i] = src[i];
    }
}

/// The report's (file:line, index, length), with the kernel's name checked.
fn report(err: Error, kernel: &str) -> (String, u64, u64) {
    match err {
        Error::OutOfBounds {
            kernel: k,
            file,
            line,
            index,
            len,
            ..
        } => {
            assert_eq!(k, kernel);
            (format!("{file}:{line}"), index, len)
        }
        other => panic!("expected OutOfBounds from {kernel}, got: {other}"),
    }
}

fn at(marker: &str) -> String {
    format!("{FILE}:{}", line_of(SOURCE, marker))
}

#[test]
fn slice_overrun_is_reported_and_not_performed() {
    for dev in devices("bounds_slice") {
        let mut out = dev.upload(&vec![u32::MAX; 64]).unwrap();
        // The launch is queued; the report comes with the download.
        let launched = shifted_write::launch(&dev, LaunchConfig::new(2, 32), &mut out, 1);
        let err = launched
            .and_then(|()| out.download().map(|_| ()))
            .unwrap_err();
        let text = err.to_string();
        assert_eq!(
            report(err, "shifted_write"),
            (at("SLICE"), 64, 64),
            "{text}"
        );
        assert!(
            text.contains("(block (1, 0, 0), thread (31, 0, 0))"),
            "{text}"
        );
        // Every in-bounds write happened; nothing was written past the end (the buffer
        // after it is untouched) and the device goes on working.
        let mut guard = dev.upload(&vec![u32::MAX; 64]).unwrap();
        shifted_write::launch(&dev, LaunchConfig::new(2, 32), &mut guard, 0).unwrap();
        let want: Vec<u32> = (0..64).collect();
        assert_eq!(guard.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[test]
fn first_failure_wins() {
    for dev in devices("bounds_first") {
        let mut out = dev.zeros::<u32>(10).unwrap();
        let err = shifted_write::launch(&dev, LaunchConfig::new(4, 256), &mut out, 0)
            .and_then(|()| dev.synchronize())
            .unwrap_err();
        let (line, index, len) = report(err, "shifted_write");
        assert_eq!((line, len), (at("SLICE"), 10));
        assert!((10..1024).contains(&index), "{index}");
        // One report per failure: the next synchronisation is clean.
        dev.synchronize().unwrap();
    }
}

#[test]
fn shared_tile_local_and_atomic_overruns() {
    for dev in devices("bounds_kinds") {
        let mut out = dev.upload(&vec![9u32; 64]).unwrap();
        let err = shared_overrun::launch(&dev, LaunchConfig::new(1, 64), &mut out, 1)
            .and_then(|()| out.download().map(|_| ()))
            .unwrap_err();
        assert_eq!(
            report(err, "shared_overrun"),
            (at("SHARED"), 64, 64),
            "{:?}",
            dev.backend()
        );

        let mut out = dev.upload(&[9u32; 1]).unwrap();
        let err = tile_row_overrun::launch(&dev, LaunchConfig::new(1, 32), &mut out, 4)
            .and_then(|()| out.download().map(|_| ()))
            .unwrap_err();
        assert_eq!(
            report(err, "tile_row_overrun"),
            (at("TILE"), 4, 4),
            "{:?}",
            dev.backend()
        );

        let mut out = dev.zeros::<i32>(1).unwrap();
        let err = local_overrun::launch(&dev, LaunchConfig::new(1, 1), &mut out, 4)
            .and_then(|()| out.download().map(|_| ()));
        match (dev.backend(), err) {
            // On the GPU the check is warpspeed's; on the simulator, Rust's own.
            (warpspeed::Backend::Cuda, Err(e)) => {
                assert_eq!(report(e, "local_overrun"), (at("LOCAL"), 4, 4))
            }
            (warpspeed::Backend::Simulator, Err(Error::KernelPanic { message, .. })) => {
                assert!(message.contains("index out of bounds"), "{message}")
            }
            (b, other) => panic!("{b:?}: local overrun gave {other:?}"),
        }

        let mut counts = dev.zeros::<u32>(3).unwrap();
        let err = atomic_overrun::launch(&dev, LaunchConfig::new(1, 1), &mut counts, 3)
            .and_then(|()| counts.download().map(|_| ()))
            .unwrap_err();
        assert_eq!(
            report(err, "atomic_overrun"),
            (at("ATOMIC"), 3, 3),
            "{:?}",
            dev.backend()
        );
        assert_eq!(counts.download().unwrap(), vec![0, 0, 0]);
    }
}

#[test]
fn unchecked_kernels_index_directly() {
    let src = unchecked_copy::CUDA_SOURCE.as_str();
    let kernel = &src[src.find("void unchecked_copy").expect("entry")..];
    assert!(!kernel.contains("ws_at("), "{kernel}");
    assert!(shifted_write::CUDA_SOURCE.contains("ws_at("));
    let dev = Device::simulator();
    let a = dev.upload(&[1.5f32, 2.5]).unwrap();
    let mut b = dev.zeros::<f32>(2).unwrap();
    unchecked_copy::launch(&dev, LaunchConfig::new(1, 2), &a, &mut b).unwrap();
    assert_eq!(b.download().unwrap(), vec![1.5, 2.5]);
}
