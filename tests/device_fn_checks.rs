//! Checks inside device functions (docs/bounds.md, "Checks in device functions"): on a GPU
//! a failing index there is kept in the kernel's record and reported when the kernel
//! returns, at a `return` or at its end. These kernels draw from per-thread states through
//! a device function, as seed 002's π kernel does, and must agree with the CPU; a state
//! index past the slice is `Error::OutOfBounds` naming the kernel and the device
//! function's line, however the kernel leaves, on both backends.

mod common;

use common::{devices, line_of, nvrtc_compiles, Rng};
use warpspeed::prelude::*;
use warpspeed::{Error, LaunchConfig};

const SOURCE: &str = include_str!("device_fn_checks.rs");
const FILE: &str = "tests/device_fn_checks.rs";

/// One xorshift64 step of `states[index]`, read and written in place: the new state.
#[gpu_device]
fn step(states: &mut [u64], index: usize) -> u64 {
    let mut x = states[index]; // @READ
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    states[index] = x; // @WRITE
    x
}

/// Thread `t` steps `states[t]` twice a round for `rounds` rounds and writes the sum of
/// the high halves of what it drew. Threads `t >= stop` return before writing (a `return`
/// after the calls: the record must be made there too).
#[gpu_kernel]
fn draws(states: &mut [u64], rounds: u32, stop: usize, out: &mut [u64]) {
    let t = grid_1d();
    if t < out.len() {
        let mut sum = 0u64;
        let mut r = 0u32;
        while r < rounds {
            sum += step(states, t) >> 32;
            sum += step(states, t) >> 32;
            r += 1;
        }
        if t >= stop {
            return;
        }
        out[t] = sum;
    }
}

fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// The CPU's `draws` over threads that have a state: (states after, outputs).
fn reference(states: &[u64], rounds: u32) -> (Vec<u64>, Vec<u64>) {
    let mut after = states.to_vec();
    let out = after
        .iter_mut()
        .map(|s| {
            let mut sum = 0u64;
            for _ in 0..2 * rounds {
                *s = xorshift(*s);
                sum = sum.wrapping_add(*s >> 32);
            }
            sum
        })
        .collect();
    (after, out)
}

#[test]
fn draws_from_states_in_a_device_function_equal_the_cpu() {
    nvrtc_compiles(&[("draws", &draws::KERNEL)]);
    let mut rng = Rng::new(23);
    for dev in devices("draws_from_states_in_a_device_function_equal_the_cpu") {
        for (n, rounds) in [(1usize, 1u32), (1000, 37), (4096, 500)] {
            let states: Vec<u64> = (0..n).map(|_| rng.next_u64() | 1).collect();
            let (want_states, want_out) = reference(&states, rounds);
            let mut ds = dev.upload(&states).unwrap();
            let mut out = dev.upload(&vec![u64::MAX; n]).unwrap();
            let cfg = LaunchConfig::new((n as u32).div_ceil(128), 128);
            draws::launch(&dev, cfg, &mut ds, rounds, n, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                want_out,
                "{:?} n={n}",
                dev.backend()
            );
            assert_eq!(
                ds.download().unwrap(),
                want_states,
                "{:?} n={n}",
                dev.backend()
            );
        }
    }
}

#[test]
fn a_state_index_past_the_slice_is_reported_at_the_device_functions_line() {
    let read = format!("{FILE}:{}", line_of(SOURCE, "READ"));
    let mut rng = Rng::new(29);
    for dev in devices("a_state_index_past_the_slice_is_reported_at_the_device_functions_line") {
        // 200 threads, 150 states; `stop` 100 (threads past the states return before
        // writing) or 200 (every thread reaches the end).
        for stop in [100usize, 200] {
            let states: Vec<u64> = (0..150).map(|_| rng.next_u64() | 1).collect();
            let (want_states, want_out) = reference(&states, 9);
            let mut ds = dev.upload(&states).unwrap();
            let mut out = dev.upload(&[u64::MAX; 200]).unwrap();
            let r = draws::launch(&dev, LaunchConfig::new(2, 100), &mut ds, 9, stop, &mut out);
            match r.and_then(|()| dev.synchronize()) {
                Err(Error::OutOfBounds {
                    kernel,
                    file,
                    line,
                    index,
                    len,
                    ..
                }) => {
                    assert_eq!(kernel, "draws");
                    assert_eq!(format!("{file}:{line}"), read, "{:?}", dev.backend());
                    assert_eq!(len, 150);
                    assert!((150..200).contains(&index), "index {index}");
                }
                other => panic!("expected OutOfBounds, got {other:?}"),
            }
            if dev.backend() == warpspeed::Backend::Cuda {
                // The GPU goes on past the failing threads: the others' states and
                // outputs are right, and no state past the slice was written.
                let got = out.download().unwrap();
                assert_eq!(&got[..100], &want_out[..100], "stop {stop}");
                assert_eq!(ds.download().unwrap(), want_states, "stop {stop}");
            }
            // The device is usable after the report.
            let mut small = dev.upload(&states[..1]).unwrap();
            let mut one = dev.upload(&[0u64]).unwrap();
            draws::launch(&dev, LaunchConfig::new(1, 1), &mut small, 1, 1, &mut one).unwrap();
            assert_eq!(one.download().unwrap(), reference(&states[..1], 1).1);
        }
    }
}

/// A flag and a count: a struct with a field (`bool`) that not every bit pattern is.
#[gpu_struct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Flagged {
    on: bool,
    count: u32,
}

/// Flips `flags[i]`, returning what it was.
#[gpu_device]
fn flip(flags: &mut [bool], i: usize) -> bool {
    let was = flags[i];
    flags[i] = !was;
    was
}

/// Flips `items[i].on` and counts the flip, returning what `on` was.
#[gpu_device]
fn flip_item(items: &mut [Flagged], i: usize) -> bool {
    let was = items[i];
    items[i] = Flagged {
        on: !was.on,
        count: was.count + 1,
    };
    was.on
}

/// Thread `t` flips `flags[at + t]` and `items[at + t]` twice each and writes what the four
/// flips read, as bits 0 to 3 of `out[t]`.
#[gpu_kernel]
fn flips(flags: &mut [bool], items: &mut [Flagged], at: usize, out: &mut [u32]) {
    let t = grid_1d();
    if t < out.len() {
        let i = at + t;
        let a = flip(flags, i);
        let b = flip(flags, i);
        let c = flip_item(items, i);
        let d = flip_item(items, i);
        out[t] = a as u32 | (b as u32) << 1 | (c as u32) << 2 | (d as u32) << 3;
    }
}

#[test]
fn a_failing_read_of_bools_in_a_device_function_is_false_on_the_gpu() {
    // A failing read of a writable slice in a device function reads the sink that failing
    // writes reach, so an element of any bit pattern comes back unspecified; a `bool`,
    // or a struct holding one, must still be a `bool`: `false`, even just after the same
    // thread's failing write of `true` went to the sink.
    nvrtc_compiles(&[("flips", &flips::KERNEL)]);
    for dev in devices("a_failing_read_of_bools_in_a_device_function_is_false_on_the_gpu") {
        let flags = [true, false, true, false];
        let items: Vec<Flagged> = flags.iter().map(|&on| Flagged { on, count: 7 }).collect();
        let mut df = dev.upload(&flags).unwrap();
        let mut di = dev.upload(&items).unwrap();
        let mut out = dev.upload(&[u32::MAX; 64]).unwrap();
        // Threads 0..2 flip elements 2 and 3; threads 2..64 index past the four.
        let r = flips::launch(
            &dev,
            LaunchConfig::new(1, 64),
            &mut df,
            &mut di,
            2,
            &mut out,
        );
        match r.and_then(|()| dev.synchronize()) {
            Err(Error::OutOfBounds { index, len, .. }) => {
                assert_eq!(len, 4);
                assert!((4..66).contains(&index), "index {index}");
            }
            other => panic!("expected OutOfBounds, got {other:?}"),
        }
        if dev.backend() == warpspeed::Backend::Cuda {
            let got = out.download().unwrap();
            // In bounds: element 2 (true) reads true, then false; element 3 the opposite.
            assert_eq!(got[0], 0b0101);
            assert_eq!(got[1], 0b1010);
            assert!(got[2..].iter().all(|&v| v == 0), "{got:?}");
            // Each element flipped twice: as it was, counted twice.
            assert_eq!(df.download().unwrap(), flags);
            let want: Vec<Flagged> = items
                .iter()
                .enumerate()
                .map(|(k, &f)| Flagged {
                    count: if k >= 2 { 9 } else { 7 },
                    ..f
                })
                .collect();
            assert_eq!(di.download().unwrap(), want);
        }
    }
}
