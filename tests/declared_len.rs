//! Declared slice lengths, `#[len(n * n)] cells: &[i32]`, on the simulator and the GPU:
//! a kernel's launch refuses a shorter slice before anything runs, a device function
//! refuses one at its entry (the call returns without touching memory), both as
//! `Error::SliceTooShort` with the exact message; and the indexes the bounds prover drops
//! checks for are exactly the provable ones: near misses keep their checks and report.

mod common;

use common::{devices, line_of, Rng};
use warpspeed::prelude::*;
use warpspeed::{Error, LaunchConfig};

const SOURCE: &str = include_str!("declared_len.rs");
const FILE: &str = "tests/declared_len.rs";

#[gpu_kernel]
fn square_copy(
    #[len(n * n)] src: &[u32], // @SRC
    #[len(n * n)] dst: &mut [u32],
    n: usize,
) {
    let (x, y) = grid_2d();
    if x >= n || y >= n {
        return;
    }
    dst[y * n + x] = src[y * n + x] + 1;
}

/// Sums the m pairs of `v`; `2 * i + 1 <= 2 * m - 1` is proven, so no index is checked.
#[gpu_device]
fn sum_pairs(
    #[len(2 * m)] v: &[u32], // @PAIRS
    m: usize,
) -> u32 {
    let mut s = 0u32;
    for i in 0..m {
        s += v[2 * i] + v[2 * i + 1];
    }
    s
}

#[gpu_kernel]
fn pair_sums(v: &[u32], m: usize, out: &mut [u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = sum_pairs(v, m) + i as u32;
    }
}

// ---- near misses: one step past what the facts allow, so the check stays and reports.

/// `i + 1` reaches `n` at the last thread.
#[gpu_kernel]
fn next_element(#[len(n)] a: &[u32], out: &mut [u32], n: usize) {
    let i = grid_1d();
    if i < n {
        out[i] = a[i + 1]; // @NEXT
    }
}

/// `y <= n` (not `< n`): row `n` is one row past the end.
#[gpu_kernel]
fn one_row_too_many(#[len(n * n)] a: &mut [u32], n: usize) {
    let (x, y) = grid_2d();
    if x >= n || y > n {
        return;
    }
    a[y * n + x] = 1; // @ROW
}

/// An inclusive range reaches `m`.
#[gpu_kernel]
fn inclusive_range(#[len(m)] v: &mut [u32], m: usize) {
    for i in 0..=m {
        v[i] = 2; // @INCLUSIVE
    }
}

/// A mutable variable proves nothing: its value at the index is not the compared one.
#[gpu_kernel]
fn mutated_index(#[len(n)] a: &mut [u32], n: usize) {
    let mut j = grid_1d();
    if j < n {
        j += 1;
        a[j] = 3; // @MUTATED
    }
}

/// Subtraction is not followed: `i - 1` wraps to u64::MAX at 0.
#[gpu_kernel]
fn previous_element(#[len(n)] a: &[u32], out: &mut [u32], n: usize) {
    let i = grid_1d();
    if i < n {
        out[i] = a[i - 1]; // @PREVIOUS
    }
}

/// The C after the prelude, where the kernel's own code is.
fn kernel_c(source: &str) -> &str {
    source
        .split("// ---- end of the prelude")
        .nth(1)
        .expect("the prelude's end marker")
}

fn at(marker: &str) -> String {
    format!("{FILE}:{}", line_of(SOURCE, marker))
}

#[test]
fn a_kernels_launch_refuses_a_shorter_slice_before_anything_runs() {
    for dev in devices("declared_len_launch") {
        let n = 4usize;
        let src = dev.upload(&vec![1u32; n * n - 1]).unwrap();
        let mut dst = dev.upload(&vec![u32::MAX; n * n]).unwrap();
        let err = square_copy::launch(&dev, LaunchConfig::new((1, 1), (4, 4)), &src, &mut dst, n)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "kernel `square_copy`: `src` has 15 elements, but `square_copy` declares #[len(n * n)] = 16 at {}; nothing was launched",
                at("SRC")
            )
        );
        assert!(
            matches!(
                err,
                Error::SliceTooShort {
                    need: Some(16),
                    len: 15,
                    at: None,
                    ..
                }
            ),
            "{err:?}"
        );
        // Nothing ran: the destination keeps its poison, and the device works on.
        assert_eq!(dst.download().unwrap(), vec![u32::MAX; n * n]);
        dev.synchronize().unwrap();
    }
}

#[test]
fn a_declared_length_past_u64_is_refused() {
    for dev in devices("declared_len_overflow") {
        let src = dev.upload(&[1u32; 4]).unwrap();
        let mut dst = dev.upload(&[0u32; 4]).unwrap();
        let n = 1usize << 33;
        let err =
            square_copy::launch(&dev, LaunchConfig::new(1, 1), &src, &mut dst, n).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "kernel `square_copy`: `src` has 4 elements, but `square_copy` declares #[len(n * n)] = more than u64::MAX at {}; nothing was launched",
                at("SRC")
            )
        );
    }
}

#[test]
fn proven_indexes_compute_what_the_cpu_does() {
    // The kernels' own code has no check left: every index is proven.
    for (name, source) in [
        ("square_copy", &*square_copy::CUDA_SOURCE),
        ("pair_sums", &*pair_sums::CUDA_SOURCE),
    ] {
        let c = kernel_c(source);
        assert!(
            !c.contains("ws_ld(") && !c.contains("ws_at("),
            "{name}:\n{c}"
        );
        assert!(
            c.contains("ws_len_report(") || name == "square_copy",
            "{name}:\n{c}"
        );
    }
    for dev in devices("declared_len_proven") {
        let mut rng = Rng::new(7);
        for n in [1usize, 5, 37] {
            let host: Vec<u32> = (0..n * n).map(|_| rng.next_u64() as u32 >> 1).collect();
            let src = dev.upload(&host).unwrap();
            let mut dst = dev.upload(&vec![u32::MAX; n * n]).unwrap();
            let blocks = n.div_ceil(8) as u32;
            square_copy::launch(
                &dev,
                LaunchConfig::new((blocks, blocks), (8, 8)),
                &src,
                &mut dst,
                n,
            )
            .unwrap();
            let want: Vec<u32> = host.iter().map(|v| v + 1).collect();
            assert_eq!(
                dst.download().unwrap(),
                want,
                "n = {n} on {:?}",
                dev.backend()
            );
        }
        let m = 50usize;
        let host: Vec<u32> = (0..2 * m).map(|_| rng.next_u64() as u32 >> 8).collect();
        let v = dev.upload(&host).unwrap();
        let mut out = dev.upload(&vec![u32::MAX; 70]).unwrap();
        pair_sums::launch(&dev, LaunchConfig::new(3, 32), &v, m, &mut out).unwrap();
        let sum = host.iter().fold(0u32, |a, b| a.wrapping_add(*b));
        let want: Vec<u32> = (0..70).map(|i| sum + i).collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[test]
fn a_device_function_refuses_a_shorter_slice_at_its_entry() {
    for dev in devices("declared_len_device") {
        let v = dev.upload(&[1u32; 9]).unwrap();
        let mut out = dev.upload(&[u32::MAX; 1]).unwrap();
        let err = pair_sums::launch(&dev, LaunchConfig::new(1, 1), &v, 5, &mut out)
            .and_then(|()| out.download().map(|_| ()))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "kernel `pair_sums`: `v` has 9 elements, but `sum_pairs` declares #[len(2 * m)] = 10 at {} (called by block (0, 0, 0), thread (0, 0, 0)); the call returned without touching memory",
                at("PAIRS")
            ),
            "{:?}",
            dev.backend()
        );
        // The record is reset and the device goes on: the same call with a long enough
        // slice works.
        let mut out = dev.upload(&[u32::MAX; 1]).unwrap();
        pair_sums::launch(&dev, LaunchConfig::new(1, 1), &v, 4, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), vec![8]);
    }
}

#[test]
fn near_misses_keep_their_checks() {
    for (name, source) in [
        ("next_element", &*next_element::CUDA_SOURCE),
        ("one_row_too_many", &*one_row_too_many::CUDA_SOURCE),
        ("inclusive_range", &*inclusive_range::CUDA_SOURCE),
        ("mutated_index", &*mutated_index::CUDA_SOURCE),
        ("previous_element", &*previous_element::CUDA_SOURCE),
    ] {
        let c = kernel_c(source);
        assert!(c.contains("ws_ld(") || c.contains("ws_at("), "{name}:\n{c}");
    }
    for dev in devices("declared_len_near_misses") {
        let n = 8usize;
        let expect = |r: Result<(), Error>, kernel: &str, marker: &str, index: u64, len: u64| {
            common::expect_oob(&dev, r, kernel, &at(marker), index, len)
        };
        let a = dev.upload(&vec![5u32; n]).unwrap();
        let mut out = dev.zeros::<u32>(n).unwrap();
        let cfg = LaunchConfig::new(1, n as u32);
        expect(
            next_element::launch(&dev, cfg, &a, &mut out, n),
            "next_element",
            "NEXT",
            8,
            8,
        );
        let mut sq = dev.zeros::<u32>(n * n).unwrap();
        expect(
            one_row_too_many::launch(&dev, LaunchConfig::new((1, 1), (1, 9)), &mut sq, n),
            "one_row_too_many",
            "ROW",
            64,
            64,
        );
        let mut v = dev.zeros::<u32>(n).unwrap();
        expect(
            inclusive_range::launch(&dev, LaunchConfig::new(1, 1), &mut v, n),
            "inclusive_range",
            "INCLUSIVE",
            8,
            8,
        );
        let mut m = dev.zeros::<u32>(n).unwrap();
        expect(
            mutated_index::launch(&dev, cfg, &mut m, n),
            "mutated_index",
            "MUTATED",
            8,
            8,
        );
        expect(
            previous_element::launch(&dev, LaunchConfig::new(1, 1), &a, &mut out, n),
            "previous_element",
            "PREVIOUS",
            u64::MAX,
            8,
        );
    }
}
