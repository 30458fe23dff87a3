//! What goes wrong with borrowed memory is reported, never undefined: an index past a
//! sub-slice's own length (the report names the sub-slice's length, not its parent's), a
//! range whose start is past its end or whose end is past the length (Rust's checks, in
//! Rust's order), an index past a shared array inside the device function it was handed to
//! (the callee's line), a tile shorter than the `SharedArray<T, N>` the callee takes, and,
//! on the simulator, a data race on shared memory through a reference, reported at the
//! callee's lines. Bounds reports on both backends; outputs poisoned, nothing written past
//! a failure.

mod common;

use common::{devices, line_of, nvrtc_compiles};
use warpspeed::prelude::*;
use warpspeed::{Device, Error, LaunchConfig};

const SOURCE: &str = include_str!("slices_checks.rs");
const FILE: &str = "tests/slices_checks.rs";

fn at(marker: &str) -> String {
    format!("{FILE}:{}", line_of(SOURCE, marker))
}

/// The report's (file:line, index, length), with the kernel's name checked.
fn report(dev: &Device, r: warpspeed::Result<()>, kernel: &str) -> (String, u64, u64) {
    match r.and_then(|()| dev.synchronize()) {
        Err(Error::OutOfBounds {
            kernel: k,
            file,
            line,
            index,
            len,
            ..
        }) => {
            assert_eq!(k, kernel);
            (format!("{file}:{line}"), index, len)
        }
        other => panic!("expected OutOfBounds from {kernel}, got: {other:?}"),
    }
}

/// Thread 0 takes `&x[a..b]` and writes its element `k` to `out[0]`.
#[gpu_kernel]
fn sub_read(x: &[u32], a: usize, b: usize, k: usize, out: &mut [u32]) {
    if grid_1d() == 0 {
        let part = &x[a..b]; // @RANGE
        out[0] = part[k]; // @PART
        out[1] = part.len() as u32;
    }
}

#[test]
fn sub_slice_index_and_range_failures() {
    nvrtc_compiles(&[("sub_read", &sub_read::KERNEL)]);
    let x: Vec<u32> = (0..100).map(|i| i * 7 + 1).collect();
    for dev in devices("sub_slice_index_and_range_failures") {
        let dx = dev.upload(&x).unwrap();
        let cfg = LaunchConfig::new(1, 32);
        // In bounds: element 10 + 4, length 20.
        let mut out = dev.upload(&[u32::MAX; 2]).unwrap();
        sub_read::launch(&dev, cfg, &dx, 10, 30, 4, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), [x[14], 20], "{:?}", dev.backend());
        // Index 20 of a sub-slice of 20 (the parent has 100): the sub-slice's length.
        let mut out = dev.upload(&[u32::MAX; 2]).unwrap();
        let r = sub_read::launch(&dev, cfg, &dx, 10, 30, 20, &mut out);
        assert_eq!(report(&dev, r, "sub_read"), (at("PART"), 20, 20));
        // The end past the length: index 101 of length 100.
        let r = sub_read::launch(&dev, cfg, &dx, 10, 101, 0, &mut out);
        assert_eq!(report(&dev, r, "sub_read"), (at("RANGE"), 101, 100));
        // The start past the end: index 31 of "length" 30 (Rust's order: this first).
        let r = sub_read::launch(&dev, cfg, &dx, 31, 30, 0, &mut out);
        assert_eq!(report(&dev, r, "sub_read"), (at("RANGE"), 31, 30));
        let r = sub_read::launch(&dev, cfg, &dx, 300, 200, 0, &mut out);
        assert_eq!(report(&dev, r, "sub_read"), (at("RANGE"), 300, 200));
        // Nothing was stored by the failing launches, and the device goes on.
        let mut out = dev.upload(&[u32::MAX; 2]).unwrap();
        sub_read::launch(&dev, cfg, &dx, 0, 100, 99, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), [x[99], 100], "{:?}", dev.backend());
    }
}

/// Writes `tile[k]` in the device function it was handed to.
#[gpu_device]
fn poke(tile: &mut SharedArray<u32, 64>, k: usize) {
    tile[k] = 1; // @POKE
}

#[gpu_kernel]
fn shared_poke(k: usize, out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    tile[t] = 0;
    sync_threads();
    if t == 0 {
        poke(&mut tile, k);
    }
    sync_threads();
    out[t] = tile[t];
}

/// A tile of 32 handed to a function taking `SharedArray<u32, 64>`.
#[gpu_kernel]
fn short_tile(out: &mut [u32]) {
    let tile = SharedArray::<u32, 32>::new();
    let t = thread_idx().x as usize;
    tile[t] = 0;
    sync_threads();
    if t == 0 {
        poke(&mut tile, 0);
    }
    out[t] = 5;
}

#[test]
fn shared_reference_failures_name_the_callee() {
    nvrtc_compiles(&[
        ("shared_poke", &shared_poke::KERNEL),
        ("short_tile", &short_tile::KERNEL),
    ]);
    for dev in devices("shared_reference_failures_name_the_callee") {
        let cfg = LaunchConfig::new(1, 64);
        let mut out = dev.upload(&[u32::MAX; 64]).unwrap();
        shared_poke::launch(&dev, cfg, 3, &mut out).unwrap();
        let want: Vec<u32> = (0..64).map(|t| u32::from(t == 3)).collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
        let r = shared_poke::launch(&dev, cfg, 64, &mut out);
        assert_eq!(report(&dev, r, "shared_poke"), (at("POKE"), 64, 64));
        let mut out = dev.upload(&[u32::MAX; 32]).unwrap();
        let err = short_tile::launch(&dev, LaunchConfig::new(1, 32), &mut out)
            .and_then(|()| dev.synchronize())
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::SliceTooShort { .. }), "{text}");
        assert!(text.contains("`poke`") && text.contains("64"), "{text}");
    }
}

/// Thread `t` writes its slot and reads its neighbour's with no barrier between.
#[gpu_device]
fn rotate(tile: &mut SharedArray<u32, 64>, t: usize) -> u32 {
    tile[t] = t as u32; // @RACE-WRITE
    tile[(t + 1) % 64] // @RACE-READ
}

#[gpu_kernel]
fn racy_rotate(out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    out[t] = rotate(&mut tile, t);
}

/// The race, through a sub-slice of the tile bound in the kernel.
#[gpu_kernel]
fn racy_sub_slice(out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    let upper = &mut tile[32..];
    if t < 32 {
        upper[t] = 1; // @SUB-WRITE
    }
    out[t] = tile[63 - t]; // @SUB-READ
}

#[test]
fn shared_race_through_a_reference_names_the_callee() {
    let dev = Device::simulator();
    let mut out = dev.upload(&[u32::MAX; 64]).unwrap();
    let err = racy_rotate::launch(&dev, LaunchConfig::new(1, 64), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    for marker in ["RACE-WRITE", "RACE-READ"] {
        assert!(
            text.contains(&at(marker)),
            "should name {}: {text}",
            at(marker)
        );
    }
    let err = racy_sub_slice::launch(&dev, LaunchConfig::new(1, 64), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    for marker in ["SUB-WRITE", "SUB-READ"] {
        assert!(
            text.contains(&at(marker)),
            "should name {}: {text}",
            at(marker)
        );
    }
}

/// `split_at(mid)` with `mid` past the length.
#[gpu_kernel]
fn split_past(x: &[u32], mid: usize, out: &mut [u32]) {
    if grid_1d() == 0 {
        let (a, b) = x.split_at(mid); // @SPLIT
        out[0] = a.len() as u32 + b.len() as u32 * 1000;
    }
}

#[test]
fn split_at_past_the_length_is_reported() {
    nvrtc_compiles(&[("split_past", &split_past::KERNEL)]);
    for dev in devices("split_at_past_the_length_is_reported") {
        let dx = dev.upload(&[1u32; 10]).unwrap();
        let mut out = dev.upload(&[u32::MAX]).unwrap();
        let cfg = LaunchConfig::new(1, 32);
        split_past::launch(&dev, cfg, &dx, 4, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), [6004], "{:?}", dev.backend());
        let r = split_past::launch(&dev, cfg, &dx, 11, &mut out);
        assert_eq!(report(&dev, r, "split_past"), (at("SPLIT"), 11, 10));
    }
}
