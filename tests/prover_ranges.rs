//! The bounds prover on sub-slices (`&s[a..b]`) and `ldmatrix` rows: a range whose `a <= b
//! <= len` is proven has no check in the C (`ws_range_ok`), and its length is then the
//! constant `b - a`; one step past what the facts allow keeps the check and reports
//! `OutOfBounds` (index the end, length the slice's) on both backends. docs/bounds.md,
//! "Sub-slices".

mod common;

use common::{devices, expect_oob, line_of, Rng};
use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

const SOURCE: &str = include_str!("prover_ranges.rs");
const FILE: &str = "tests/prover_ranges.rs";

/// `&a[i..i + 4]` after `i + 4 > n` returned: proven, by the offset rule (`i + 4` is `i`
/// plus a constant, and `i <= n - 4` bounds `i`).
#[gpu_kernel]
fn sum_fours(#[len(n)] a: &[u32], #[len(n)] out: &mut [u32], n: usize) {
    let i = grid_1d();
    if i + 4 > n {
        return;
    }
    let w = &a[i..i + 4];
    out[i] = w[0] + w[1] + w[2] + w[3];
}

/// The same with `i + 3 > n`: `i + 4` may be `n + 1`, one past.
#[gpu_kernel]
fn sum_fours_one_past(#[len(n)] a: &[u32], #[len(n)] out: &mut [u32], n: usize) {
    let i = grid_1d();
    if i + 3 > n {
        return;
    }
    let w = &a[i..i + 4]; // @ONE-PAST
    out[i] = w.len() as u32;
}

/// A shared tile's 8-element windows at `8 * t` in a declared block of 16: proven
/// (`8 * 15 + 8 <= 128`).
#[gpu_kernel(block = (16, 1, 1))]
fn tile_windows(#[len(128)] a: &[u32], #[len(16)] out: &mut [u32]) {
    let tile = SharedArray::<u32, 128>::new();
    let t = thread_idx().x as usize;
    for k in 0..8 {
        tile[8 * t + k] = a[8 * t + k];
    }
    sync_threads();
    let w = &tile[8 * t..8 * t + 8];
    let mut s = 0u32;
    for k in 0..w.len() {
        s += w[k];
    }
    out[t] = s;
}

/// The C after the prelude, where the kernel's own code is.
fn kernel_c(source: &str) -> &str {
    source
        .split("// ---- end of the prelude")
        .nth(1)
        .expect("the prelude's end marker")
}

#[test]
fn proven_ranges_have_no_range_check() {
    for (name, source) in [
        ("sum_fours", &*sum_fours::CUDA_SOURCE),
        ("tile_windows", &*tile_windows::CUDA_SOURCE),
    ] {
        let c = kernel_c(source);
        assert!(!c.contains("ws_range_ok("), "{name}:\n{c}");
    }
    assert!(kernel_c(&sum_fours_one_past::CUDA_SOURCE).contains("ws_range_ok("));
}

#[test]
fn proven_ranges_compute_what_the_cpu_does() {
    for dev in devices("prover_ranges_proven") {
        let mut rng = Rng::new(3);
        for n in [3usize, 4, 100] {
            let host: Vec<u32> = (0..n).map(|_| rng.next_u32() % 1000).collect();
            let a = dev.upload(&host).unwrap();
            let mut out = dev.upload(&vec![u32::MAX; n]).unwrap();
            sum_fours::launch(&dev, LaunchConfig::new(2, 64), &a, &mut out, n).unwrap();
            let want: Vec<u32> = (0..n)
                .map(|i| match i + 4 <= n {
                    true => host[i..i + 4].iter().sum(),
                    false => u32::MAX,
                })
                .collect();
            assert_eq!(out.download().unwrap(), want, "n {n} {:?}", dev.backend());
        }
        let host: Vec<u32> = (0..128).map(|_| rng.next_u32() % 1000).collect();
        let a = dev.upload(&host).unwrap();
        let mut out = dev.upload(&[u32::MAX; 16]).unwrap();
        tile_windows::launch(&dev, LaunchConfig::new(1, 16), &a, &mut out).unwrap();
        let want: Vec<u32> = host.chunks(8).map(|c| c.iter().sum()).collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[test]
fn one_past_keeps_its_check_and_reports() {
    let place = format!("{FILE}:{}", line_of(SOURCE, "ONE-PAST"));
    for dev in devices("prover_ranges_one_past") {
        let n = 10usize;
        let a = dev.upload(&vec![1u32; n]).unwrap();
        let mut out = dev.upload(&vec![0u32; n]).unwrap();
        // Thread 7: 7 + 3 <= 10 passes the guard, and 7 + 4 = 11 is one past.
        let r = sum_fours_one_past::launch(&dev, LaunchConfig::new(1, 16), &a, &mut out, n);
        expect_oob(&dev, r, "sum_fours_one_past", &place, 11, 10);
    }
}
