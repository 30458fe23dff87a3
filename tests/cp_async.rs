//! Asynchronous copies, global to shared (`cp_async`, `cp_async_commit`, `cp_async_wait`,
//! `cp_async_wait_all`; docs/tensor-cores.md "Asynchronous copies"): pipelined tile sums of
//! 2 and 3 stages against the CPU, every copy size, the misuse reported as errors, and on
//! the simulator the race of a destination read before its wait (or without the barrier
//! after it). Both backends where a kernel runs; outputs poisoned before each run.

use warpspeed::prelude::*;
use warpspeed::{f16, Device, Error, LaunchConfig, SimOptions};

mod common;
use common::{devices, expect_oob, line_of, Rng};

const SOURCE: &str = include_str!("cp_async.rs");
const FILE: &str = "tests/cp_async.rs";
/// Threads per block of the pipeline kernel: each copies 16 bytes (4 `u32`) per chunk.
const THREADS: usize = 128;

/// A `stages`-deep pipeline (2 or 3) over `chunks` chunks of `THREADS * 4` values per
/// block: while chunk `c` is summed, chunks up to `c + stages - 1` are in flight. Thread
/// `t` sums its right neighbour's 4 values of each chunk (weights 1..4), so the barrier
/// after the wait matters.
#[gpu_kernel]
fn pipeline_sum(input: &[u32], out: &mut [u32], chunks: u32, stages: u32) {
    let tile = SharedArray::<u32, 1536>::new(); // 3 stages x 128 threads x 4
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let (chunks, s) = (chunks as usize, stages as usize);
    let base = block_idx().x as usize * chunks * n * 4;
    for c in 0..s - 1 {
        if c < chunks {
            let (src, dst) = (base + c * n * 4 + t * 4, (c % s) * n * 4 + t * 4);
            cp_async(&mut tile[dst..dst + 4], &input[src..src + 4]);
        }
        cp_async_commit();
    }
    let mut acc = 0u32;
    for c in 0..chunks {
        let next = c + s - 1;
        if next < chunks {
            let (src, dst) = (base + next * n * 4 + t * 4, (next % s) * n * 4 + t * 4);
            cp_async(&mut tile[dst..dst + 4], &input[src..src + 4]);
        }
        cp_async_commit();
        cp_async_wait(stages - 1);
        sync_threads();
        let at = (c % s) * n * 4 + (t + 1) % n * 4;
        for k in 0..4 {
            acc += tile[at + k] * (k as u32 + 1);
        }
        sync_threads();
    }
    out[block_idx().x as usize * n + t] = acc;
}

fn pipeline_reference(input: &[u32], blocks: usize, chunks: usize) -> Vec<u32> {
    let n = THREADS;
    let mut out = vec![0u32; blocks * n];
    for b in 0..blocks {
        for t in 0..n {
            let mut acc = 0u32;
            for c in 0..chunks {
                let at = b * chunks * n * 4 + c * n * 4 + (t + 1) % n * 4;
                for k in 0..4 {
                    acc += input[at + k] * (k as u32 + 1);
                }
            }
            out[b * n + t] = acc;
        }
    }
    out
}

#[test]
fn pipelines_of_two_and_three_stages_match_the_cpu() {
    let (blocks, chunks) = (3usize, 5usize);
    let mut rng = Rng::new(21);
    let input: Vec<u32> = (0..blocks * chunks * THREADS * 4)
        .map(|_| rng.next_u32() % 1000)
        .collect();
    let want = pipeline_reference(&input, blocks, chunks);
    for dev in devices("pipelines_of_two_and_three_stages_match_the_cpu") {
        let d_in = dev.upload(&input).unwrap();
        for stages in [2u32, 3] {
            let mut out = dev.upload(&vec![u32::MAX; blocks * THREADS]).unwrap();
            pipeline_sum::launch(
                &dev,
                LaunchConfig::new(blocks as u32, THREADS as u32),
                &d_in,
                &mut out,
                chunks as u32,
                stages,
            )
            .unwrap();
            assert_eq!(
                out.download().unwrap(),
                want,
                "{stages} stages on {:?}",
                dev.backend()
            );
        }
    }
}

/// With the simulator's race checks off the copies still land at their waits.
#[test]
fn pipelines_without_race_checks_match_the_cpu() {
    let (blocks, chunks) = (2usize, 4usize);
    let mut rng = Rng::new(7);
    let input: Vec<u32> = (0..blocks * chunks * THREADS * 4)
        .map(|_| rng.next_u32() % 1000)
        .collect();
    let dev = Device::simulator_with(SimOptions {
        race_checks: false,
        ..SimOptions::default()
    });
    let d_in = dev.upload(&input).unwrap();
    for stages in [2u32, 3] {
        let mut out = dev.upload(&vec![u32::MAX; blocks * THREADS]).unwrap();
        let cfg = LaunchConfig::new(blocks as u32, THREADS as u32);
        pipeline_sum::launch(&dev, cfg, &d_in, &mut out, chunks as u32, stages).unwrap();
        assert_eq!(
            out.download().unwrap(),
            pipeline_reference(&input, blocks, chunks)
        );
    }
}

/// Two groups, `cp_async_wait(1)`: the older one has landed, the newer one is still in
/// flight, so reading it is a race (the simulator keeps the groups in order).
#[gpu_kernel]
fn wait_one_of_two(input: &[u32], out: &mut [u32], read_newer: u32) {
    let tile = SharedArray::<u32, 128>::new();
    let t = thread_idx().x as usize;
    cp_async(&mut tile[t..t + 1], &input[t..t + 1]);
    cp_async_commit();
    cp_async(&mut tile[64 + t..65 + t], &input[64 + t..65 + t]); // @NEWER
    cp_async_commit();
    cp_async_wait(1);
    out[t] = tile[t];
    if read_newer == 1 {
        out[64 + t] = tile[64 + t]; // @READ-NEWER
    }
    cp_async_wait(0);
    out[64 + t] = tile[64 + t];
}

#[test]
fn wait_one_lands_the_older_group_only() {
    let input: Vec<u32> = (0..128).map(|i| i * 3 + 2).collect();
    for dev in devices("wait_one_lands_the_older_group_only") {
        let d_in = dev.upload(&input).unwrap();
        let mut out = dev.upload(&[u32::MAX; 128]).unwrap();
        wait_one_of_two::launch(&dev, LaunchConfig::new(1, 64), &d_in, &mut out, 0).unwrap();
        assert_eq!(out.download().unwrap(), input);
    }
    let dev = Device::simulator();
    let d_in = dev.upload(&input).unwrap();
    let mut out = dev.upload(&[u32::MAX; 128]).unwrap();
    let err =
        wait_one_of_two::launch(&dev, LaunchConfig::new(1, 64), &d_in, &mut out, 1).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    for marker in ["NEWER", "READ-NEWER"] {
        let at = format!("{FILE}:{}", line_of(SOURCE, marker));
        assert!(text.contains(&at), "the report should name {at}: {text}");
    }
}

/// Each thread copies `w` `u32`s (4, 8 or 16 bytes) at `t * w`, then the block reads its
/// neighbour's.
#[gpu_kernel]
fn copy_u32(input: &[u32], out: &mut [u32], w: u32) {
    let tile = SharedArray::<u32, 256>::new();
    let t = thread_idx().x as usize;
    let (w, n) = (w as usize, block_dim().x as usize);
    cp_async(&mut tile[t * w..t * w + w], &input[t * w..(t + 1) * w]);
    cp_async_commit();
    cp_async_wait(0);
    sync_threads();
    let u = (t + 1) % n;
    for k in 0..w {
        out[t * w + k] = tile[u * w + k];
    }
}

/// 16 bytes of `f16` (8) and of `f64` (2), 4 bytes of `u8`, with `cp_async_wait_all`.
#[gpu_kernel]
fn copy_kinds(a: &[f16], b: &[f64], c: &[u8], oa: &mut [f16], ob: &mut [f64], oc: &mut [u8]) {
    let ta = SharedArray::<f16, 256>::new();
    let tb = SharedArray::<f64, 64>::new();
    let tc = SharedArray::<u8, 128>::new();
    let t = thread_idx().x as usize;
    cp_async(&mut ta[t * 8..t * 8 + 8], &a[t * 8..t * 8 + 8]);
    cp_async(&mut tb[t * 2..t * 2 + 2], &b[t * 2..t * 2 + 2]);
    cp_async(&mut tc[t * 4..t * 4 + 4], &c[t * 4..t * 4 + 4]);
    cp_async_wait_all();
    for k in 0..8 {
        oa[t * 8 + k] = ta[t * 8 + k];
    }
    for k in 0..2 {
        ob[t * 2 + k] = tb[t * 2 + k];
    }
    for k in 0..4 {
        oc[t * 4 + k] = tc[t * 4 + k];
    }
}

#[test]
fn every_size_copies_exactly() {
    let mut rng = Rng::new(4);
    let n = 32usize;
    let a: Vec<f16> = (0..n * 8)
        .map(|_| f16::from_f32(rng.next_u32() as f32 / 1e6))
        .collect();
    let b: Vec<f64> = (0..n * 2).map(|_| rng.next_u32() as f64 * 0.37).collect();
    let c: Vec<u8> = (0..n * 4).map(|_| rng.next_u32() as u8).collect();
    let input: Vec<u32> = (0..n * 4).map(|_| rng.next_u32()).collect();
    for dev in devices("every_size_copies_exactly") {
        for w in [1usize, 2, 4] {
            let d_in = dev.upload(&input[..n * w]).unwrap();
            let mut out = dev.upload(&vec![0xdead_beef_u32; n * w]).unwrap();
            copy_u32::launch(
                &dev,
                LaunchConfig::new(1, n as u32),
                &d_in,
                &mut out,
                w as u32,
            )
            .unwrap();
            let want: Vec<u32> = (0..n * w)
                .map(|i| input[((i / w + 1) % n) * w + i % w])
                .collect();
            assert_eq!(out.download().unwrap(), want, "{} bytes", 4 * w);
        }
        let (da, db, dc) = (
            dev.upload(&a).unwrap(),
            dev.upload(&b).unwrap(),
            dev.upload(&c).unwrap(),
        );
        let mut oa = dev.upload(&vec![f16::NAN; n * 8]).unwrap();
        let mut ob = dev.upload(&vec![f64::NAN; n * 2]).unwrap();
        let mut oc = dev.upload(&vec![0xa5u8; n * 4]).unwrap();
        copy_kinds::launch(
            &dev,
            LaunchConfig::new(1, n as u32),
            &da,
            &db,
            &dc,
            &mut oa,
            &mut ob,
            &mut oc,
        )
        .unwrap();
        let bits = |v: Vec<f16>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(oa.download().unwrap()), bits(a.clone()));
        let bits = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(ob.download().unwrap()), bits(b.clone()));
        assert_eq!(oc.download().unwrap(), c);
    }
}

/// `w` `u32`s from `input[from..]`: 12 bytes (`w` 3) is no `cp.async` size, and `from` past
/// the end is a bad range.
#[gpu_kernel]
fn copy_bad(input: &[u32], out: &mut [u32], w: u32, from: u32, src_w: u32) {
    let tile = SharedArray::<u32, 64>::new();
    let (w, from, src_w) = (w as usize, from as usize, src_w as usize);
    if thread_idx().x == 0 {
        cp_async(&mut tile[0..w], &input[from..from + src_w]); // @BAD
        cp_async_wait_all();
        out[0] = tile[0];
    }
}

#[test]
fn a_bad_size_or_range_is_an_error() {
    let place = format!("{FILE}:{}", line_of(SOURCE, "BAD"));
    for dev in devices("a_bad_size_or_range_is_an_error") {
        let d_in = dev.upload(&[7u32; 16]).unwrap();
        let cfg = LaunchConfig::new(1, 32);
        // (w, from, src_w) -> (index, len) of the report
        for (w, from, src_w, index, len) in [
            (3u32, 0u32, 3u32, 12u64, 16u64), // 12 bytes
            (4, 0, 2, 4, 2),                  // lengths differ
            (4, 14, 4, 18, 16),               // the source's range ends past 16
        ] {
            let mut out = dev.upload(&[u32::MAX]).unwrap();
            let r = copy_bad::launch(&dev, cfg, &d_in, &mut out, w, from, src_w);
            expect_oob(&dev, r, "copy_bad", &place, index, len);
        }
    }
}

/// Reads its copy's destination before waiting for it.
#[gpu_kernel]
fn read_before_wait(input: &[u32], out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    cp_async(&mut tile[t..t + 1], &input[t..t + 1]); // @COPY-OWN
    cp_async_commit();
    out[t] = tile[t]; // @READ-OWN
    cp_async_wait(0);
}

/// Waits, but reads a neighbour's copy without a barrier after the waits.
#[gpu_kernel]
fn read_without_barrier(input: &[u32], out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    cp_async(&mut tile[t..t + 1], &input[t..t + 1]); // @COPY-NB
    cp_async_commit();
    cp_async_wait(0);
    out[t] = tile[(t + 1) % 64]; // @READ-NB
}

/// A barrier, but before the wait: the neighbour's copy may not have landed.
#[gpu_kernel]
fn barrier_before_wait(input: &[u32], out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    cp_async(&mut tile[t..t + 1], &input[t..t + 1]); // @COPY-BW
    cp_async_commit();
    sync_threads();
    out[t] = tile[(t + 1) % 64]; // @READ-BW
    cp_async_wait(0);
}

/// The corrected kernel: wait, barrier, read.
#[gpu_kernel]
fn read_after_wait(input: &[u32], out: &mut [u32]) {
    let tile = SharedArray::<u32, 64>::new();
    let t = thread_idx().x as usize;
    cp_async(&mut tile[t..t + 1], &input[t..t + 1]);
    cp_async_commit();
    cp_async_wait(0);
    sync_threads();
    out[t] = tile[(t + 1) % 64];
}

#[test]
fn reading_before_the_wait_is_a_race_on_the_simulator() {
    let dev = Device::simulator();
    let input: Vec<u32> = (0..64).map(|i| i * 7 + 1).collect();
    let d_in = dev.upload(&input).unwrap();
    let cfg = LaunchConfig::new(1, 64);
    type K = fn(
        &Device,
        LaunchConfig,
        &warpspeed::DeviceBuffer<u32>,
        &mut warpspeed::DeviceBuffer<u32>,
    ) -> warpspeed::Result<()>;
    let cases: [(&str, K, &str, &str); 3] = [
        (
            "read_before_wait",
            |d, c, i, o| read_before_wait::launch(d, c, i, o),
            "COPY-OWN",
            "READ-OWN",
        ),
        (
            "read_without_barrier",
            |d, c, i, o| read_without_barrier::launch(d, c, i, o),
            "COPY-NB",
            "READ-NB",
        ),
        (
            "barrier_before_wait",
            |d, c, i, o| barrier_before_wait::launch(d, c, i, o),
            "COPY-BW",
            "READ-BW",
        ),
    ];
    for (name, launch, copy, read) in cases {
        let mut out = dev.upload(&[u32::MAX; 64]).unwrap();
        let err = launch(&dev, cfg, &d_in, &mut out).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::DataRace { .. }), "{name}: {text}");
        assert!(text.contains(name), "{text}");
        println!("{text}");
        // Before the wait the report says the wait is missing; after it, the barrier.
        let says = if name == "read_without_barrier" {
            "with no barrier between them"
        } else {
            "before a cp_async_wait covering that copy"
        };
        assert!(text.contains(says), "{name}: {text}");
        for marker in [copy, read] {
            let at = format!("{FILE}:{}", line_of(SOURCE, marker));
            assert!(
                text.contains(&at),
                "{name}: the report should name {at}: {text}"
            );
        }
    }
    let mut out = dev.upload(&[u32::MAX; 64]).unwrap();
    read_after_wait::launch(&dev, cfg, &d_in, &mut out).unwrap();
    let want: Vec<u32> = (0..64).map(|t| input[(t + 1) % 64]).collect();
    assert_eq!(out.download().unwrap(), want);
}

/// The corrected kernel gives the neighbour's value on every backend.
#[test]
fn read_after_wait_matches_the_cpu() {
    let input: Vec<u32> = (0..64).map(|i| i * 13 + 5).collect();
    for dev in devices("read_after_wait_matches_the_cpu") {
        let d_in = dev.upload(&input).unwrap();
        let mut out = dev.upload(&[u32::MAX; 64]).unwrap();
        read_after_wait::launch(&dev, LaunchConfig::new(1, 64), &d_in, &mut out).unwrap();
        let want: Vec<u32> = (0..64).map(|t| input[(t + 1) % 64]).collect();
        assert_eq!(out.download().unwrap(), want);
    }
}

/// The C compiles with NVRTC for sm_80 and sm_90 (`cp.async`), and for sm_75, where the
/// copy is a plain one.
#[test]
fn nvrtc_compiles_for_sm75_sm80_and_sm90() {
    let kernels = [
        ("pipeline_sum", &pipeline_sum::KERNEL),
        ("copy_u32", &copy_u32::KERNEL),
        ("copy_kinds", &copy_kinds::KERNEL),
        ("copy_bad", &copy_bad::KERNEL),
        ("read_after_wait", &read_after_wait::KERNEL),
        ("wait_one_of_two", &wait_one_of_two::KERNEL),
    ];
    common::nvrtc_compiles_for(&kernels, &[(7, 5), (8, 0), (9, 0)]);
}
