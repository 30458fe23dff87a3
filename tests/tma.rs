//! Hopper's mbarriers and TMA (`SharedArray::<Mbarrier, N>`, `tma_load_2d` from a
//! `&TensorMap<T>`; docs/tensor-cores.md "Hopper: mbarriers and TMA"): tiles copied
//! global -> shared -> global for boxes inside and past the tensor's edges (zero fill) under
//! every swizzle, against `swizzle_byte_offset`; a two-stage producer/consumer pipeline
//! with full and empty barriers summing a matrix; the simulator's reports (a tile read
//! before its wait, both lines; a wait that never completes; barrier misuse); and the
//! misuse that is an `Err` (bad map geometry, a tile of the wrong length). Both backends
//! where a kernel runs (the GPU part needs sm_90); outputs poisoned before each run.

use warpspeed::prelude::*;
use warpspeed::swizzle::{swizzle_byte_offset, Swizzle};
use warpspeed::{Device, Error, LaunchConfig};

mod common;
use common::{devices, expect_oob, line_of, Rng};

const SOURCE: &str = include_str!("tma.rs");
const FILE: &str = "tests/tma.rs";

/// One box of `map` at (`row`, `col`) into the first `n` elements of dynamic shared
/// memory, then every thread copies the tile (as it lies, swizzled) to `out`.
#[gpu_kernel]
fn box_to_global(map: &TensorMap<u32>, out: &mut [u32], row: i32, col: i32) {
    let bar = SharedArray::<Mbarrier, 1>::new();
    let tile = dynamic_shared::<u32>();
    let t = thread_idx().x as usize;
    let n = out.len();
    if t == 0 {
        bar[0].init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        bar[0].arrive_expect_tx((n * 4) as u32);
        tma_load_2d(&mut tile[0..n], map, row, col, &bar[0]); // @BOX-LOAD
    }
    bar[0].wait(0);
    let mut i = t;
    while i < n {
        out[i] = tile[i];
        i += block_dim().x as usize;
    }
}

/// The same with 16-bit elements (`bf16`), into a static shared array.
#[gpu_kernel]
fn box_to_global_bf16(map: &TensorMap<bf16>, out: &mut [bf16], row: i32, col: i32) {
    let bar = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<bf16, 2048>::new();
    let t = thread_idx().x as usize;
    let n = out.len();
    if t == 0 {
        bar[0].init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        bar[0].arrive_expect_tx((n * 2) as u32);
        tma_load_2d(&mut tile[0..n], map, row, col, &bar[0]);
    }
    bar[0].wait(0);
    let mut i = t;
    while i < n {
        out[i] = tile[i];
        i += block_dim().x as usize;
    }
}

/// Where the CPU says box element (r, c) of a box at (row, col) lands, as element
/// indices of the tile: `want[swizzled(k)] = tensor[row + r][col + c]` (0 outside).
fn expected_tile<T: Copy>(
    tensor: &[T],
    [rows, cols]: [usize; 2],
    [br, bc]: [usize; 2],
    (row, col): (i32, i32),
    swizzle: Swizzle,
    zero: T,
) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let mut want = vec![zero; br * bc];
    for r in 0..br {
        for c in 0..bc {
            let (gr, gc) = (row as i64 + r as i64, col as i64 + c as i64);
            let v = if (0..rows as i64).contains(&gr) && (0..cols as i64).contains(&gc) {
                tensor[gr as usize * cols + gc as usize]
            } else {
                zero
            };
            let at = swizzle_byte_offset(swizzle, (r * bc + c) * size) / size;
            want[at] = v;
        }
    }
    want
}

#[test]
fn tiles_round_trip_under_every_swizzle_with_zero_fill() {
    let (rows, cols) = (40usize, 72usize);
    let mut rng = Rng::new(90);
    let tensor: Vec<u32> = (0..rows * cols).map(|_| rng.next_u32() | 1).collect();
    // (box, swizzle): a swizzled box row is the swizzle's row (8, 16, 32 u32s).
    let shapes = [
        ([8usize, 12usize], Swizzle::None),
        ([16, 8], Swizzle::B32),
        ([16, 16], Swizzle::B64),
        ([24, 32], Swizzle::B128),
    ];
    // Inside; past the right and bottom edges; before the top-left corner.
    // A box's first column is at a 16-byte boundary (a multiple of 4 u32s), as the TMA needs.
    let corners = [(3i32, 4i32), (30, 60), (-5, -4), (0, 0)];
    for dev in devices("tiles_round_trip_under_every_swizzle_with_zero_fill") {
        let d = dev.upload(&tensor).unwrap();
        for (bx, swizzle) in shapes {
            let map = TensorMap::tiled_2d(&d, [rows, cols], bx, swizzle).unwrap();
            let n = bx[0] * bx[1];
            for (row, col) in corners {
                let mut out = dev.upload(&vec![0xdead_beef_u32; n]).unwrap();
                let cfg = LaunchConfig::new(1, 128).with_shared_mem(4096);
                box_to_global::launch(&dev, cfg, &map, &mut out, row, col).unwrap();
                let want = expected_tile(&tensor, [rows, cols], bx, (row, col), swizzle, 0);
                assert_eq!(
                    out.download().unwrap(),
                    want,
                    "box {bx:?} {swizzle:?} at ({row}, {col}) on {:?}",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn bf16_tiles_round_trip_under_the_128_byte_swizzle() {
    let (rows, cols) = (33usize, 128usize);
    let mut rng = Rng::new(5);
    let tensor: Vec<bf16> = (0..rows * cols)
        .map(|_| bf16::from_f32((rng.next_u32() % 2000) as f32 - 1000.0))
        .collect();
    let zero = bf16::from_f32(0.0);
    for dev in devices("bf16_tiles_round_trip_under_the_128_byte_swizzle") {
        let d = dev.upload(&tensor).unwrap();
        for (bx, swizzle) in [
            ([32usize, 64usize], Swizzle::B128),
            ([16, 24], Swizzle::None),
        ] {
            let map = TensorMap::tiled_2d(&d, [rows, cols], bx, swizzle).unwrap();
            for (row, col) in [(0i32, 64i32), (20, 104), (-8, 0)] {
                let n = bx[0] * bx[1];
                let mut out = dev.upload(&vec![bf16::from_f32(f32::NAN); n]).unwrap();
                let cfg = LaunchConfig::new(1, 64);
                box_to_global_bf16::launch(&dev, cfg, &map, &mut out, row, col).unwrap();
                let want = expected_tile(&tensor, [rows, cols], bx, (row, col), swizzle, zero);
                let bits = |v: &[bf16]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&out.download().unwrap()),
                    bits(&want),
                    "box {bx:?} {swizzle:?} at ({row}, {col}) on {:?}",
                    dev.backend()
                );
            }
        }
    }
}

/// Rows of one pipeline chunk (a box of 16 x 32 `u32`, 2048 bytes).
const CHUNK_ROWS: usize = 16;

/// A two-stage TMA pipeline with full and empty barriers: thread 0 produces (waits for
/// the slot to be empty, expects the bytes, issues the copy), every thread consumes
/// (waits for the slot to be full, sums its 4 elements, arrives on empty). Block `b` sums
/// chunks `b * chunks ..`; each thread's sums go to `out`.
#[gpu_kernel]
fn pipeline_sum(map: &TensorMap<u32>, out: &mut [u32], chunks: u32) {
    let tile = SharedArray::<u32, 1024>::new(); // 2 stages x 16 x 32
    let full = SharedArray::<Mbarrier, 2>::new();
    let empty = SharedArray::<Mbarrier, 2>::new();
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let chunks = chunks as usize;
    let first = block_idx().x as usize * chunks;
    if t == 0 {
        for s in 0..2 {
            full[s].init(1);
            empty[s].init(n as u32);
        }
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        for s in 0..2 {
            if s < chunks {
                full[s].arrive_expect_tx(2048);
                let row = ((first + s) * 16) as i32;
                tma_load_2d(&mut tile[s * 512..s * 512 + 512], map, row, 0, &full[s]);
            }
        }
    }
    let mut acc = 0u32;
    for c in 0..chunks {
        let s = c % 2;
        let phase = (c / 2 % 2) as u32;
        full[s].wait(phase);
        for k in 0..4 {
            acc = acc.wrapping_add(tile[s * 512 + t * 4 + k] * (k as u32 + 1));
        }
        empty[s].arrive();
        if t == 0 && c + 2 < chunks {
            empty[s].wait(phase);
            full[s].arrive_expect_tx(2048);
            let row = ((first + c + 2) * 16) as i32;
            tma_load_2d(&mut tile[s * 512..s * 512 + 512], map, row, 0, &full[s]);
        }
    }
    out[block_idx().x as usize * n + t] = acc;
}

#[test]
fn a_two_stage_pipeline_sums_a_matrix_as_the_cpu() {
    let (blocks, chunks, cols, threads) = (3usize, 5usize, 32usize, 128usize);
    // The last chunk runs past the bottom edge: its missing rows are zero.
    let rows = blocks * chunks * CHUNK_ROWS - 5;
    let mut rng = Rng::new(77);
    let tensor: Vec<u32> = (0..rows * cols).map(|_| rng.next_u32() % 5000).collect();
    for swizzle in [Swizzle::B128, Swizzle::None] {
        let mut want = vec![0u32; blocks * threads];
        for b in 0..blocks {
            for c in 0..chunks {
                let at = (((b * chunks + c) * CHUNK_ROWS) as i32, 0);
                let tile = expected_tile(&tensor, [rows, cols], [16, 32], at, swizzle, 0);
                for t in 0..threads {
                    for k in 0..4 {
                        want[b * threads + t] =
                            want[b * threads + t].wrapping_add(tile[t * 4 + k] * (k as u32 + 1));
                    }
                }
            }
        }
        for dev in devices("a_two_stage_pipeline_sums_a_matrix_as_the_cpu") {
            let d = dev.upload(&tensor).unwrap();
            let map = TensorMap::tiled_2d(&d, [rows, cols], [16, 32], swizzle).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; blocks * threads]).unwrap();
            let cfg = LaunchConfig::new(blocks as u32, threads as u32);
            pipeline_sum::launch(&dev, cfg, &map, &mut out, chunks as u32).unwrap();
            assert_eq!(
                out.download().unwrap(),
                want,
                "{swizzle:?} on {:?}",
                dev.backend()
            );
        }
    }
}

/// A producer that never waits on the full barrier: the last thread issues the copy after
/// every other thread already waits for it (the simulator polls threads in order).
#[gpu_kernel]
fn producer_last(map: &TensorMap<u32>, out: &mut [u32]) {
    let bar = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<u32, 128>::new();
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    if t == 0 {
        bar[0].init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == n - 1 {
        bar[0].arrive_expect_tx(512);
        tma_load_2d(&mut tile[0..128], map, 1, 0, &bar[0]);
    } else {
        bar[0].wait(0);
        out[t] = tile[t];
    }
}

#[test]
fn waiters_see_a_copy_issued_after_they_wait() {
    let tensor: Vec<u32> = (0..8 * 32).map(|i| i * 11 + 2).collect();
    for dev in devices("waiters_see_a_copy_issued_after_they_wait") {
        let d = dev.upload(&tensor).unwrap();
        let map = TensorMap::tiled_2d(&d, [8, 32], [4, 32], Swizzle::None).unwrap();
        let mut out = dev.upload(&[u32::MAX; 129]).unwrap();
        producer_last::launch(&dev, LaunchConfig::new(1, 129), &map, &mut out).unwrap();
        let mut want: Vec<u32> = tensor[32..160].to_vec();
        want.push(u32::MAX);
        assert_eq!(out.download().unwrap(), want, "on {:?}", dev.backend());
    }
}

/// Plain data handed over by an mbarrier (no TMA): warp 0 writes, arrives (a release);
/// every thread waits (an acquire), then reads another warp's values. Round after round
/// on one barrier, alternating parity, with the slots reused: no race, on both backends.
#[gpu_kernel]
fn hand_over(input: &[u32], out: &mut [u32], rounds: u32) {
    let slots = SharedArray::<u32, 32>::new();
    let ready = SharedArray::<Mbarrier, 1>::new();
    let done = SharedArray::<Mbarrier, 1>::new();
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    if t == 0 {
        ready[0].init(32);
        done[0].init(n as u32);
        fence_mbarrier_init();
    }
    sync_threads();
    let mut acc = 0u32;
    for r in 0..rounds as usize {
        let phase = (r % 2) as u32;
        if t < 32 {
            if r > 0 {
                done[0].wait(1 - phase); // everyone has read the previous round
            }
            slots[t] = input[r * 32 + t];
            ready[0].arrive();
        }
        ready[0].wait(phase);
        acc = acc.wrapping_add(slots[(t * 7 + r) % 32]);
        done[0].arrive();
    }
    out[t] = acc;
}

#[test]
fn an_mbarrier_orders_plain_writes_before_the_waiters_reads() {
    let (threads, rounds) = (96usize, 6usize);
    let mut rng = Rng::new(12);
    let input: Vec<u32> = (0..rounds * 32).map(|_| rng.next_u32()).collect();
    let want: Vec<u32> = (0..threads)
        .map(|t| {
            (0..rounds).fold(0u32, |a, r| {
                a.wrapping_add(input[r * 32 + (t * 7 + r) % 32])
            })
        })
        .collect();
    for dev in devices("an_mbarrier_orders_plain_writes_before_the_waiters_reads") {
        let d = dev.upload(&input).unwrap();
        let mut out = dev.upload(&vec![u32::MAX; threads]).unwrap();
        let cfg = LaunchConfig::new(1, threads as u32);
        hand_over::launch(&dev, cfg, &d, &mut out, rounds as u32).unwrap();
        assert_eq!(out.download().unwrap(), want, "on {:?}", dev.backend());
    }
}

/// With the simulator's race checks off the copies still land with their phases.
#[test]
fn the_pipeline_without_race_checks_matches_the_cpu() {
    let (rows, cols) = (2 * 3 * CHUNK_ROWS, 32usize);
    let tensor: Vec<u32> = (0..rows * cols).map(|i| i as u32 * 5 + 3).collect();
    let dev = Device::simulator_with(warpspeed::SimOptions {
        race_checks: false,
        ..warpspeed::SimOptions::default()
    });
    let d = dev.upload(&tensor).unwrap();
    let map = TensorMap::tiled_2d(&d, [rows, cols], [16, 32], Swizzle::None).unwrap();
    let mut out = dev.upload(&vec![u32::MAX; 2 * 128]).unwrap();
    pipeline_sum::launch(&dev, LaunchConfig::new(2, 128), &map, &mut out, 3).unwrap();
    let got = out.download().unwrap();
    for b in 0..2 {
        for t in 0..128 {
            let want = (0..3).fold(0u32, |a, c| {
                let base = (b * 3 + c) * CHUNK_ROWS * cols + t * 4;
                (0..4).fold(a, |a, k| a.wrapping_add(tensor[base + k] * (k as u32 + 1)))
            });
            assert_eq!(got[b * 128 + t], want, "block {b} thread {t}");
        }
    }
}

/// Mode 0: thread 0 reads the tile before its wait. Mode 1: thread 1 reads it after a
/// barrier but without a wait (thread 0's wait may have landed the copy by then: still a
/// race for thread 1). Mode 2: a thread writes it around the copy's issue, unordered.
/// Mode 3: correct.
#[gpu_kernel]
fn touch_early(map: &TensorMap<u32>, out: &mut [u32], mode: u32) {
    let bar = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<u32, 128>::new();
    let t = thread_idx().x as usize;
    if t == 0 {
        bar[0].init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    if mode == 2 && t == 5 {
        tile[7] = 1; // @WRITE-EARLY
    }
    if t == 0 {
        bar[0].arrive_expect_tx(512);
        tma_load_2d(&mut tile[0..128], map, 0, 0, &bar[0]); // @TMA
        if mode == 0 {
            out[0] = tile[3]; // @READ-OWN
        }
    }
    sync_threads();
    if mode == 1 && t == 1 {
        out[1] = tile[9]; // @READ-OTHER
    }
    bar[0].wait(0);
    out[t] = tile[t];
}

#[test]
fn touching_a_tile_before_its_wait_is_a_race_naming_both_lines() {
    let dev = Device::simulator();
    let tensor: Vec<u32> = (0..4 * 32).map(|i| i * 3 + 1).collect();
    let d = dev.upload(&tensor).unwrap();
    let map = TensorMap::tiled_2d(&d, [4, 32], [4, 32], Swizzle::None).unwrap();
    let cfg = LaunchConfig::new(1, 128);
    for (mode, access, says) in [
        (
            0u32,
            "READ-OWN",
            "before a completed wait on the copy's mbarrier",
        ),
        (
            1,
            "READ-OTHER",
            "before a completed wait on the copy's mbarrier",
        ),
        // The write and the issue race in whichever order the threads ran.
        (2, "WRITE-EARLY", ""),
    ] {
        let mut out = dev.upload(&[u32::MAX; 128]).unwrap();
        let err = touch_early::launch(&dev, cfg, &map, &mut out, mode).unwrap_err();
        let text = err.to_string();
        println!("{text}");
        assert!(matches!(err, Error::DataRace { .. }), "mode {mode}: {text}");
        assert!(text.contains(says), "mode {mode}: {text}");
        for marker in ["TMA", access] {
            let at = format!("{FILE}:{}", line_of(SOURCE, marker));
            assert!(text.contains(&at), "mode {mode}: should name {at}: {text}");
        }
    }
    for dev in devices("touching_a_tile_before_its_wait_is_a_race_naming_both_lines") {
        let d = dev.upload(&tensor).unwrap();
        let map = TensorMap::tiled_2d(&d, [4, 32], [4, 32], Swizzle::None).unwrap();
        let mut out = dev.upload(&[u32::MAX; 128]).unwrap();
        touch_early::launch(&dev, cfg, &map, &mut out, 3).unwrap();
        assert_eq!(out.download().unwrap(), tensor);
    }
}

/// Barrier misuse, by `mode`: 0 a wait no arrival completes (count 2, one arrival);
/// 1 `init` twice; 2 an arrival before `init`; 3 more arrivals than the count; 4 correct.
#[gpu_kernel]
fn misuse(out: &mut [u32], mode: u32) {
    let bar = SharedArray::<Mbarrier, 2>::new();
    let t = thread_idx().x;
    if t == 0 {
        if mode != 2 {
            bar[0].init(if mode == 0 { 2 } else { 1 });
        }
        if mode == 1 {
            bar[0].init(1); // @INIT-TWICE
        }
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        if mode == 3 {
            bar[0].arrive_expect_tx(64);
        }
        bar[0].arrive(); // @ARRIVE
        out[0] = if bar[0].try_wait(0) { 1 } else { 0 };
    }
    bar[0].wait(0); // @WAIT
    out[t as usize + 1] = 2;
}

#[test]
fn barrier_misuse_is_reported_with_its_line_on_the_simulator() {
    let dev = Device::simulator();
    let cfg = LaunchConfig::new(1, 32);
    let at = |m: &str| format!("{FILE}:{}", line_of(SOURCE, m));
    for (mode, needle, marker) in [
        (0u32, "deadlock", "WAIT"),
        (1, "already initialised", "INIT-TWICE"),
        (2, "not initialised", "ARRIVE"),
        (3, "more arrivals than the count", "ARRIVE"),
    ] {
        let mut out = dev.upload(&[u32::MAX; 33]).unwrap();
        let err = misuse::launch(&dev, cfg, &mut out, mode).unwrap_err();
        let text = err.to_string();
        println!("{text}");
        assert!(text.contains(needle), "mode {mode}: {text}");
        assert!(text.contains(&at(marker)), "mode {mode}: {text}");
    }
    for dev in devices("barrier_misuse_is_reported_with_its_line_on_the_simulator") {
        let mut out = dev.upload(&[u32::MAX; 33]).unwrap();
        misuse::launch(&dev, cfg, &mut out, 4).unwrap();
        let mut want = vec![2u32; 33];
        want[0] = 1;
        assert_eq!(out.download().unwrap(), want);
    }
}

/// A tile of `len` elements at element `at` of the array (128 is the box; under the
/// 128-byte swizzle the tile must start at a multiple of 256 `u32`s).
#[gpu_kernel]
fn bad_tile(map: &TensorMap<u32>, out: &mut [u32], at: u32, len: u32) {
    let bar = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<u32, 1024>::new();
    let (at, len) = (at as usize, len as usize);
    if thread_idx().x == 0 {
        bar[0].init(1);
        fence_mbarrier_init();
        bar[0].arrive_expect_tx(512);
        tma_load_2d(&mut tile[at..at + len], map, 0, 0, &bar[0]); // @BAD-TILE
    }
    bar[0].wait(0);
    if thread_idx().x == 0 {
        out[0] = 1;
    }
}

#[test]
fn a_tile_of_the_wrong_length_or_alignment_is_an_error() {
    let place = format!("{FILE}:{}", line_of(SOURCE, "BAD-TILE"));
    let tensor = vec![5u32; 8 * 32];
    for dev in devices("a_tile_of_the_wrong_length_or_alignment_is_an_error") {
        let d = dev.upload(&tensor).unwrap();
        let map = TensorMap::tiled_2d(&d, [8, 32], [4, 32], Swizzle::B128).unwrap();
        let cfg = LaunchConfig::new(1, 32);
        // (at, len) -> (index, len) of the report.
        for (at, len, index, want) in [(0u32, 64u32, 64u64, 128u64), (32, 128, 128, 1024)] {
            let mut out = dev.upload(&[u32::MAX]).unwrap();
            let r = bad_tile::launch(&dev, cfg, &map, &mut out, at, len);
            expect_oob(&dev, r, "bad_tile", &place, index, want);
        }
        let mut out = dev.upload(&[u32::MAX]).unwrap();
        bad_tile::launch(&dev, cfg, &map, &mut out, 256, 128).unwrap();
        assert_eq!(out.download().unwrap(), vec![1]);
    }
}

/// A box whose first column is not at a 16-byte boundary of its row: the GPU's TMA faults
/// on it (an illegal instruction), so both backends report it at the call instead.
#[test]
fn a_box_column_off_a_16_byte_boundary_is_an_error() {
    let place = format!("{FILE}:{}", line_of(SOURCE, "BOX-LOAD"));
    let tensor = vec![7u32; 16 * 32];
    for dev in devices("a_box_column_off_a_16_byte_boundary_is_an_error") {
        let d = dev.upload(&tensor).unwrap();
        let map = TensorMap::tiled_2d(&d, [16, 32], [4, 8], Swizzle::None).unwrap();
        let cfg = LaunchConfig::new(1, 32).with_shared_mem(4 * 8 * 4);
        // Column 3 is byte 12 of its row; column -1 byte -4, 12 past a boundary.
        for col in [3i32, -1] {
            let mut out = dev.upload(&[0u32; 32]).unwrap();
            let r = box_to_global::launch(&dev, cfg, &map, &mut out, 0, col);
            expect_oob(&dev, r, "box_to_global", &place, 12, 16);
        }
        let mut out = dev.upload(&[0u32; 32]).unwrap();
        box_to_global::launch(&dev, cfg, &map, &mut out, 0, 4).unwrap();
        assert_eq!(out.download().unwrap(), vec![7u32; 32]);
    }
}

#[test]
fn tensor_maps_the_tma_cannot_read_are_errors() {
    let dev = Device::simulator();
    let buf = dev.upload(&vec![0u32; 64 * 30]).unwrap();
    let bytes = dev.upload(&vec![0u8; 64 * 30]).unwrap();
    let vecs = dev.upload(&vec![warpspeed::f32x4::splat(0.0); 16]).unwrap();
    let cases: Vec<(warpspeed::Result<()>, &str)> = vec![
        (
            TensorMap::tiled_2d(&buf, [64, 29], [8, 8], Swizzle::None).map(drop),
            "rows * cols",
        ),
        (
            TensorMap::tiled_2d(&buf, [0, 30], [8, 8], Swizzle::None).map(drop),
            "1 to 2^32",
        ),
        // 30 u32s a row: 120 bytes, not a multiple of 16.
        (
            TensorMap::tiled_2d(&buf, [64, 30], [8, 8], Swizzle::None).map(drop),
            "multiple of 16",
        ),
        (
            TensorMap::tiled_2d(&bytes, [30, 64], [8, 8], Swizzle::None).map(drop),
            "box row is 8 bytes",
        ),
        (
            TensorMap::tiled_2d(&bytes, [30, 64], [300, 16], Swizzle::None).map(drop),
            "1 to 256",
        ),
        (
            TensorMap::tiled_2d(&bytes, [30, 64], [8, 64], Swizzle::B128).map(drop),
            "swizzle's rows are 128",
        ),
        (
            TensorMap::tiled_2d(&buf.slice(1..961), [32, 30], [8, 8], Swizzle::None).map(drop),
            "multiple of 16",
        ),
        (
            TensorMap::tiled_2d(&vecs, [4, 4], [4, 4], Swizzle::None).map(drop),
            "1, 2, 4 or 8 bytes",
        ),
    ];
    for (r, says) in cases {
        let err = r.unwrap_err();
        assert!(matches!(err, Error::InvalidTensorMap { .. }), "{err}");
        assert!(err.to_string().contains(says), "{says}: {err}");
    }
    let view = buf.slice(4..964);
    let ok = TensorMap::tiled_2d(&view, [30, 32], [8, 32], Swizzle::B128).unwrap();
    assert_eq!(
        (ok.dims(), ok.box_dims(), ok.box_len(), ok.box_bytes()),
        ([30, 32], [8, 32], 256, 1024)
    );
}

/// The C of every kernel here compiles with NVRTC for sm_90 (`mbarrier`, `cp.async.bulk.tensor`).
#[test]
fn nvrtc_compiles_for_sm90() {
    let kernels = [
        ("box_to_global", &box_to_global::KERNEL),
        ("box_to_global_bf16", &box_to_global_bf16::KERNEL),
        ("pipeline_sum", &pipeline_sum::KERNEL),
        ("touch_early", &touch_early::KERNEL),
        ("misuse", &misuse::KERNEL),
        ("bad_tile", &bad_tile::KERNEL),
        ("hand_over", &hand_over::KERNEL),
        ("producer_last", &producer_last::KERNEL),
    ];
    common::nvrtc_compiles_for(&kernels, &[(9, 0)]);
}
