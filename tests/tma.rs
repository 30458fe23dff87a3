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
        tma_load_2d(&mut tile[0..n], map, row, col, &bar[0]);
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
    let corners = [(3i32, 4i32), (30, 60), (-5, -3), (0, 0)];
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
        for (bx, swizzle) in [([32usize, 64usize], Swizzle::B128), ([16, 24], Swizzle::None)] {
            let map = TensorMap::tiled_2d(&d, [rows, cols], bx, swizzle).unwrap();
            for (row, col) in [(0i32, 64i32), (20, 100), (-8, 0)] {
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
