//! The bounds prover's facts beyond `#[len]` and early returns, on the simulator and the
//! GPU: a declared block shape (`#[gpu_kernel(block = (32, 1))]`, checked at launch),
//! `thread_idx().x < block_dim().x`, `n != 0` (`0 < n`), `% n`, `min`, subtraction with a proven lower bound
//! (also of a compared expression, `i + d >= k && i + d - k < n`), and mutable variables
//! until they are assigned (a grid-stride `while i < n`, the exit of `while g >= n`). Each
//! proven
//! kernel has no check left in its C and computes what the CPU does on random data; each
//! near miss is one step past what its facts allow, keeps its check, and reports
//! `OutOfBounds` with the index and the length on both backends.

mod common;

use common::{devices, Rng};
use warpspeed::prelude::*;
use warpspeed::{Device, Error, LaunchConfig};

const SOURCE: &str = include_str!("prover_facts.rs");
const FILE: &str = "tests/prover_facts.rs";

// ---- proven: no check left ---------------------------------------------------------------

/// A declared block of 32 threads: `thread_idx().x < 32` indexes the 32-element shared
/// array and `31 - tx` too (the subtraction's lower bound is proven).
#[gpu_kernel(block = (32, 1))]
fn reverse_in_blocks(#[len(n)] v: &mut [u32], n: usize) {
    let tile = SharedArray::<u32, 32>::new();
    let tx = thread_idx().x as usize;
    let base = block_idx().x as usize * 32;
    if base + 32 > n {
        return;
    }
    tile[tx] = v[base + tx];
    sync_threads();
    v[base + tx] = tile[31 - tx];
}

/// `thread_idx().x < block_dim().x <= n`: one thread per element of a block-sized slice.
#[gpu_kernel]
fn square_per_thread(#[len(n)] v: &mut [u32], n: usize) {
    if block_dim().x as usize <= n {
        let t = thread_idx().x as usize;
        v[t] = v[t].wrapping_mul(v[t]);
    }
}

/// `% n` with `n != 0`, `min` with `n - 1` (proven from `n >= 1`), and `i - 1` where
/// `i >= 1`.
#[gpu_kernel]
fn gather_three(#[len(n)] a: &[u32], #[len(m)] out: &mut [u32], n: usize, m: usize) {
    let i = grid_1d();
    if i >= m || n == 0 {
        return;
    }
    let wrapped = a[i % n];
    let clamped = a[i.min(n - 1)];
    let before = if i >= 1 && i <= n { a[i - 1] } else { 0 };
    out[i] = wrapped ^ (clamped << 1) ^ (before << 2);
}

/// `let n = x.len(); if n == 0 { return; }`: `x[0]` is in bounds (`n != 0` of an unsigned
/// `n` is `0 < n`).
#[gpu_kernel]
fn broadcast_first(x: &[u32], #[len(m)] out: &mut [u32], m: usize) {
    let n = x.len();
    if n == 0 {
        return;
    }
    let i = grid_1d();
    if i < m {
        out[i] = x[0];
    }
}

/// A compared expression: `i + d >= k` proves the subtraction, `i + d - k < n` bounds it
/// (the convolution's zero padding).
#[gpu_kernel]
fn shifted_window(#[len(n)] a: &[u32], #[len(n)] out: &mut [u32], n: usize, d: usize) {
    let i = grid_1d();
    if i >= n {
        return;
    }
    let mut s = 0u32;
    for k in 0..2 * d + 1 {
        if i + d >= k && i + d - k < n {
            s = s.wrapping_add(a[i + d - k]);
        }
    }
    out[i] = s;
}

/// A grid-stride loop: `i < n` holds in the body until `i` is assigned; after `while g >=
/// n { g -= n; }` (no `break`), `g < n`.
#[gpu_kernel]
fn stride_and_wrap(#[len(n)] a: &[u32], #[len(n)] out: &mut [u32], n: usize) {
    let mut i = grid_1d();
    let stride = grid_stride_1d();
    while i < n {
        let mut g = i + 3 * n + 1;
        while g >= n {
            g -= n;
        }
        out[i] = a[i] ^ a[g];
        i += stride;
    }
}

/// u32 coordinates (the u32 idiom of the Life example): `y * n + x` in 32 bits, widened at
/// the index. A wrapped sum or product is smaller, so the bound holds at any width.
#[gpu_kernel]
fn transpose_u32(#[len(n * n)] a: &[u32], #[len(n * n)] out: &mut [u32], n: u32) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    if x < n && y < n {
        out[(y * n + x) as usize] = a[(x * n + y) as usize];
    }
}

/// Whole 32 x 32 tiles (a block past the last one returns): the row is a `let` of a sum
/// (`r = bm + row`), followed as that polynomial; `bm <= m - 32` by the guard, `row <= 31`
/// by the declared block and `col <= n - 1` put `r * n + col` below `m * n` (the 3xTF32
/// GEMM's store). `tx` and `ty` come from a tuple `let`, each bounded as its element.
#[gpu_kernel(block = (32, 8))]
fn tile_flip(#[len(m * n)] a: &[u32], #[len(m * n)] out: &mut [u32], m: usize, n: usize) {
    let bm = block_idx().y as usize * 32;
    let bn = block_idx().x as usize * 32;
    if bm + 32 > m || bn + 32 > n {
        return;
    }
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    for k in 0..4 {
        let row = ty + 8 * k;
        let r = bm + row;
        let col = bn + tx;
        out[r * n + col] = a[r * n + col] ^ 1;
    }
}

// ---- near misses: the check stays and reports --------------------------------------------

/// [`tile_flip`] with a guard one row short: `bm + 31 <= m` lets row 31 reach `m`.
#[gpu_kernel(block = (32, 8))]
fn tile_one_row_past(#[len(m * n)] out: &mut [u32], m: usize, n: usize) {
    let bm = block_idx().y as usize * 32;
    let bn = block_idx().x as usize * 32;
    if bm + 31 > m || bn + 32 > n {
        return;
    }
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    for k in 0..4 {
        let row = ty + 8 * k;
        let r = bm + row;
        out[r * n + bn + tx] = 1; // @TILEROW
    }
}

/// A `let` of a difference is not followed as a polynomial: `r = i - 1` wraps at `i == 0`,
/// though `i - 1 <= n - 1` as integers.
#[gpu_kernel]
fn let_of_a_difference(#[len(n)] a: &mut [u32], n: usize) {
    let i = thread_idx().x as usize;
    if i > n {
        return;
    }
    let r = i - 1;
    a[r] = 1; // @LETSUB
}

/// u32 coordinates one past: `y * n + x + 1` reaches `n * n`.
#[gpu_kernel]
fn u32_one_past(#[len(n * n)] out: &mut [u32], n: u32) {
    let x = block_idx().x * block_dim().x + thread_idx().x;
    let y = block_idx().y * block_dim().y + thread_idx().y;
    if x < n && y < n {
        out[(y * n + x + 1) as usize] = 1; // @U32
    }
}

/// `i` is assigned before the index: `i < n` no longer says anything of it.
#[gpu_kernel]
fn stride_assigned_first(#[len(n)] a: &mut [u32], n: usize) {
    let mut i = grid_1d();
    while i < n {
        i += 1;
        a[i] = 1; // @ASSIGNED
    }
}

/// A `break` leaves the loop with `g >= n` still true.
#[gpu_kernel]
fn wrap_with_break(#[len(n)] a: &mut [u32], n: usize, stop: usize) {
    let mut g = grid_1d() + n;
    while g >= n {
        if g == stop {
            break;
        }
        g -= n;
    }
    a[g] = 1; // @BREAK
}

/// Declared 32 threads, but `tx + 1` reaches 32.
#[gpu_kernel(block = (32, 1))]
fn block_one_past(out: &mut [u32]) {
    let tile = SharedArray::<u32, 32>::new();
    let tx = thread_idx().x as usize;
    tile[tx + 1] = 1; // @BLOCK
    if tx == 0 {
        out[0] = 1;
    }
}

/// `block_dim().x <= n + 1`: the last thread is one past.
#[gpu_kernel]
fn block_dim_one_past(#[len(n)] v: &mut [u32], n: usize) {
    if block_dim().x as usize <= n + 1 {
        let t = thread_idx().x as usize;
        v[t] = 1; // @BLOCKDIM
    }
}

/// `% (n + 1)` reaches `n`.
#[gpu_kernel]
fn rem_one_past(#[len(n)] a: &mut [u32], n: usize) {
    let i = grid_1d();
    a[i % (n + 1)] = 1; // @REM
}

/// `min(n)` (not `n - 1`) reaches `n`.
#[gpu_kernel]
fn min_one_past(#[len(n)] a: &mut [u32], n: usize) {
    let i = grid_1d();
    a[i.min(n)] = 1; // @MIN
}

/// `i - 1` without `i >= 1`: wraps to u64::MAX at 0.
#[gpu_kernel]
fn sub_unproven(#[len(n)] a: &mut [u32], n: usize) {
    let i = grid_1d();
    if i <= n {
        a[i - 1] = 1; // @SUB
    }
}

/// `i + d - k <= n` (not `< n`): one past at the window's far end.
#[gpu_kernel]
fn window_one_past(#[len(n)] a: &[u32], #[len(n)] out: &mut [u32], n: usize, d: usize) {
    let i = grid_1d();
    if i >= n {
        return;
    }
    let mut s = 0u32;
    for k in 0..2 * d + 1 {
        if i + d >= k && i + d - k <= n {
            s += a[i + d - k]; // @WINDOW
        }
    }
    out[i] = s;
}

/// The C after the prelude, where the kernel's own code is.
fn kernel_c(source: &str) -> &str {
    source
        .split("// ---- end of the prelude")
        .nth(1)
        .expect("the prelude's end marker")
}

fn has_check(source: &str) -> bool {
    let c = kernel_c(source);
    c.contains("ws_ld(")
        || c.contains("ws_ld_d(")
        || c.contains("ws_at(")
        || c.contains("ws_at_shared(")
}

#[test]
fn proven_kernels_have_no_check_left() {
    for (name, source) in [
        ("reverse_in_blocks", &*reverse_in_blocks::CUDA_SOURCE),
        ("square_per_thread", &*square_per_thread::CUDA_SOURCE),
        ("gather_three", &*gather_three::CUDA_SOURCE),
        ("shifted_window", &*shifted_window::CUDA_SOURCE),
        ("stride_and_wrap", &*stride_and_wrap::CUDA_SOURCE),
        ("transpose_u32", &*transpose_u32::CUDA_SOURCE),
        ("tile_flip", &*tile_flip::CUDA_SOURCE),
        ("broadcast_first", &*broadcast_first::CUDA_SOURCE),
    ] {
        assert!(!has_check(source), "{name}:\n{}", kernel_c(source));
    }
    // The declared shape reaches NVRTC.
    assert!(reverse_in_blocks::CUDA_SOURCE.contains("__launch_bounds__(32) reverse_in_blocks("));
}

#[test]
fn proven_kernels_compute_what_the_cpu_does() {
    for dev in devices("prover_facts_proven") {
        let mut rng = Rng::new(11);
        // Blocks of 32 reversed in place; the tail past the last whole block is untouched.
        let n = 32 * 5 + 7;
        let host: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let mut v = dev.upload(&host).unwrap();
        reverse_in_blocks::launch(&dev, LaunchConfig::new(6, (32, 1)), &mut v, n).unwrap();
        let mut want = host.clone();
        for chunk in want[..160].chunks_mut(32) {
            chunk.reverse();
        }
        assert_eq!(v.download().unwrap(), want, "{:?}", dev.backend());

        let host: Vec<u32> = (0..100).map(|_| rng.next_u64() as u32).collect();
        let mut v = dev.upload(&host).unwrap();
        square_per_thread::launch(&dev, LaunchConfig::new(1, 64), &mut v, 100).unwrap();
        let want: Vec<u32> = host
            .iter()
            .enumerate()
            .map(|(i, x)| if i < 64 { x.wrapping_mul(*x) } else { *x })
            .collect();
        assert_eq!(v.download().unwrap(), want, "{:?}", dev.backend());

        for (n, m) in [(1usize, 40usize), (7, 100), (300, 129)] {
            let a_host: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let a = dev.upload(&a_host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; m]).unwrap();
            let blocks = m.div_ceil(64) as u32;
            gather_three::launch(&dev, LaunchConfig::new(blocks, 64), &a, &mut out, n, m).unwrap();
            let want: Vec<u32> = (0..m)
                .map(|i| {
                    let before = if i >= 1 && i <= n { a_host[i - 1] } else { 0 };
                    a_host[i % n] ^ (a_host[i.min(n - 1)] << 1) ^ (before << 2)
                })
                .collect();
            assert_eq!(
                out.download().unwrap(),
                want,
                "n {n} m {m} {:?}",
                dev.backend()
            );
        }

        for n in [1usize, 100, 1000] {
            let a_host: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let a = dev.upload(&a_host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; n]).unwrap();
            stride_and_wrap::launch(&dev, LaunchConfig::new(2, 64), &a, &mut out, n).unwrap();
            let want: Vec<u32> = (0..n).map(|i| a_host[i] ^ a_host[(i + 1) % n]).collect();
            assert_eq!(out.download().unwrap(), want, "n {n} {:?}", dev.backend());
        }

        for n in [1u32, 7, 40] {
            let len = (n * n) as usize;
            let a_host: Vec<u32> = (0..len).map(|_| rng.next_u64() as u32).collect();
            let a = dev.upload(&a_host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; len]).unwrap();
            let blocks = n.div_ceil(8);
            transpose_u32::launch(
                &dev,
                LaunchConfig::new((blocks, blocks), (8, 8)),
                &a,
                &mut out,
                n,
            )
            .unwrap();
            let n = n as usize;
            let want: Vec<u32> = (0..len).map(|i| a_host[(i % n) * n + i / n]).collect();
            assert_eq!(out.download().unwrap(), want, "n {n} {:?}", dev.backend());
        }

        // A 3 x 2 grid of tiles over 96 x 80 (the last column of tiles partial: its
        // blocks return), and a grid larger than C.
        for (m, n, grid) in [(96usize, 80usize, (3u32, 3u32)), (64, 64, (4, 4))] {
            let a_host: Vec<u32> = (0..m * n).map(|_| rng.next_u64() as u32).collect();
            let a = dev.upload(&a_host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; m * n]).unwrap();
            tile_flip::launch(&dev, LaunchConfig::new(grid, (32, 8)), &a, &mut out, m, n).unwrap();
            let want: Vec<u32> = (0..m * n)
                .map(|i| {
                    let (r, c) = (i / n, i % n);
                    if r < m / 32 * 32 && c < n / 32 * 32 {
                        a_host[i] ^ 1
                    } else {
                        u32::MAX
                    }
                })
                .collect();
            assert_eq!(
                out.download().unwrap(),
                want,
                "m {m} n {n} {:?}",
                dev.backend()
            );
        }

        for (n, d) in [(1usize, 3usize), (50, 0), (257, 6)] {
            let a_host: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
            let a = dev.upload(&a_host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; n]).unwrap();
            let blocks = n.div_ceil(64) as u32;
            shifted_window::launch(&dev, LaunchConfig::new(blocks, 64), &a, &mut out, n, d)
                .unwrap();
            let want: Vec<u32> = (0..n)
                .map(|i| {
                    (0..2 * d + 1)
                        .filter(|&k| i + d >= k && i + d - k < n)
                        .fold(0u32, |s, k| s.wrapping_add(a_host[i + d - k]))
                })
                .collect();
            assert_eq!(
                out.download().unwrap(),
                want,
                "n {n} d {d} {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn a_launch_with_another_block_shape_is_refused() {
    for dev in devices("prover_facts_block_shape") {
        let mut v = dev.upload(&[7u32; 64]).unwrap();
        let err =
            reverse_in_blocks::launch(&dev, LaunchConfig::new(1, (64, 1)), &mut v, 64).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid launch of kernel `reverse_in_blocks` with grid (1, 1, 1), block (64, 1, 1): \
             the kernel declares \
             #[gpu_kernel(block = (32, 1, 1))], so every launch needs blocks of (32, 1, 1) threads"
        );
        assert!(matches!(err, Error::InvalidLaunch { .. }), "{err:?}");
        // Nothing ran.
        assert_eq!(v.download().unwrap(), vec![7u32; 64]);
    }
}

/// `r` (or the synchronisation after it) is `OutOfBounds` in `kernel` at `marker`.
fn expect_oob(
    dev: &Device,
    r: Result<(), Error>,
    kernel: &str,
    marker: &str,
    index: u64,
    len: u64,
) {
    common::expect_oob_marked(dev, r, kernel, (FILE, SOURCE), marker, index, len);
}

#[test]
fn near_misses_keep_their_checks() {
    for (name, source) in [
        ("block_one_past", &*block_one_past::CUDA_SOURCE),
        ("block_dim_one_past", &*block_dim_one_past::CUDA_SOURCE),
        ("rem_one_past", &*rem_one_past::CUDA_SOURCE),
        ("min_one_past", &*min_one_past::CUDA_SOURCE),
        ("sub_unproven", &*sub_unproven::CUDA_SOURCE),
        ("window_one_past", &*window_one_past::CUDA_SOURCE),
        (
            "stride_assigned_first",
            &*stride_assigned_first::CUDA_SOURCE,
        ),
        ("wrap_with_break", &*wrap_with_break::CUDA_SOURCE),
        ("u32_one_past", &*u32_one_past::CUDA_SOURCE),
        ("tile_one_row_past", &*tile_one_row_past::CUDA_SOURCE),
        ("let_of_a_difference", &*let_of_a_difference::CUDA_SOURCE),
    ] {
        assert!(has_check(source), "{name}:\n{}", kernel_c(source));
    }
    for dev in devices("prover_facts_near_misses") {
        let n = 8usize;
        let mut out = dev.zeros::<u32>(1).unwrap();
        expect_oob(
            &dev,
            block_one_past::launch(&dev, LaunchConfig::new(1, (32, 1)), &mut out),
            "block_one_past",
            "BLOCK",
            32,
            32,
        );
        let mut v = dev.zeros::<u32>(n).unwrap();
        expect_oob(
            &dev,
            block_dim_one_past::launch(&dev, LaunchConfig::new(1, n as u32 + 1), &mut v, n),
            "block_dim_one_past",
            "BLOCKDIM",
            8,
            8,
        );
        // Thread 8 of 9 takes 8 % 9 = 8; thread 8 of 9 takes min(8, 8) = 8.
        expect_oob(
            &dev,
            rem_one_past::launch(&dev, LaunchConfig::new(1, 9), &mut v, n),
            "rem_one_past",
            "REM",
            8,
            8,
        );
        expect_oob(
            &dev,
            min_one_past::launch(&dev, LaunchConfig::new(1, 9), &mut v, n),
            "min_one_past",
            "MIN",
            8,
            8,
        );
        expect_oob(
            &dev,
            sub_unproven::launch(&dev, LaunchConfig::new(1, 1), &mut v, n),
            "sub_unproven",
            "SUB",
            u64::MAX,
            8,
        );
        // Thread 7 of 8 adds 1 to 7 and writes at 8.
        expect_oob(
            &dev,
            stride_assigned_first::launch(&dev, LaunchConfig::new(1, 8), &mut v, n),
            "stride_assigned_first",
            "ASSIGNED",
            8,
            8,
        );
        // One thread: g = 0 + 8 breaks out at `stop` = 8, still 8.
        expect_oob(
            &dev,
            wrap_with_break::launch(&dev, LaunchConfig::new(1, 1), &mut v, n, n),
            "wrap_with_break",
            "BREAK",
            8,
            8,
        );
        // The last cell of a 3x3 lattice writes at 9.
        let mut sq = dev.zeros::<u32>(9).unwrap();
        expect_oob(
            &dev,
            u32_one_past::launch(&dev, LaunchConfig::new(1, (3, 3)), &mut sq, 3),
            "u32_one_past",
            "U32",
            9,
            9,
        );
        // m = 63, n = 32: block row 1 starts at 32, and its row 31 is row 63, at 63 * 32.
        let mut t = dev.zeros::<u32>(63 * 32).unwrap();
        expect_oob(
            &dev,
            tile_one_row_past::launch(&dev, LaunchConfig::new((1, 2), (32, 8)), &mut t, 63, 32),
            "tile_one_row_past",
            "TILEROW",
            63 * 32,
            63 * 32,
        );
        expect_oob(
            &dev,
            let_of_a_difference::launch(&dev, LaunchConfig::new(1, 1), &mut v, n),
            "let_of_a_difference",
            "LETSUB",
            u64::MAX,
            8,
        );
        // Thread 7 with d = 1, k = 0 reaches 7 + 1 - 0 = 8.
        let a = dev.zeros::<u32>(n).unwrap();
        expect_oob(
            &dev,
            window_one_past::launch(&dev, LaunchConfig::new(1, 8), &a, &mut v, n, 1),
            "window_one_past",
            "WINDOW",
            8,
            8,
        );
    }
}

#[test]
fn broadcast_first_skips_an_empty_input() {
    for dev in devices("broadcast_first_skips_an_empty_input") {
        let x = dev.upload(&[7u32, 8, 9]).unwrap();
        let mut out = dev.upload(&[1u32; 40]).unwrap();
        broadcast_first::launch(&dev, LaunchConfig::new(1, 64), &x, &mut out, 40).unwrap();
        assert_eq!(out.download().unwrap(), vec![7; 40]);
        let empty = dev.zeros::<u32>(0).unwrap();
        let mut out = dev.upload(&[1u32; 40]).unwrap();
        broadcast_first::launch(&dev, LaunchConfig::new(1, 64), &empty, &mut out, 40).unwrap();
        assert_eq!(out.download().unwrap(), vec![1; 40]);
    }
}

// ---- stepped ranges' last values, and indexes split by several guards --------------------

/// A stepped range of constants ends at its last value: `k <= 24` in `(0..32).step_by(8)`,
/// so in a declared block of 32 x 8 `tile[ty + k]` (32 rows) and the transposed store
/// need no check.
#[gpu_kernel(block = (32, 8))]
fn stepped_rows(#[len(n * 1024)] out: &mut [u32], n: usize) {
    let tile = SharedArray::<[u32; 32], 32>::new();
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    for k in (0..32).step_by(8) {
        tile[ty + k][tx] = ((ty + k) * 100 + tx) as u32;
    }
    sync_threads();
    let b = block_idx().x as usize;
    if b < n {
        for k in (0..32).step_by(8) {
            out[b * 1024 + (ty + k) * 32 + tx] = tile[tx][ty + k];
        }
    }
}

/// Two guarded sums in one index: `(row0 + r) * k + t + c` under `row0 + r < m && t + c <
/// k` is at most `m * k - 1`, though `t + c` is no sub-expression of it as written.
#[gpu_kernel(block = (16, 4))]
fn two_sums(#[len(m * k)] a: &[u32], #[len(m * k)] out: &mut [u32], m: usize, k: usize) {
    let row0 = block_idx().y as usize * 4;
    let r = thread_idx().y as usize;
    let c = thread_idx().x as usize;
    for t in (0..k).step_by(16) {
        if row0 + r < m && t + c < k {
            out[(row0 + r) * k + t + c] = a[(row0 + r) * k + t + c] + 1;
        }
    }
}

/// [`stepped_rows`] one step long: `(0..33).step_by(8)` reaches 32.
#[gpu_kernel(block = (32, 1))]
fn stepped_one_past(#[len(32)] out: &mut [u32]) {
    let tile = SharedArray::<u32, 32>::new();
    let tx = thread_idx().x as usize;
    for k in (0..33).step_by(8) {
        tile[k] = tx as u32; // @STEPPED
    }
    sync_threads();
    out[tx] = tile[tx];
}

/// [`two_sums`] reading with `t + c <= k`: the last row's element `k` is `m * k` (the
/// reads of the other rows' element `k` are their next row's first: in bounds).
#[gpu_kernel(block = (16, 4))]
fn two_sums_one_past(#[len(m * k)] a: &[u32], #[len(m * k)] out: &mut [u32], m: usize, k: usize) {
    let row0 = block_idx().y as usize * 4;
    let r = thread_idx().y as usize;
    let c = thread_idx().x as usize;
    for t in (0..k).step_by(16) {
        if row0 + r < m && t + c <= k {
            let v = a[(row0 + r) * k + t + c]; // @TWOSUMS
            if t + c < k {
                out[(row0 + r) * k + t + c] = v;
            }
        }
    }
}

#[test]
fn stepped_ranges_and_split_indexes_are_proven_and_compute_what_the_cpu_does() {
    for (name, source) in [
        ("stepped_rows", &*stepped_rows::CUDA_SOURCE),
        ("two_sums", &*two_sums::CUDA_SOURCE),
    ] {
        assert!(!has_check(source), "{name}:\n{}", kernel_c(source));
    }
    for (name, source) in [
        ("stepped_one_past", &*stepped_one_past::CUDA_SOURCE),
        ("two_sums_one_past", &*two_sums_one_past::CUDA_SOURCE),
    ] {
        assert!(has_check(source), "{name}:\n{}", kernel_c(source));
    }
    for dev in devices("prover_facts_stepped_split") {
        let n = 3usize;
        let mut out = dev.upload(&vec![u32::MAX; n * 1024]).unwrap();
        stepped_rows::launch(&dev, LaunchConfig::new(n as u32, (32, 8)), &mut out, n).unwrap();
        let want: Vec<u32> = (0..n * 1024)
            .map(|i| ((i % 32) * 100 + (i % 1024) / 32) as u32)
            .collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());

        let mut rng = Rng::new(5);
        for (m, k) in [(9usize, 37usize), (4, 16), (1, 1)] {
            let host: Vec<u32> = (0..m * k).map(|_| rng.next_u32() >> 1).collect();
            let a = dev.upload(&host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; m * k]).unwrap();
            let cfg = LaunchConfig::new((1, m.div_ceil(4) as u32), (16, 4));
            two_sums::launch(&dev, cfg, &a, &mut out, m, k).unwrap();
            let want: Vec<u32> = host.iter().map(|v| v + 1).collect();
            assert_eq!(out.download().unwrap(), want, "{m}x{k} {:?}", dev.backend());
        }

        let mut out = dev.zeros::<u32>(32).unwrap();
        let r = stepped_one_past::launch(&dev, LaunchConfig::new(1, (32, 1)), &mut out);
        expect_oob(&dev, r, "stepped_one_past", "STEPPED", 32, 32);
        let (m, k) = (5usize, 20usize);
        let a = dev.zeros::<u32>(m * k).unwrap();
        let mut out = dev.zeros::<u32>(m * k).unwrap();
        let cfg = LaunchConfig::new((1, m.div_ceil(4) as u32), (16, 4));
        let r = two_sums_one_past::launch(&dev, cfg, &a, &mut out, m, k);
        expect_oob(
            &dev,
            r,
            "two_sums_one_past",
            "TWOSUMS",
            (m * k) as u64,
            (m * k) as u64,
        );
    }
}

// ---- a loop's limit below a `min`: the compared variable stands for its many bounds ------

/// The 16-bytes-a-thread histogram's loop (examples/kernels/histogram.rs, variant (f)):
/// `full` is a `min`, so `limit = full - 3 * stride` has many bounds, and the guard `i <
/// limit` keeps only the first few of them as facts on `i`, which need not include
/// `words.len() - 3 * stride`. `i <= limit - 1` is kept too, so `i + 3 * stride` is proven
/// through `limit`'s own bounds.
#[gpu_kernel]
fn strided_quads(words: &[u32], len: usize, out: &mut [u32]) {
    let full = (len / 4).min(words.len());
    let stride = grid_dim().x as usize * block_dim().x as usize;
    let t = grid_1d();
    let mut i = t;
    let mut s = 0u32;
    if 3 * stride < full {
        let limit = full - 3 * stride;
        while i < limit {
            let w = words[i] ^ words[i + stride] ^ words[i + 2 * stride] ^ words[i + 3 * stride];
            s = s.wrapping_mul(31).wrapping_add(w);
            i += 4 * stride;
        }
    }
    if t < out.len() {
        out[t] = s;
    }
}

/// [`strided_quads`] reading one stride further than its limit allows.
#[gpu_kernel]
fn strided_quads_one_past(words: &[u32], len: usize, out: &mut [u32]) {
    let full = (len / 4).min(words.len());
    let stride = grid_dim().x as usize * block_dim().x as usize;
    let t = grid_1d();
    let mut i = t;
    let mut s = 0u32;
    if 3 * stride < full {
        let limit = full - 3 * stride;
        while i < limit {
            s ^= words[i + 4 * stride]; // @QUADS
            i += 4 * stride;
        }
    }
    if t < out.len() {
        out[t] = s;
    }
}

#[test]
fn a_limit_below_a_min_is_proven_and_computes_what_the_cpu_does() {
    assert!(
        !has_check(&strided_quads::CUDA_SOURCE),
        "{}",
        kernel_c(&strided_quads::CUDA_SOURCE)
    );
    assert!(has_check(&strided_quads_one_past::CUDA_SOURCE));
    for dev in devices("prover_facts_limit_below_min") {
        let mut rng = Rng::new(23);
        // `len` below, at and above the words' bytes; grids that leave a partial round.
        for (words, len, grid, block) in [
            (1000usize, 4000usize, 2u32, 32u32),
            (1000, 2001, 3, 64),
            (777, 1 << 20, 1, 96),
            (5, 20, 1, 2),
        ] {
            let host: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
            let w = dev.upload(&host).unwrap();
            let threads = (grid * block) as usize;
            let mut out = dev.upload(&vec![u32::MAX; threads]).unwrap();
            let cfg = LaunchConfig::new(grid, block);
            strided_quads::launch(&dev, cfg, &w, len, &mut out).unwrap();
            let full = (len / 4).min(words);
            let want: Vec<u32> = (0..threads)
                .map(|t| {
                    let mut s = 0u32;
                    let mut i = t;
                    while 3 * threads < full && i < full - 3 * threads {
                        let q = (0..4).fold(0, |x, k| x ^ host[i + k * threads]);
                        s = s.wrapping_mul(31).wrapping_add(q);
                        i += 4 * threads;
                    }
                    s
                })
                .collect();
            assert_eq!(
                out.download().unwrap(),
                want,
                "{words} words, len {len}, {grid} x {block} {:?}",
                dev.backend()
            );
        }
        // One thread over 16 words: the round at i = 12 reads word 16.
        let w = dev.zeros::<u32>(16).unwrap();
        let mut out = dev.zeros::<u32>(1).unwrap();
        let r = strided_quads_one_past::launch(&dev, LaunchConfig::new(1, 1), &w, 64, &mut out);
        expect_oob(&dev, r, "strided_quads_one_past", "QUADS", 16, 16);
    }
}
