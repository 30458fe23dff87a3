//! `warpspeed::algorithms::segmented` (issue 22): segmented sums, minima and maxima and a
//! user's `#[gpu_struct]` operator against the CPU's on random segments (empty, one
//! element, around 1024, long), on both backends; outputs poisoned first; bad offsets,
//! lengths and empty segments without an identity refused before anything runs.
//!
//! The segmented scans likewise: inclusive and exclusive sums of integers (exact) and
//! floats (within a bound, the same bits for the same segment wherever it lies), running
//! min and max with NaNs, a user's struct operator and a non-commutative one, on segments
//! empty, of one element, around and past the 4096-element tile; one segment and none;
//! output outside every segment untouched; bad input refused, nothing written; the
//! emitted C keeps no bounds check.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::operator;
use warpspeed::algorithms::operator::{Max, Min, Operator, Sum};
use warpspeed::algorithms::segmented::{self, Segments};
use warpspeed::prelude::*;

/// Random segment lengths: empties, ones, around the block's 1024-element step, long (up
/// to `longest - 1`: a warp a segment up to `segmented::WARP_SEGMENT_MAX`).
fn random_offsets(rng: &mut Rng, count: usize, longest: usize) -> Vec<usize> {
    let mut offsets = vec![0usize];
    for _ in 0..count {
        let len = match rng.next_u64() % 6 {
            0 => 0,
            1 => 1,
            2 => 1020 + (rng.next_u64() % 9) as usize,
            3 => (rng.next_u64() % longest as u64) as usize,
            _ => (rng.next_u64() % 300) as usize,
        };
        offsets.push(offsets.last().unwrap() + len);
    }
    offsets
}

#[test]
fn segmented_sums_are_the_cpus() {
    let mut rng = Rng::new(61);
    // Long segments (a block each) and short ones (a warp each).
    for longest in [20_000usize, 4097] {
        let offsets = random_offsets(&mut rng, 300, longest);
        let n = *offsets.last().unwrap() + 17; // elements past the last segment are ignored
        let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let want: Vec<u32> = offsets
            .windows(2)
            .map(|w| x[w[0]..w[1]].iter().fold(0u32, |s, &v| s.wrapping_add(v)))
            .collect();
        let f: Vec<f64> = (0..n).map(|_| rng.range_f64(-1.0, 1.0)).collect();
        for dev in devices("segmented_sums_are_the_cpus") {
            let segs = Segments::new(&dev, &offsets).unwrap();
            assert_eq!(
                segs.reduce_per_warp(),
                longest <= segmented::WARP_SEGMENT_MAX + 1
            );
            let d = dev.upload(&x).unwrap();
            let mut out = dev.upload(&vec![0xdead_beefu32; want.len()]).unwrap();
            segmented::sum(&dev, &d, &segs, &mut out).unwrap();
            assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
            let d = dev.upload(&f).unwrap();
            let mut out = dev.upload(&vec![f64::NAN; want.len()]).unwrap();
            segmented::sum(&dev, &d, &segs, &mut out).unwrap();
            for (s, (got, w)) in out
                .download()
                .unwrap()
                .iter()
                .zip(offsets.windows(2))
                .enumerate()
            {
                let exact: f64 = f[w[0]..w[1]].iter().sum();
                let bound = (w[1] - w[0]) as f64 * f64::EPSILON * 16.0;
                assert!(
                    (got - exact).abs() <= bound,
                    "segment {s}: {got} against {exact}"
                );
            }
        }
    }
}

#[test]
fn segmented_min_and_max_are_the_cpus() {
    let mut rng = Rng::new(62);
    // Long segments (a block each) and short ones (a warp each).
    for longest in [20_000usize, 4097] {
        let mut offsets = random_offsets(&mut rng, 200, longest);
        offsets.dedup(); // no empty segment: min and max have no identity
        let n = *offsets.last().unwrap();
        let x: Vec<i16> = (0..n).map(|_| rng.next_u64() as i16).collect();
        let f: Vec<f32> = (0..n).map(|_| rng.range_f32(-100.0, 100.0)).collect();
        for dev in devices("segmented_min_and_max_are_the_cpus") {
            let segs = Segments::new(&dev, &offsets).unwrap();
            assert_eq!(
                segs.reduce_per_warp(),
                longest <= segmented::WARP_SEGMENT_MAX + 1
            );
            let d = dev.upload(&x).unwrap();
            let mut out = dev.zeros::<i16>(segs.count()).unwrap();
            segmented::reduce::<Min<i16>>(&dev, &d, &segs, &mut out).unwrap();
            let want: Vec<i16> = offsets
                .windows(2)
                .map(|w| *x[w[0]..w[1]].iter().min().unwrap())
                .collect();
            assert_eq!(out.download().unwrap(), want);
            let d = dev.upload(&f).unwrap();
            let mut out = dev.zeros::<f32>(segs.count()).unwrap();
            segmented::reduce::<Max<f32>>(&dev, &d, &segs, &mut out).unwrap();
            let want: Vec<f32> = offsets
                .windows(2)
                .map(|w| {
                    f[w[0]..w[1]]
                        .iter()
                        .copied()
                        .fold(f32::NEG_INFINITY, f32::max)
                })
                .collect();
            assert_eq!(out.download().unwrap(), want);
        }
    }
}

/// Count, sum and greatest of a segment, as one value.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    count: u32,
    total: i64,
    top: i32,
}

#[gpu_device]
fn merge(a: Stats, b: Stats) -> Stats {
    Stats {
        count: a.count + b.count,
        total: a.total + b.total,
        top: a.top.max(b.top),
    }
}

operator! {
    struct Merge { elem: Stats, combine: merge, identity: Stats { count: 0, total: 0, top: -2147483648 } }
}

#[test]
fn a_users_struct_operator_reduces_each_segment() {
    let mut rng = Rng::new(63);
    // Long segments (a block each) and short ones (a warp each).
    for longest in [20_000usize, 4097] {
        let offsets = random_offsets(&mut rng, 60, longest);
        let n = *offsets.last().unwrap();
        let x: Vec<Stats> = (0..n)
            .map(|_| {
                let v = rng.next_u64() as i32;
                Stats {
                    count: 1,
                    total: v as i64,
                    top: v,
                }
            })
            .collect();
        let identity = Stats {
            count: 0,
            total: 0,
            top: i32::MIN,
        };
        let want: Vec<Stats> = offsets
            .windows(2)
            .map(|w| x[w[0]..w[1]].iter().copied().fold(identity, merge))
            .collect();
        for dev in devices("a_users_struct_operator_reduces_each_segment") {
            let segs = Segments::new(&dev, &offsets).unwrap();
            assert_eq!(
                segs.reduce_per_warp(),
                longest <= segmented::WARP_SEGMENT_MAX + 1
            );
            let d = dev.upload(&x).unwrap();
            let poison = Stats {
                count: 7,
                total: 7,
                top: 7,
            };
            let mut out = dev.upload(&vec![poison; segs.count()]).unwrap();
            segmented::reduce::<Merge>(&dev, &d, &segs, &mut out).unwrap();
            assert!(out.download().unwrap() == want, "{:?}", dev.backend());
        }
    }
}

#[test]
fn bad_segments_are_refused_before_anything_runs() {
    for dev in devices("bad_segments_are_refused_before_anything_runs") {
        let err = Segments::new(&dev, &[0, 5, 3, 9]).err().unwrap();
        assert_eq!(
            err.to_string(),
            "invalid argument to segmented::Segments::new: the offsets: not monotone: \
             offsets[2] = 3 comes after offsets[1] = 5"
        );
        assert!(matches!(
            Segments::new(&dev, &[]),
            Err(Error::InvalidArgument { .. })
        ));
        let x = dev.upload(&[1i32; 10]).unwrap();
        let segs = Segments::new(&dev, &[0, 4, 4, 12]).unwrap();
        let mut out = dev.upload(&[9i32; 3]).unwrap();
        let err = segmented::sum(&dev, &x, &segs, &mut out).unwrap_err();
        assert!(
            matches!(
                err,
                Error::LengthMismatch {
                    expected: 12,
                    found: 10,
                    ..
                }
            ),
            "{err}"
        );
        let segs = Segments::new(&dev, &[0, 4, 4, 10]).unwrap();
        let mut short = dev.upload(&[9i32; 2]).unwrap();
        let err = segmented::sum(&dev, &x, &segs, &mut short).unwrap_err();
        assert!(
            matches!(
                err,
                Error::LengthMismatch {
                    expected: 3,
                    found: 2,
                    ..
                }
            ),
            "{err}"
        );
        let err = segmented::reduce::<Min<i32>>(&dev, &x, &segs, &mut out).unwrap_err();
        assert!(err.to_string().contains("an empty segment"), "{err}");
        assert_eq!(out.download().unwrap(), vec![9; 3]);
        // Rows of a matrix.
        let rows = Segments::uniform(&dev, 2, 5).unwrap();
        let mut two = dev.zeros::<i32>(2).unwrap();
        segmented::sum(&dev, &x, &rows, &mut two).unwrap();
        assert_eq!(two.download().unwrap(), vec![5, 5]);
    }
}

#[test]
fn the_segmented_kernels_compile_with_nvrtc() {
    use segmented::kernels as k;
    let mut all: Vec<(&str, &'static warpspeed::__private::KernelDef)> = vec![
        ("segment_sums_float", k::segment_sums_float::kernel::<f32>()),
        ("segment_mins_int", k::segment_mins_int::kernel::<u8>()),
        (
            "segment_maxs_float",
            k::segment_maxs_float::kernel::<warpspeed::bf16>(),
        ),
    ];
    for kd in Merge::kernels() {
        all.push((kd.rust_name, kd));
    }
    nvrtc_compiles(&all);
}

/// Random segment lengths for the scans: empties, ones, around and past the 4096-element
/// tile (one of them 9000: two tiles and a part), short.
fn random_scan_offsets(rng: &mut Rng, first: usize, count: usize) -> Vec<usize> {
    let mut offsets = vec![first];
    for _ in 0..count {
        let len = match rng.next_u64() % 8 {
            0 => 0,
            1 => 1,
            2 => 4095 + (rng.next_u64() % 3) as usize,
            3 => 9000,
            _ => (rng.next_u64() % 700) as usize,
        };
        offsets.push(offsets.last().unwrap() + len);
    }
    offsets
}

/// The CPU's scan of each segment by `f` into a copy of `out` (exclusive from
/// `identity`); elements outside every segment keep `out`'s.
fn cpu_segmented_scan<T: Copy>(
    x: &[T],
    offsets: &[usize],
    out: &[T],
    identity: T,
    inclusive: bool,
    f: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut want = out.to_vec();
    for w in offsets.windows(2) {
        let mut acc: Option<T> = None;
        for i in w[0]..w[1] {
            let before = acc.unwrap_or(identity);
            let now = acc.map_or(x[i], |a| f(a, x[i]));
            acc = Some(now);
            want[i] = if inclusive { now } else { before };
        }
    }
    want
}

#[test]
fn segmented_integer_scans_are_exact() {
    let mut rng = Rng::new(64);
    // Elements before the first segment and after the last belong to none.
    let offsets = random_scan_offsets(&mut rng, 5, 16);
    let n = *offsets.last().unwrap() + 9;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let y: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
    for dev in devices("segmented_integer_scans_are_exact") {
        let segs = Segments::new(&dev, &offsets).unwrap();
        let d = dev.upload(&x).unwrap();
        let e = dev.upload(&y).unwrap();
        for inclusive in [true, false] {
            let poison = vec![0xdead_beefu32; n];
            let mut out = dev.upload(&poison).unwrap();
            if inclusive {
                segmented::inclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            } else {
                segmented::exclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            }
            let want = cpu_segmented_scan(&x, &offsets, &poison, 0, inclusive, u32::wrapping_add);
            let got = out.download().unwrap();
            let bad = got.iter().zip(&want).position(|(a, b)| a != b);
            assert!(
                bad.is_none(),
                "u32 inclusive {inclusive} {:?}: first difference at {bad:?} ({offsets:?})",
                dev.backend()
            );
            let poison = vec![-7i64; n];
            let mut out = dev.upload(&poison).unwrap();
            if inclusive {
                segmented::inclusive::<Sum<i64>>(&dev, &e, &segs, &mut out).unwrap();
            } else {
                segmented::exclusive::<Sum<i64>>(&dev, &e, &segs, &mut out).unwrap();
            }
            let want = cpu_segmented_scan(&y, &offsets, &poison, 0, inclusive, i64::wrapping_add);
            assert!(
                out.download().unwrap() == want,
                "i64 inclusive {inclusive} {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn segmented_float_sums_are_close_and_depend_on_the_length_alone() {
    let mut rng = Rng::new(65);
    let mut offsets = random_scan_offsets(&mut rng, 0, 10);
    // The same 5000 elements twice, at different places: the same bits.
    let at = *offsets.last().unwrap();
    offsets.push(at + 5000);
    offsets.push(at + 5000 + 3);
    offsets.push(at + 10_003);
    let n = *offsets.last().unwrap();
    let mut x: Vec<f32> = (0..n).map(|_| rng.range_f32(-1.0, 1.0)).collect();
    x.copy_within(at..at + 5000, at + 5003);
    for dev in devices("segmented_float_sums_are_close_and_depend_on_the_length_alone") {
        let segs = Segments::new(&dev, &offsets).unwrap();
        let d = dev.upload(&x).unwrap();
        for inclusive in [true, false] {
            let mut out = dev.upload(&vec![f32::NAN; n]).unwrap();
            if inclusive {
                segmented::inclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            } else {
                segmented::exclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            }
            let got = out.download().unwrap();
            let wide: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            let exact =
                cpu_segmented_scan(&wide, &offsets, &vec![0.0; n], 0.0, inclusive, |a, b| a + b);
            for w in offsets.windows(2) {
                let len = (w[1] - w[0]) as f64;
                let bound = len * f64::from(f32::EPSILON) * (len.max(1.0).log2() + 4.0);
                for i in w[0]..w[1] {
                    assert!(
                        (got[i] as f64 - exact[i]).abs() <= bound,
                        "inclusive {inclusive} at {i}: {} against {} {:?}",
                        got[i],
                        exact[i],
                        dev.backend()
                    );
                }
            }
            let bits =
                |r: std::ops::Range<usize>| got[r].iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(at..at + 5000), bits(at + 5003..at + 10_003));
        }
    }
}

#[test]
fn segmented_running_min_and_max_are_the_cpus() {
    let mut rng = Rng::new(66);
    let offsets = random_scan_offsets(&mut rng, 0, 12);
    let n = *offsets.last().unwrap();
    let x: Vec<i16> = (0..n).map(|_| rng.next_u64() as i16).collect();
    // NaNs here and there, and a segment's first element among them.
    let mut f: Vec<f32> = (0..n).map(|_| rng.range_f32(-100.0, 100.0)).collect();
    for i in (0..n).step_by(97) {
        f[i] = f32::NAN;
    }
    if let Some(w) = offsets.windows(2).find(|w| w[1] > w[0] + 1) {
        f[w[0]] = f32::NAN;
    }
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits());
    for dev in devices("segmented_running_min_and_max_are_the_cpus") {
        // Empty segments are no trouble to a scan: they have no output.
        let segs = Segments::new(&dev, &offsets).unwrap();
        let d = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![99i16; n]).unwrap();
        segmented::inclusive::<Min<i16>>(&dev, &d, &segs, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap(),
            cpu_segmented_scan(&x, &offsets, &vec![99; n], 0, true, i16::min)
        );
        segmented::inclusive::<Max<i16>>(&dev, &d, &segs, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap(),
            cpu_segmented_scan(&x, &offsets, &vec![99; n], 0, true, i16::max)
        );
        let d = dev.upload(&f).unwrap();
        let mut out = dev.upload(&vec![7.0f32; n]).unwrap();
        segmented::inclusive::<Max<f32>>(&dev, &d, &segs, &mut out).unwrap();
        let want = cpu_segmented_scan(&f, &offsets, &vec![7.0; n], 0.0, true, f32::max);
        assert!(
            same(&out.download().unwrap(), &want),
            "max {:?}",
            dev.backend()
        );
        segmented::inclusive::<Min<f32>>(&dev, &d, &segs, &mut out).unwrap();
        let want = cpu_segmented_scan(&f, &offsets, &want, 0.0, true, f32::min);
        assert!(
            same(&out.download().unwrap(), &want),
            "min {:?}",
            dev.backend()
        );
    }
}

#[test]
fn edge_segments_scan() {
    for dev in devices("edge_segments_scan") {
        let x: Vec<u64> = (1..=5000).collect();
        let d = dev.upload(&x).unwrap();
        let running = |r: std::ops::Range<usize>, out: &mut Vec<u64>| {
            let mut acc = 0;
            for i in r {
                acc += x[i];
                out[i] = acc;
            }
        };
        // One segment of everything, one of one element, one of a whole tile, and all
        // equal elements.
        for (lo, hi) in [(0, 5000), (17, 18), (100, 4196), (4999, 5000)] {
            let segs = Segments::new(&dev, &[lo, hi]).unwrap();
            let mut out = dev.upload(&vec![3u64; 5000]).unwrap();
            segmented::inclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            let mut want = vec![3u64; 5000];
            running(lo..hi, &mut want);
            assert_eq!(out.download().unwrap(), want, "{lo}..{hi}");
        }
        let ones = dev.upload(&[1i32; 5000]).unwrap();
        let segs = Segments::new(&dev, &[0, 4097, 5000]).unwrap();
        let mut out = dev.zeros::<i32>(5000).unwrap();
        segmented::exclusive_sum(&dev, &ones, &segs, &mut out).unwrap();
        let want: Vec<i32> = (0..4097).chain(0..903).collect();
        assert_eq!(out.download().unwrap(), want);
        // No segment, and only empty ones: nothing written (and nothing launched).
        for offsets in [&[40usize][..], &[0, 0, 0], &[9, 9]] {
            let segs = Segments::new(&dev, offsets).unwrap();
            let mut out = dev.upload(&vec![3u64; 5000]).unwrap();
            segmented::inclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            segmented::exclusive_sum(&dev, &d, &segs, &mut out).unwrap();
            assert_eq!(out.download().unwrap(), vec![3u64; 5000], "{offsets:?}");
        }
        // An empty input with an empty segment, and a view of a larger buffer.
        let none = dev.zeros::<u64>(0).unwrap();
        let mut empty = dev.zeros::<u64>(0).unwrap();
        let segs = Segments::new(&dev, &[0, 0]).unwrap();
        segmented::inclusive_sum(&dev, &none, &segs, &mut empty).unwrap();
        let segs = Segments::new(&dev, &[0, 2, 3]).unwrap();
        let mut out = dev.upload(&[8u64; 6]).unwrap();
        let s = dev.create_stream().unwrap();
        segmented::inclusive_sum(&s, &d.slice(10..13), &segs, &mut out.slice_mut(2..5)).unwrap();
        s.synchronize().unwrap();
        assert_eq!(out.download().unwrap(), vec![8, 8, 11, 23, 13, 8]);
    }
}

#[test]
fn a_users_struct_operator_scans_each_segment() {
    let mut rng = Rng::new(67);
    let offsets = random_scan_offsets(&mut rng, 0, 8);
    let n = *offsets.last().unwrap();
    let x: Vec<Stats> = (0..n)
        .map(|_| {
            let v = rng.next_u64() as i32;
            Stats {
                count: 1,
                total: v as i64,
                top: v,
            }
        })
        .collect();
    let identity = Stats {
        count: 0,
        total: 0,
        top: i32::MIN,
    };
    let poison = Stats {
        count: 7,
        total: 7,
        top: 7,
    };
    for dev in devices("a_users_struct_operator_scans_each_segment") {
        let segs = Segments::new(&dev, &offsets).unwrap();
        let d = dev.upload(&x).unwrap();
        for inclusive in [true, false] {
            let mut out = dev.upload(&vec![poison; n]).unwrap();
            if inclusive {
                segmented::inclusive::<Merge>(&dev, &d, &segs, &mut out).unwrap();
            } else {
                segmented::exclusive::<Merge>(&dev, &d, &segs, &mut out).unwrap();
            }
            let want =
                cpu_segmented_scan(&x, &offsets, &vec![poison; n], identity, inclusive, merge);
            assert!(
                out.download().unwrap() == want,
                "inclusive {inclusive} {:?}",
                dev.backend()
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
fn a_non_commutative_operator_scans_each_segment_in_order() {
    let mut rng = Rng::new(68);
    let offsets = random_scan_offsets(&mut rng, 3, 6);
    let n = *offsets.last().unwrap() + 2;
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
    let one = Mat2 {
        a: 1,
        b: 0,
        c: 0,
        d: 1,
    };
    let poison = Mat2 {
        a: 9,
        b: 9,
        c: 9,
        d: 9,
    };
    for dev in devices("a_non_commutative_operator_scans_each_segment_in_order") {
        let segs = Segments::new(&dev, &offsets).unwrap();
        let d = dev.upload(&x).unwrap();
        for inclusive in [true, false] {
            let mut out = dev.upload(&vec![poison; n]).unwrap();
            if inclusive {
                segmented::inclusive::<MatMul>(&dev, &d, &segs, &mut out).unwrap();
            } else {
                segmented::exclusive::<MatMul>(&dev, &d, &segs, &mut out).unwrap();
            }
            let want = cpu_segmented_scan(&x, &offsets, &vec![poison; n], one, inclusive, mat_mul);
            assert!(
                out.download().unwrap() == want,
                "inclusive {inclusive} {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn bad_scans_are_refused_before_anything_runs() {
    for dev in devices("bad_scans_are_refused_before_anything_runs") {
        let x = dev.upload(&[1i32; 10]).unwrap();
        let mut out = dev.upload(&[9i32; 10]).unwrap();
        let segs = Segments::new(&dev, &[0, 4, 4, 12]).unwrap();
        let err = segmented::inclusive_sum(&dev, &x, &segs, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch in segmented::inclusive: the input (at least the segments' end): \
             expected 12 elements, got 10"
        );
        let segs = Segments::new(&dev, &[0, 4, 4, 10]).unwrap();
        let mut short = dev.upload(&[9i32; 9]).unwrap();
        let err = segmented::exclusive_sum(&dev, &x, &segs, &mut short).unwrap_err();
        assert!(
            matches!(
                err,
                Error::LengthMismatch {
                    expected: 10,
                    found: 9,
                    ..
                }
            ),
            "{err}"
        );
        // The output is the input's length even where the segments end earlier.
        let early = Segments::new(&dev, &[0, 3]).unwrap();
        let err = segmented::inclusive_sum(&dev, &x, &early, &mut short).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        let err = segmented::exclusive::<Max<i32>>(&dev, &x, &segs, &mut out).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        assert!(err.to_string().contains("has no identity"), "{err}");
        assert_eq!(out.download().unwrap(), vec![9; 10]);
        assert_eq!(short.download().unwrap(), vec![9; 9]);
    }
}

#[test]
fn the_segmented_scan_kernels_compile_with_nvrtc() {
    use segmented::kernels as k;
    let mut all: Vec<(&str, &'static warpspeed::__private::KernelDef)> = vec![
        (
            "segment_scan_sums_int",
            k::segment_scan_sums_int::kernel::<u32>(),
        ),
        (
            "segment_scan_sums_float",
            k::segment_scan_sums_float::kernel::<warpspeed::f16>(),
        ),
        (
            "segment_scan_mins_float",
            k::segment_scan_mins_float::kernel::<f64>(),
        ),
        (
            "segment_scan_maxs_int",
            k::segment_scan_maxs_int::kernel::<i8>(),
        ),
        (
            "segment_scan_sums_float unchecked",
            k::unchecked::segment_scan_sums_float::kernel::<f32>(),
        ),
    ];
    for kd in MatMul::kernels() {
        all.push((kd.rust_name, kd));
    }
    nvrtc_compiles(&all);
}

/// Every index of the segmented scan's kernels is proven in bounds: the checked form keeps
/// no check.
#[test]
fn the_segmented_scan_kernels_keep_no_check() {
    use segmented::kernels as k;
    for c in [
        k::segment_scan_sums_float::cuda_source::<f32>(),
        k::segment_scan_sums_int::cuda_source::<u64>(),
        k::segment_scan_mins_int::cuda_source::<u8>(),
        k::segment_scan_maxs_float::cuda_source::<f64>(),
        // The reduces too: `skip` proves the offsets' reads.
        k::segment_sums_float::cuda_source::<f32>(),
        k::segment_mins_int::cuda_source::<i16>(),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{check}: {body}");
        }
    }
}
