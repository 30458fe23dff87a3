//! `warpspeed::algorithms::segmented` (issue 22): segmented sums, minima and maxima and a
//! user's `#[gpu_struct]` operator against the CPU's on random segments (empty, one
//! element, around 1024, long), on both backends; outputs poisoned first; bad offsets,
//! lengths and empty segments without an identity refused before anything runs.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::operator;
use warpspeed::algorithms::operator::{Max, Min, Operator};
use warpspeed::algorithms::segmented::{self, Segments};
use warpspeed::prelude::*;

/// Random segment lengths: empties, ones, around the block's 1024-element step, long.
fn random_offsets(rng: &mut Rng, count: usize) -> Vec<usize> {
    let mut offsets = vec![0usize];
    for _ in 0..count {
        let len = match rng.next_u64() % 6 {
            0 => 0,
            1 => 1,
            2 => 1020 + (rng.next_u64() % 9) as usize,
            3 => (rng.next_u64() % 20_000) as usize,
            _ => (rng.next_u64() % 300) as usize,
        };
        offsets.push(offsets.last().unwrap() + len);
    }
    offsets
}

#[test]
fn segmented_sums_are_the_cpus() {
    let mut rng = Rng::new(61);
    let offsets = random_offsets(&mut rng, 300);
    let n = *offsets.last().unwrap() + 17; // elements past the last segment are ignored
    let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let want: Vec<u32> = offsets
        .windows(2)
        .map(|w| x[w[0]..w[1]].iter().fold(0u32, |s, &v| s.wrapping_add(v)))
        .collect();
    let f: Vec<f64> = (0..n).map(|_| rng.range_f64(-1.0, 1.0)).collect();
    for dev in devices("segmented_sums_are_the_cpus") {
        let segs = Segments::new(&dev, &offsets).unwrap();
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

#[test]
fn segmented_min_and_max_are_the_cpus() {
    let mut rng = Rng::new(62);
    let mut offsets = random_offsets(&mut rng, 200);
    offsets.dedup(); // no empty segment: min and max have no identity
    let n = *offsets.last().unwrap();
    let x: Vec<i16> = (0..n).map(|_| rng.next_u64() as i16).collect();
    let f: Vec<f32> = (0..n).map(|_| rng.range_f32(-100.0, 100.0)).collect();
    for dev in devices("segmented_min_and_max_are_the_cpus") {
        let segs = Segments::new(&dev, &offsets).unwrap();
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
    let offsets = random_offsets(&mut rng, 60);
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
