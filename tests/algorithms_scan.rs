//! `warpspeed::algorithms::scan` (issue 22): inclusive and exclusive scans (the decoupled
//! look-back of the 32-bit types, the fixed-order look-back of the other integers, `f32`
//! sums and `f64`, and the three-launch scan of `f16`, `bf16` and a user's operators)
//! against the CPU's on random data at lengths around the tile (4096) and chunk
//! boundaries, one chunk and many, and chunks of several tiles (past 4096 · 1024 elements:
//! three levels of the fixed-order look-back, and each autotuning candidate); integers exact (they
//! wrap), floats within a bound of an f64 reference and the same bit for bit on both
//! backends; running min and max; a user's `#[gpu_struct]` operator; outputs poisoned
//! first; bad input refused before anything runs, the output untouched.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::operator::{Max, Min, Operator, Sum};
use warpspeed::algorithms::{operator, scan};
use warpspeed::prelude::*;

const LENGTHS: [usize; 9] = [0, 1, 2, 255, 4095, 4096, 4097, 70_001, 4_194_305];

/// The CPU's inclusive (or exclusive, from `identity`) scan by `f`.
fn cpu_scan<T: Copy>(x: &[T], identity: T, inclusive: bool, f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut acc: Option<T> = None;
    x.iter()
        .map(|&v| {
            let before = acc.unwrap_or(identity);
            let now = match acc {
                Some(a) => f(a, v),
                None => v,
            };
            acc = Some(now);
            if inclusive {
                now
            } else {
                before
            }
        })
        .collect()
}

#[test]
fn integer_sums_are_exact() {
    let mut rng = Rng::new(41);
    for n in LENGTHS {
        let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        for inclusive in [true, false] {
            let want = cpu_scan(&x, 0, inclusive, u32::wrapping_add);
            for dev in devices("integer_sums_are_exact") {
                let d = dev.upload(&x).unwrap();
                let mut out = dev.upload(&vec![0xdead_beef; n]).unwrap();
                if inclusive {
                    scan::inclusive_sum(&dev, &d, &mut out).unwrap();
                } else {
                    scan::exclusive_sum(&dev, &d, &mut out).unwrap();
                }
                let got = out.download().unwrap();
                let bad = got.iter().zip(&want).position(|(a, b)| a != b);
                assert!(
                    bad.is_none(),
                    "n {n} inclusive {inclusive} {:?}: first difference at {bad:?}",
                    dev.backend()
                );
            }
        }
    }
}

/// The fixed-order look-back (algorithms/src/template/tree_lookback.rs) on 64-bit sums and
/// small wrapping integers: one level (up to 32 tiles), two, and three (4_194_305
/// elements are 1025 tiles of 4096), inclusive and exclusive, under each autotuning
/// candidate (the tile halves with 128 threads).
#[test]
fn fixed_order_lookback_sums_are_exact_at_every_level() {
    let mut rng = Rng::new(44);
    for n in LENGTHS {
        let x: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64 >> 3).collect();
        let small: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        for inclusive in [true, false] {
            let want = cpu_scan(&x, 0, inclusive, i64::wrapping_add);
            let want_small = cpu_scan(&small, 0, inclusive, u8::wrapping_add);
            for dev in devices("fixed_order_lookback_sums_are_exact_at_every_level") {
                for label in scan::TUNED_BLOCKS.map(|(l, _)| l) {
                    // Every candidate at the longest length; the default at the others.
                    if label != scan::TUNED_BLOCKS[0].0 && n < 4_000_000 {
                        continue;
                    }
                    warpspeed::autotune::force("scan", Some(label));
                    let d = dev.upload(&x).unwrap();
                    let mut out = dev.upload(&vec![-1i64; n]).unwrap();
                    if inclusive {
                        scan::inclusive_sum(&dev, &d, &mut out).unwrap();
                    } else {
                        scan::exclusive_sum(&dev, &d, &mut out).unwrap();
                    }
                    warpspeed::autotune::force("scan", None);
                    let got = out.download().unwrap();
                    let bad = got.iter().zip(&want).position(|(a, b)| a != b);
                    assert!(
                        bad.is_none(),
                        "i64 n {n} inclusive {inclusive} {label} {:?}: first difference at {bad:?}",
                        dev.backend()
                    );
                }
                let d = dev.upload(&small).unwrap();
                let mut out = dev.upload(&vec![0xa5u8; n]).unwrap();
                if inclusive {
                    scan::inclusive_sum(&dev, &d, &mut out).unwrap();
                } else {
                    scan::exclusive_sum(&dev, &d, &mut out).unwrap();
                }
                assert_eq!(out.download().unwrap(), want_small, "u8 n {n}");
            }
        }
    }
}

/// Float sums by the fixed-order look-back are the same bit for bit on a second run and
/// on both backends, at lengths of one level and of two (`f32` tiles are 8192 elements;
/// 300_001 are 37 tiles), `f32` and `f64`.
#[test]
fn float_sums_repeat_bit_for_bit() {
    let mut rng = Rng::new(45);
    for n in [8191usize, 8193, 300_001] {
        let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-1.0, 1.0)).collect();
        let y: Vec<f64> = x.iter().map(|&v| v as f64 * 1.000_000_1).collect();
        let mut seen: Vec<(Vec<u32>, Vec<u64>)> = Vec::new();
        for dev in devices("float_sums_repeat_bit_for_bit") {
            for _ in 0..2 {
                let d = dev.upload(&x).unwrap();
                let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
                scan::inclusive_sum(&dev, &d, &mut out).unwrap();
                let d64 = dev.upload(&y).unwrap();
                let mut out64 = dev.upload(&vec![f64::NAN; n]).unwrap();
                scan::exclusive_sum(&dev, &d64, &mut out64).unwrap();
                let got64 = out64.download().unwrap();
                assert_eq!(got64[0], 0.0);
                let mut exact = 0f64;
                for (i, (&g, &v)) in got64.iter().zip(&y).enumerate() {
                    assert!(
                        (g - exact).abs() <= 1e-9 * (i as f64 + 1.0),
                        "f64 n {n} at {i}"
                    );
                    exact += v;
                }
                seen.push((
                    out.download()
                        .unwrap()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect(),
                    got64.iter().map(|v| v.to_bits()).collect(),
                ));
            }
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "n {n}: runs or backends differ"
        );
    }
}

#[test]
fn float_sums_are_close_and_the_same_on_both_backends() {
    let mut rng = Rng::new(42);
    for n in [1usize, 5000, 70_001] {
        let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-1.0, 1.0)).collect();
        let exact = cpu_scan(
            &x.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            0.0,
            true,
            |a, b| a + b,
        );
        let mut seen: Vec<Vec<u32>> = Vec::new();
        for dev in devices("float_sums_are_close_and_the_same_on_both_backends") {
            let d = dev.upload(&x).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            scan::inclusive_sum(&dev, &d, &mut out).unwrap();
            let got = out.download().unwrap();
            let bound = n as f64 * f64::from(f32::EPSILON) * ((n as f64).log2() + 4.0);
            for (i, (&g, &e)) in got.iter().zip(&exact).enumerate() {
                assert!(
                    (g as f64 - e).abs() <= bound,
                    "n {n} at {i}: {g} against {e} {:?}",
                    dev.backend()
                );
            }
            seen.push(got.iter().map(|v| v.to_bits()).collect());
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "n {n}: the backends differ"
        );
    }
}

#[test]
fn running_min_and_max_are_the_cpus() {
    let mut rng = Rng::new(43);
    for n in LENGTHS {
        let x: Vec<i8> = (0..n).map(|_| rng.next_u64() as i8).collect();
        let f: Vec<f64> = (0..n).map(|_| rng.range_f64(-1e6, 1e6)).collect();
        for dev in devices("running_min_and_max_are_the_cpus") {
            let d = dev.upload(&x).unwrap();
            let mut out = dev.upload(&vec![99i8; n]).unwrap();
            scan::inclusive::<Min<i8>>(&dev, &d, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                cpu_scan(&x, 0, true, i8::min),
                "n {n}"
            );
            let d = dev.upload(&f).unwrap();
            let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
            scan::inclusive::<Max<f64>>(&dev, &d, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                cpu_scan(&f, 0.0, true, f64::max),
                "n {n}"
            );
            // The 32-bit types take the look-back scan.
            let f32s: Vec<f32> = f.iter().map(|&v| v as f32).collect();
            let d = dev.upload(&f32s).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            scan::inclusive::<Max<f32>>(&dev, &d, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                cpu_scan(&f32s, 0.0, true, f32::max),
                "n {n}"
            );
            scan::inclusive::<Min<f32>>(&dev, &d, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                cpu_scan(&f32s, 0.0, true, f32::min),
                "n {n}"
            );
            let i32s: Vec<i32> = x.iter().map(|&v| v as i32 * 1000 + 7).collect();
            let d = dev.upload(&i32s).unwrap();
            let mut out = dev.upload(&vec![0; n]).unwrap();
            scan::inclusive::<Min<i32>>(&dev, &d, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                cpu_scan(&i32s, 0, true, i32::min),
                "n {n}"
            );
            scan::exclusive_sum(&dev, &d, &mut out).unwrap();
            assert_eq!(
                out.download().unwrap(),
                cpu_scan(&i32s, 0, false, i32::wrapping_add),
                "n {n}"
            );
        }
    }
}

/// A 2x2 integer matrix: products are associative but not commutative, so a scan that
/// combines out of order shows.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mat2 {
    a: u32,
    b: u32,
    c: u32,
    d: u32,
}

#[gpu_device]
fn mat_mul(x: Mat2, y: Mat2) -> Mat2 {
    Mat2 {
        a: x.a * y.a + x.b * y.c,
        b: x.a * y.b + x.b * y.d,
        c: x.c * y.a + x.d * y.c,
        d: x.c * y.b + x.d * y.d,
    }
}

operator! {
    /// Matrix products (wrapping), identity I.
    pub struct MatMul { elem: Mat2, combine: mat_mul, identity: Mat2 { a: 1, b: 0, c: 0, d: 1 } }
}

#[test]
fn a_non_commutative_struct_operator_scans_in_order() {
    let mut rng = Rng::new(44);
    let one = Mat2 {
        a: 1,
        b: 0,
        c: 0,
        d: 1,
    };
    for n in [0usize, 1, 4097, 70_001] {
        let x: Vec<Mat2> = (0..n)
            .map(|_| {
                let r = rng.next_u64();
                Mat2 {
                    a: r as u32 & 7,
                    b: (r >> 8) as u32 & 7,
                    c: (r >> 16) as u32 & 7,
                    d: (r >> 24) as u32 & 7,
                }
            })
            .collect();
        for inclusive in [true, false] {
            let want = cpu_scan(&x, one, inclusive, mat_mul);
            for dev in devices("a_non_commutative_struct_operator_scans_in_order") {
                let d = dev.upload(&x).unwrap();
                let poison = Mat2 {
                    a: 9,
                    b: 9,
                    c: 9,
                    d: 9,
                };
                let mut out = dev.upload(&vec![poison; n]).unwrap();
                let mut scratch = scan::Scratch::new(&dev, n).unwrap();
                if inclusive {
                    scan::inclusive_with_scratch::<MatMul>(&dev, &d, &mut out, &mut scratch)
                        .unwrap();
                } else {
                    scan::exclusive_with_scratch::<MatMul>(&dev, &d, &mut out, &mut scratch)
                        .unwrap();
                }
                assert!(
                    out.download().unwrap() == want,
                    "n {n} inclusive {inclusive} {:?}",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn views_streams_and_reused_scratch() {
    for dev in devices("views_streams_and_reused_scratch") {
        let x = dev.upload(&(0..10_000u64).collect::<Vec<_>>()).unwrap();
        let s = dev.create_stream().unwrap();
        let mut out = dev.upload(&vec![7u64; 12_000]).unwrap();
        let mut scratch = scan::Scratch::new(&dev, 10_000).unwrap();
        for (lo, hi) in [(0usize, 10_000usize), (100, 9000), (5, 6)] {
            let view = x.slice(lo..hi);
            let mut dst = out.slice_mut(1000..1000 + hi - lo);
            scan::exclusive_with_scratch::<Sum<u64>>(&s, &view, &mut dst, &mut scratch).unwrap();
            s.synchronize().unwrap();
            let got = out.download().unwrap();
            let want: Vec<u64> = (lo as u64..hi as u64)
                .scan(0, |acc, v| {
                    let b = *acc;
                    *acc += v;
                    Some(b)
                })
                .collect();
            assert_eq!(&got[1000..1000 + hi - lo], &want[..], "{lo}..{hi}");
            assert!(got[..1000].iter().all(|&v| v == 7));
        }
    }
}

#[test]
fn bad_input_is_refused_and_the_output_untouched() {
    for dev in devices("bad_input_is_refused_and_the_output_untouched") {
        let x = dev.upload(&[1i32; 100]).unwrap();
        let mut out = dev.upload(&[5i32; 99]).unwrap();
        let err = scan::inclusive_sum(&dev, &x, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch in scan::inclusive: the output (the input's length): expected 100 elements, got 99"
        );
        let mut out = dev.upload(&[5i32; 100]).unwrap();
        let err = scan::exclusive::<Min<i32>>(&dev, &x, &mut out).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        assert!(err.to_string().contains("has no identity"), "{err}");
        let mut scratch = scan::Scratch::new(&dev, 50).unwrap();
        let err =
            scan::inclusive_with_scratch::<Sum<i32>>(&dev, &x, &mut out, &mut scratch).unwrap_err();
        assert!(
            matches!(
                err,
                Error::LengthMismatch {
                    expected: 100,
                    found: 50,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(out.download().unwrap(), vec![5; 100]);
    }
}

#[test]
fn scan_kernels_compile_with_nvrtc() {
    use scan::kernels as k;
    let mut all: Vec<(&str, &'static warpspeed::__private::KernelDef)> = vec![
        ("scan_sums_int u32", k::scan_sums_int::kernel::<u32>()),
        ("scan_sums_int", k::scan_sums_int::kernel::<i64>()),
        ("scan_mins_int", k::scan_mins_int::kernel::<i8>()),
        (
            "scan_sums_float",
            k::scan_sums_float::kernel::<warpspeed::f16>(),
        ),
        ("scan_maxs_float", k::scan_maxs_float::kernel::<f64>()),
        (
            "scan_mins_float",
            k::scan_mins_float::kernel::<warpspeed::bf16>(),
        ),
        ("lookback_sums_u32", &k::lookback_sums_u32::KERNEL),
        ("lookback_sums_i32", &k::lookback_sums_i32::KERNEL),
        ("lookback_mins_f32", &k::lookback_mins_f32::KERNEL),
        ("lookback_maxs_i32", &k::lookback_maxs_i32::KERNEL),
        (
            "lookback_maxs_u32 unchecked",
            &k::unchecked::lookback_maxs_u32::KERNEL,
        ),
        ("ordered_sums_int i64", k::ordered_sums_int::kernel::<i64>()),
        ("ordered_mins_int u8", k::ordered_mins_int::kernel::<u8>()),
        (
            "ordered_maxs_int usize",
            k::ordered_maxs_int::kernel::<usize>(),
        ),
        ("ordered_sums_f32", &k::ordered_sums_f32::KERNEL),
        (
            "capped ordered_sums_int i64",
            k::capped::ordered_sums_int::kernel::<i64>(),
        ),
        (
            "capped ordered_sums_f32",
            &k::capped::ordered_sums_f32::KERNEL,
        ),
        (
            "capped ordered_maxs_f64",
            &k::capped::ordered_maxs_f64::KERNEL,
        ),
        ("ordered_sums_f64", &k::ordered_sums_f64::KERNEL),
        ("ordered_mins_f64", &k::ordered_mins_f64::KERNEL),
        (
            "ordered_maxs_f64 unchecked",
            &k::unchecked::ordered_maxs_f64::KERNEL,
        ),
    ];
    for kd in MatMul::kernels() {
        all.push((kd.rust_name, kd));
    }
    nvrtc_compiles(&all);
}

/// Every index of the three-launch scan's and the fixed-order look-back's kernels is
/// proven in bounds: the checked form keeps no check.
#[test]
fn the_scan_kernels_keep_no_check() {
    use scan::kernels as k;
    for c in [
        k::scan_sums_float::cuda_source::<f32>(),
        k::scan_mins_int::cuda_source::<u8>(),
        k::scan_maxs_int::cuda_source::<i64>(),
        k::ordered_sums_int::cuda_source::<i64>(),
        k::ordered_maxs_int::cuda_source::<u16>(),
        k::ordered_sums_f32::CUDA_SOURCE.to_string(),
        k::ordered_mins_f64::CUDA_SOURCE.to_string(),
        k::capped::ordered_sums_int::cuda_source::<i64>(),
        k::capped::ordered_mins_f64::CUDA_SOURCE.to_string(),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{check}: {body}");
        }
    }
}
