//! The simulator's checks, each firing on a deliberately wrong kernel and staying silent on
//! the corrected one: data races on shared and global memory, barriers reached from different
//! places, out-of-bounds indices. Reports must name the Rust file and lines.

mod common;

use common::line_of;
use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;
use warpspeed::{Device, Error, LaunchConfig, SimOptions};

const SOURCE: &str = include_str!("sim_checks.rs");
const FILE: &str = "tests/sim_checks.rs";

fn sim() -> Device {
    Device::simulator()
}

/// Every thread writes its slot, then reads its right neighbour's: without the barrier the
/// neighbour may not have written yet.
#[gpu_kernel]
fn rotate_shared_racy(out: &mut [u32]) {
    let s = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    s[t] = t as u32 * 3; // @WRITE-SHARED
    out[t] = s[(t + 1) % 64]; // @READ-SHARED
}

#[gpu_kernel]
fn rotate_shared(out: &mut [u32]) {
    let s = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    s[t] = t as u32 * 3;
    sync_threads();
    out[t] = s[(t + 1) % 64];
}

#[test]
fn shared_race_is_reported_with_both_lines() {
    let dev = sim();
    let mut out = dev.upload(&vec![u32::MAX; 64]).unwrap();
    let err = rotate_shared_racy::launch(&dev, LaunchConfig::new(1, 64), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    for marker in ["WRITE-SHARED", "READ-SHARED"] {
        let at = format!("{FILE}:{}", line_of(SOURCE, marker));
        assert!(text.contains(&at), "report should name {at}: {text}");
    }
    assert!(text.contains("rotate_shared_racy"), "{text}");

    let mut out = dev.upload(&vec![u32::MAX; 64]).unwrap();
    rotate_shared::launch(&dev, LaunchConfig::new(1, 64), &mut out).unwrap();
    let want: Vec<u32> = (0..64).map(|t| ((t + 1) % 64) * 3).collect();
    assert_eq!(out.download().unwrap(), want);
}

/// Every block writes the same element: blocks are never ordered within a launch.
#[gpu_kernel]
fn last_block_wins(out: &mut [u32]) {
    if thread_idx().x == 0 {
        out[0] = block_idx().x; // @WRITE-GLOBAL
    }
}

#[gpu_kernel]
fn max_block(out: &[AtomicU32]) {
    if thread_idx().x == 0 {
        out[0].fetch_max(block_idx().x, Ordering::Relaxed);
    }
}

#[test]
fn global_race_between_blocks_is_reported() {
    let dev = sim();
    let mut out = dev.zeros::<u32>(1).unwrap();
    let err = last_block_wins::launch(&dev, LaunchConfig::new(8, 32), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    let at = format!("{FILE}:{}", line_of(SOURCE, "WRITE-GLOBAL"));
    assert!(text.contains(&at), "report should name {at}: {text}");
    assert!(
        text.contains("`out`"),
        "report should name the buffer: {text}"
    );

    let mut out = dev.zeros::<u32>(1).unwrap();
    max_block::launch(&dev, LaunchConfig::new(8, 32), &mut out).unwrap();
    assert_eq!(out.download().unwrap(), vec![7]);
}

/// Thread t reads what thread t - 1 writes, in global memory, with no barrier between.
#[gpu_kernel]
fn smooth_racy(data: &mut [i32]) {
    let t = thread_idx().x as usize;
    if t > 0 {
        let left = data[t - 1]; // @READ-LEFT
        data[t] = left + 1; // @WRITE-SELF
    }
}

#[gpu_kernel]
fn smooth(data: &mut [i32]) {
    let t = thread_idx().x as usize;
    let left = if t > 0 { data[t - 1] } else { 0 };
    sync_threads();
    if t > 0 {
        data[t] = left + 1;
    }
}

#[test]
fn global_race_within_a_block_is_reported() {
    let dev = sim();
    let mut data = dev.upload(&vec![10i32; 128]).unwrap();
    let err = smooth_racy::launch(&dev, LaunchConfig::new(1, 128), &mut data).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    for marker in ["READ-LEFT", "WRITE-SELF"] {
        let at = format!("{FILE}:{}", line_of(SOURCE, marker));
        assert!(text.contains(&at), "report should name {at}: {text}");
    }

    let mut data = dev.upload(&vec![10i32; 128]).unwrap();
    smooth::launch(&dev, LaunchConfig::new(1, 128), &mut data).unwrap();
    let got = data.download().unwrap();
    assert_eq!(got[0], 10);
    assert!(got[1..].iter().all(|&v| v == 11), "{got:?}");
}

/// Half the block waits at one barrier, half at another: on the GPU, undefined behaviour.
#[gpu_kernel]
fn split_barrier(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if t < 16 {
        sync_threads(); // @BARRIER-A
        out[t] = 1;
    } else {
        sync_threads(); // @BARRIER-B
        out[t] = 2;
    }
}

/// Threads past the end return early; the rest still meet at the barrier (as on the GPU,
/// exited threads do not hold it up).
#[gpu_kernel]
fn reverse_prefix(out: &mut [u32], n: usize) {
    let s = SharedArray::<u32, 256>::new();
    let t = thread_idx().x as usize;
    if t >= n {
        return;
    }
    s[t] = t as u32;
    sync_threads();
    out[t] = s[n - 1 - t];
}

#[test]
fn divergent_barrier_is_reported_and_early_return_is_fine() {
    let dev = sim();
    let mut out = dev.zeros::<u32>(32).unwrap();
    let err = split_barrier::launch(&dev, LaunchConfig::new(1, 32), &mut out).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DivergentBarrier { .. }), "{text}");
    for marker in ["BARRIER-A", "BARRIER-B"] {
        let at = format!("{FILE}:{}", line_of(SOURCE, marker));
        assert!(text.contains(&at), "report should name {at}: {text}");
    }

    let n = 200;
    let mut out = dev.upload(&vec![u32::MAX; 256]).unwrap();
    reverse_prefix::launch(&dev, LaunchConfig::new(1, 256), &mut out, n).unwrap();
    let got = out.download().unwrap();
    for (t, &g) in got.iter().enumerate() {
        let want = if t < n { (n - 1 - t) as u32 } else { u32::MAX };
        assert_eq!(g, want, "element {t}");
    }
}

#[gpu_kernel]
fn off_by_one(out: &mut [f32]) {
    let i = grid_1d();
    out[i + 1] = 1.0; // @OOB
}

#[test]
fn out_of_bounds_names_kernel_line_index_and_length() {
    let dev = sim();
    let mut out = dev.zeros::<f32>(64).unwrap();
    let err = off_by_one::launch(&dev, LaunchConfig::new(2, 32), &mut out).unwrap_err();
    let text = err.to_string();
    match &err {
        Error::OutOfBounds { index, len, .. } => assert_eq!((*index, *len), (64, 64), "{text}"),
        other => panic!("expected OutOfBounds, got {other}"),
    }
    let at = format!("{FILE}:{}", line_of(SOURCE, "OOB"));
    assert!(text.contains(&at) && text.contains("off_by_one"), "{text}");
    assert!(
        text.contains("(31, 0, 0)") && text.contains("(1, 0, 0)"),
        "{text}"
    );
}

#[test]
fn seeded_thread_order_keeps_correct_kernels_correct() {
    let want: Vec<u32> = (0..64).map(|t| ((t + 1) % 64) * 3).collect();
    for seed in [1, 2, 3, 0xDEAD_BEEF] {
        let dev = Device::simulator_with(SimOptions {
            seed: Some(seed),
            ..SimOptions::default()
        });
        let mut out = dev.upload(&vec![u32::MAX; 64]).unwrap();
        rotate_shared::launch(&dev, LaunchConfig::new(1, 64), &mut out).unwrap();
        assert_eq!(out.download().unwrap(), want, "seed {seed}");
        let mut out = dev.upload(&vec![u32::MAX; 64]).unwrap();
        let err = rotate_shared_racy::launch(&dev, LaunchConfig::new(1, 64), &mut out);
        assert!(
            matches!(err, Err(Error::DataRace { .. })),
            "seed {seed}: {err:?}"
        );
    }
}

#[test]
fn race_checks_can_be_turned_off() {
    let dev = Device::simulator_with(SimOptions {
        race_checks: false,
        ..SimOptions::default()
    });
    let mut out = dev.zeros::<u32>(1).unwrap();
    last_block_wins::launch(&dev, LaunchConfig::new(8, 32), &mut out).unwrap();
    assert!(out.download().unwrap()[0] < 8);
}
