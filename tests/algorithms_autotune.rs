//! `warpspeed::autotune` and the library's tuned parameters (issue 22): every candidate of
//! the reduce's grid, the single-pass scan's tile and the histogram's grid gives the
//! CPU's result exactly (forced one by one, on the simulator with small inputs and on the
//! GPU), float reductions ignore the tuner (their chunking changes their rounding), inputs
//! are left as they were, bad input is still refused before anything runs; a user's
//! const-generic kernel is tuned on the GPU once per bucket (each valid candidate run, the
//! invalid never, nothing the second time), and never on the simulator; the call that
//! tunes leaves the winner's output in place, a forced or a stored choice runs nothing.

mod common;
use std::cell::RefCell;
use std::collections::HashMap;

use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::operator::{Max, Sum};
use warpspeed::algorithms::{histogram, reduce, scan};
use warpspeed::autotune::{self, How, Key, Settings, Tuner};
use warpspeed::prelude::*;
use warpspeed::{AsDeviceView, Backend};

/// `f` with this thread's tunings of `algorithm` forced to `label`.
fn forced<R>(algorithm: &str, label: &str, f: impl FnOnce() -> R) -> R {
    autotune::force(algorithm, Some(label));
    let r = f();
    autotune::force(algorithm, None);
    r
}

/// The labels of the reduce's candidates, the default first.
fn reduce_labels() -> Vec<&'static str> {
    reduce::TUNED_BLOCKS.iter().map(|(l, _)| *l).collect()
}

/// The reduce's candidates that launch another grid than the default's for `n` elements
/// (the others run the default's launches: the simulator's time is better spent).
fn reduce_labels_that_differ(n: usize) -> Vec<&'static str> {
    let default = reduce::launches(n).partials;
    let mut seen = vec![default];
    let mut labels = Vec::new();
    for (label, blocks) in reduce::TUNED_BLOCKS {
        let p = reduce::launches_with(n, blocks).partials;
        if !seen.contains(&p) {
            seen.push(p);
            labels.push(label);
        }
    }
    labels
}

/// Every integer reduction of `x` untuned and under each of `labels` equals the CPU's,
/// through the `_into_with_scratch` entry (result and scratch poisoned first) and the
/// downloading ones; `x` is unchanged.
fn integer_reductions<T>(dev: &Device, x: &[T], zero: T, labels: &[&str])
where
    T: reduce::Reducible + Ord + std::fmt::Debug + num_like::WrappingAdd,
{
    let d = dev.upload(x).unwrap();
    let n = x.len();
    let sum = x.iter().fold(zero, |s, &v| s.wrapping_add(v));
    let (min, max) = (x.iter().min().copied(), x.iter().max().copied());
    let arg_min = x
        .iter()
        .enumerate()
        .min_by_key(|(_, v)| **v)
        .map(|(i, v)| (i, *v));
    // The first of the greatest: max_by_key keeps the last.
    let arg_max = x
        .iter()
        .enumerate()
        .rev()
        .max_by_key(|(_, v)| **v)
        .map(|(i, v)| (i, *v));
    for label in [None].into_iter().chain(labels.iter().copied().map(Some)) {
        let run = || {
            let mut out = dev.upload(&[max.unwrap_or(zero); 3]).unwrap();
            let mut partial = dev.upload(&[max.unwrap_or(zero); 1024]).unwrap();
            reduce::sum_into_with_scratch(&dev, &d, &mut out.slice_mut(1..2), &mut partial)
                .unwrap();
            let got = out.download().unwrap()[1];
            assert_eq!(got, sum, "sum_into_with_scratch, n {n}, {label:?}");
            assert_eq!(reduce::sum(dev, &d).unwrap(), sum, "sum n {n} {label:?}");
            if n > 0 {
                let (lo, hi) = (min.unwrap(), max.unwrap());
                assert_eq!(reduce::min(dev, &d).unwrap(), lo, "min n {n} {label:?}");
                assert_eq!(reduce::max(dev, &d).unwrap(), hi, "max n {n} {label:?}");
                assert_eq!(
                    reduce::min_max(dev, &d).unwrap(),
                    (lo, hi),
                    "n {n} {label:?}"
                );
                assert_eq!(
                    reduce::arg_min(dev, &d).unwrap(),
                    arg_min.unwrap(),
                    "{label:?}"
                );
                assert_eq!(
                    reduce::arg_max(dev, &d).unwrap(),
                    arg_max.unwrap(),
                    "{label:?}"
                );
            }
        };
        match label {
            Some(label) => forced("reduce", label, run),
            None => run(),
        }
    }
    assert_eq!(d.download().unwrap(), x, "the input is unchanged");
}

/// The wrapping sum the CPU references need, for the two types tested.
mod num_like {
    pub trait WrappingAdd: Copy {
        fn wrapping_add(self, other: Self) -> Self;
    }
    impl WrappingAdd for u32 {
        fn wrapping_add(self, other: Self) -> Self {
            u32::wrapping_add(self, other)
        }
    }
    impl WrappingAdd for i64 {
        fn wrapping_add(self, other: Self) -> Self {
            i64::wrapping_add(self, other)
        }
    }
}

#[test]
fn every_reduce_candidate_gives_the_cpus_integers() {
    let mut rng = Rng::new(2201);
    // 270_001 elements, not a multiple of any chunk: 264 chunks by default (and with at
    // most 512), 132 with at most 256, 88 with at most 128.
    let n = 270_001;
    let labels = reduce_labels_that_differ(n);
    assert_eq!(labels, ["blocks256", "blocks128"]);
    let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    // Few distinct values: many ties for the arg reductions.
    let xi: Vec<i64> = (0..140_001)
        .map(|_| (rng.next_u64() % 9) as i64 - 4)
        .collect();
    let all = reduce_labels();
    for dev in devices("every_reduce_candidate_gives_the_cpus_integers") {
        integer_reductions(&dev, &x, 0u32, &labels);
        integer_reductions(&dev, &xi, 0i64, &reduce_labels_that_differ(xi.len()));
        // Edge cases: empty (the sum only), one, all equal (ties: the first index), sorted
        // and reversed.
        integer_reductions(&dev, &[], 0u32, &all);
        integer_reductions(&dev, &[42u32], 0, &all);
        integer_reductions(&dev, &vec![7i64; 5000], 0, &all);
        let sorted: Vec<u32> = (0..5000).collect();
        integer_reductions(&dev, &sorted, 0, &all);
        let reversed: Vec<u32> = (0..5000).rev().collect();
        integer_reductions(&dev, &reversed, 0, &all);
    }
}

#[test]
fn float_reductions_are_never_tuned() {
    let mut rng = Rng::new(2202);
    let mut x: Vec<f32> = (0..140_001)
        .map(|_| (rng.next_u64() % 2001) as f32 / 1000.0 - 1.0)
        .collect();
    x[77] = f32::NAN;
    for dev in devices("float_reductions_are_never_tuned") {
        let d = dev.upload(&x).unwrap();
        let sum = reduce::sum(&dev, &d).unwrap();
        let lo = reduce::min(&dev, &d).unwrap();
        for label in reduce_labels_that_differ(x.len()) {
            // Forcing a candidate changes nothing: a float sum's chunks stay the default's.
            let (s, m) = forced("reduce", label, || {
                (
                    reduce::sum(&dev, &d).unwrap(),
                    reduce::min(&dev, &d).unwrap(),
                )
            });
            assert_eq!(s.to_bits(), sum.to_bits(), "{label}");
            assert_eq!(m.to_bits(), lo.to_bits(), "{label}");
        }
    }
}

#[test]
fn every_scan_candidate_gives_the_cpus_integers() {
    let mut rng = Rng::new(2203);
    // 530_001 elements: i64 and u16 take the fixed-order look-back, 16 a thread: 130 tiles
    // of 4096 with 256 threads (two levels), 259 of 2048 with 128.
    let n: usize = 530_001;
    assert_eq!(
        scan::TUNED_BLOCKS.map(|(_, block)| n.div_ceil(16 * block as usize)),
        [130, 259]
    );
    let x: Vec<i64> = (0..n)
        .map(|_| (rng.next_u64() % 2001) as i64 - 1000)
        .collect();
    let mut want = Vec::with_capacity(n);
    let mut s = 0i64;
    for &v in &x {
        s += v;
        want.push(s);
    }
    let y: Vec<u16> = (0..n).map(|_| rng.next_u64() as u16 >> 3).collect();
    let mut want_max = Vec::with_capacity(n);
    let mut m = 0u16;
    for &v in &y {
        m = m.max(v);
        want_max.push(m);
    }
    for dev in devices("every_scan_candidate_gives_the_cpus_integers") {
        let dx = dev.upload(&x).unwrap();
        let dy = dev.upload(&y).unwrap();
        for label in [None, Some("block128")] {
            let run = || {
                let mut out = dev.upload(&vec![-1i64; n]).unwrap();
                scan::inclusive_sum(&dev, &dx, &mut out).unwrap();
                assert!(out.download().unwrap() == want, "sums {label:?}");
                let mut out = dev.upload(&vec![u16::MAX; n]).unwrap();
                let mut scratch = scan::Scratch::new(&dev, n).unwrap();
                scan::inclusive_with_scratch::<Max<u16>>(&dev, &dy, &mut out, &mut scratch)
                    .unwrap();
                assert!(out.download().unwrap() == want_max, "maxima {label:?}");
            };
            match label {
                Some(label) => forced("scan", label, run),
                None => run(),
            }
        }
        assert!(dx.download().unwrap() == x, "the input is unchanged");
    }
}

#[test]
fn every_histogram_candidate_gives_the_cpus_counts() {
    let mut rng = Rng::new(2204);
    // Blocks: one a 8192 samples, so 13 here, capped at 1, 2 or 4 a multiprocessor.
    let n = 100_003;
    let x: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
    let mut want = vec![0u32; 256];
    for &v in &x {
        want[v as usize] += 1;
    }
    let mut f: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() % 1000) as f32 / 100.0)
        .collect();
    f[5] = f32::NAN;
    let levels = [0.0f32, 1.0, 2.5, 9.0, 9.99];
    let mut want_f = vec![0u32; 4];
    for &v in &f {
        if let Some(i) = levels.windows(2).position(|w| w[0] <= v && v < w[1]) {
            want_f[i] += 1;
        }
    }
    for dev in devices("every_histogram_candidate_gives_the_cpus_counts") {
        let dx = dev.upload(&x).unwrap();
        let df = dev.upload(&f).unwrap();
        let labels = histogram::TUNED_BLOCKS_PER_SM.iter().map(|(l, _)| *l);
        for label in [None].into_iter().chain(labels.map(Some)) {
            let even = || {
                let mut counts = dev.upload(&[u32::MAX; 256]).unwrap();
                histogram::even(&dev, &dx, &mut counts, 0, 256).unwrap();
                counts.download().unwrap()
            };
            let range = || {
                let mut counts = dev.upload(&[u32::MAX; 4]).unwrap();
                histogram::range(&dev, &df, &levels, &mut counts).unwrap();
                counts.download().unwrap()
            };
            let (got, got_f) = match label {
                Some(label) => (
                    forced("histogram::even", label, even),
                    forced("histogram::range", label, range),
                ),
                None => (even(), range()),
            };
            assert_eq!(got, want, "{label:?}");
            assert_eq!(got_f, want_f, "{label:?}");
        }
        assert_eq!(dx.download().unwrap(), x, "the input is unchanged");
    }
}

#[test]
fn bad_input_is_refused_when_forced_too() {
    for dev in devices("bad_input_is_refused_when_forced_too") {
        let x = dev.upload(&vec![1u32; 300_000]).unwrap();
        let mut out = dev.upload(&[5u32]).unwrap();
        let mut short = dev.upload(&[9u32; 10]).unwrap();
        let r = forced("reduce", "blocks128", || {
            reduce::sum_into_with_scratch(&dev, &x, &mut out, &mut short)
        });
        assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
        let mut counts = dev.upload(&[3u32; 4]).unwrap();
        let r = forced("histogram::even", "sm4", || {
            histogram::even(&dev, &x, &mut counts, 10, 10)
        });
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
        let mut y = dev.upload(&[0u64; 3]).unwrap();
        let xs = dev.upload(&[1u64, 2]).unwrap();
        let r = forced("scan", "block128", || {
            scan::inclusive::<Sum<u64>>(&dev, &xs, &mut y)
        });
        assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
        // Nothing ran.
        assert_eq!(out.download().unwrap(), vec![5]);
        assert_eq!(short.download().unwrap(), vec![9; 10]);
        assert_eq!(counts.download().unwrap(), vec![3; 4]);
        assert_eq!(y.download().unwrap(), vec![0; 3]);
    }
}

/// `y = a x`, `IPT` elements a thread: the user's kernel the tuner chooses an instance of.
#[gpu_kernel]
fn scale<const IPT: usize>(y: &mut [f32], x: &[f32], a: f32) {
    let base = grid_1d() * IPT;
    for k in 0..IPT {
        let i = base + k;
        if i < y.len() && i < x.len() {
            y[i] = a * x[i];
        }
    }
}

/// A launch shape of `scale`.
#[derive(Debug)]
struct Shape {
    ipt: usize,
    block: u32,
}

const SHAPES: [(&str, Shape); 4] = [
    ("ipt1-b256", Shape { ipt: 1, block: 256 }),
    ("ipt2-b256", Shape { ipt: 2, block: 256 }),
    ("ipt4-b128", Shape { ipt: 4, block: 128 }),
    // Invalid for every input (valid() refuses blocks over 1024): never run.
    (
        "ipt1-b2048",
        Shape {
            ipt: 1,
            block: 2048,
        },
    ),
];

/// An algorithm name of this run alone and settings that keep its choices in memory only:
/// earlier runs' choices do not count.
fn fresh(prefix: &str) -> (String, Settings) {
    let name = format!(
        "{prefix}::{}::{:?}",
        std::process::id(),
        std::time::SystemTime::now()
    );
    let settings = Settings {
        enabled: true,
        file: None,
    };
    (name, settings)
}

#[test]
fn a_users_kernel_is_tuned_once_a_bucket_on_the_gpu_and_never_on_the_simulator() {
    let n = 1 << 20;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let (name, settings) = fresh("tests::scale");
    for dev in devices("a_users_kernel_is_tuned_once_a_bucket_on_the_gpu") {
        let dx = dev.upload(&x).unwrap();
        let mut y = dev.zeros::<f32>(n).unwrap();
        let runs: RefCell<HashMap<&str, usize>> = RefCell::new(HashMap::new());
        let mut run = |s: &Shape| {
            let label = SHAPES
                .iter()
                .find(|(_, c)| c.ipt == s.ipt && c.block == s.block);
            *runs.borrow_mut().entry(label.unwrap().0).or_default() += 1;
            let cfg = LaunchConfig::new(n.div_ceil(s.ipt * s.block as usize) as u32, s.block);
            match s.ipt {
                1 => scale::launch::<1>(&dev, cfg, &mut y, &dx, 2.0),
                2 => scale::launch::<2>(&dev, cfg, &mut y, &dx, 2.0),
                _ => scale::launch::<4>(&dev, cfg, &mut y, &dx, 2.0),
            }
        };
        let choose = |size: usize, run: &mut dyn FnMut(&Shape) -> Result<(), Error>| {
            let key = Key::new(&dev, &name, "f32", &[size]);
            Tuner::new(key, &SHAPES, "ipt1-b256")
                .valid(|s| s.block <= 1024)
                .repetitions(3)
                .settings(settings.clone())
                .choose(&dev, run)
                .unwrap()
        };
        let first = choose(n, &mut run);
        let seen = runs.borrow().clone();
        if dev.backend() == Backend::Simulator {
            assert_eq!((first.label, first.how), ("ipt1-b256", How::Default));
            assert!(seen.is_empty(), "the simulator runs no candidate: {seen:?}");
        } else {
            assert_eq!(first.how, How::Tuned);
            // Each valid candidate: one untimed run and three timed, and the winner once
            // more, last; the invalid: none.
            let mut want: HashMap<&str, usize> =
                [("ipt1-b256", 4), ("ipt2-b256", 4), ("ipt4-b128", 4)].into();
            *want.get_mut(first.label).unwrap() += 1;
            assert_eq!(seen, want);
            // The same bucket (2^20 .. 2^21 - 1): the stored choice, nothing run.
            let again = choose(n + 1000, &mut run);
            assert_eq!((again.label, again.how), (first.label, How::Cached));
            assert_eq!(*runs.borrow(), want, "nothing ran the second time");
            let ranking = autotune::ranking(&Key::new(&dev, &name, "f32", &[n]), &settings);
            assert_eq!(ranking.map(|r| r.len()), Some(3));
        }
        run(first.config).unwrap();
        let got = y.download().unwrap();
        assert!(got.iter().zip(&x).all(|(g, v)| *g == 2.0 * v));
        assert_eq!(dx.download().unwrap(), x, "the input is unchanged");
    }
}

/// What `choose` leaves in the outputs: the call that tunes runs every candidate, then the
/// winner last, so the outputs hold the winner's results before the caller launches it; a
/// forced or a stored choice runs nothing. On the GPU, and on the simulator through the
/// hidden `tune_on_simulator` (its wall clock picks the winner there).
#[test]
fn the_chosen_candidates_output_is_left_in_place() {
    let n = 3000;
    let x: Vec<f32> = (0..n).map(|i| (i % 100) as f32).collect();
    let (name, settings) = fresh("tests::scale_left");
    // Each candidate scales by its own factor, so `y` tells whose output it holds.
    let factor = |s: &Shape| (s.ipt * 1000 + s.block as usize) as f32;
    for dev in devices("the_chosen_candidates_output_is_left_in_place") {
        let dx = dev.upload(&x).unwrap();
        let mut y = dev.upload(&vec![f32::NAN; n]).unwrap();
        let launch = |y: &mut DeviceBuffer<f32>, s: &Shape| {
            let cfg = LaunchConfig::new(n.div_ceil(s.ipt * s.block as usize) as u32, s.block);
            let a = factor(s);
            match s.ipt {
                1 => scale::launch::<1>(&dev, cfg, y, &dx, a),
                2 => scale::launch::<2>(&dev, cfg, y, &dx, a),
                _ => scale::launch::<4>(&dev, cfg, y, &dx, a),
            }
        };
        let tuner = |size: usize| {
            Tuner::new(Key::new(&dev, &name, "f32", &[size]), &SHAPES, "ipt1-b256")
                .valid(|s| s.block <= 1024)
                .repetitions(1)
                .settings(settings.clone())
                .tune_on_simulator()
        };
        let holds = |y: &DeviceBuffer<f32>, s: &Shape, what: &str| {
            let got = y.download().unwrap();
            let a = factor(s);
            assert!(
                got.iter().zip(&x).all(|(g, v)| *g == a * v),
                "{what}: not {s:?}'s output"
            );
        };
        let untouched = |y: &DeviceBuffer<f32>, what: &str| {
            let got = y.download().unwrap();
            assert!(got.iter().all(|g| g.is_nan()), "{what}: something ran");
        };

        // Forced: nothing runs until the caller launches the choice.
        let by_force = forced(&name, "ipt4-b128", || {
            tuner(n).choose(&dev, |s| launch(&mut y, s)).unwrap()
        });
        assert_eq!((by_force.label, by_force.how), ("ipt4-b128", How::Forced));
        untouched(&y, "forced");
        launch(&mut y, by_force.config).unwrap();
        holds(&y, by_force.config, "forced, launched");

        // Unforced: tuned; the winner's output is in place when `choose` returns.
        y.fill(f32::NAN).unwrap();
        let tuned = tuner(n).choose(&dev, |s| launch(&mut y, s)).unwrap();
        assert_eq!(tuned.how, How::Tuned, "{:?}", dev.backend());
        holds(&y, tuned.config, "tuned");
        launch(&mut y, tuned.config).unwrap();
        holds(&y, tuned.config, "tuned, launched again");

        // The same bucket: the stored choice, nothing run.
        y.fill(f32::NAN).unwrap();
        let again = tuner(n + 5).choose(&dev, |s| launch(&mut y, s)).unwrap();
        assert_eq!((again.label, again.how), (tuned.label, How::Cached));
        untouched(&y, "cached");
        assert_eq!(dx.download().unwrap(), x, "the input is unchanged");
    }
}

#[test]
fn tuned_library_calls_equal_the_untuned_on_the_gpu() {
    let mut rng = Rng::new(2205);
    let n = (1 << 22) + 12_345;
    let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let sum = x.iter().fold(0u32, |s, &v| s.wrapping_add(v));
    let xl: Vec<u64> = x.iter().map(|&v| u64::from(v >> 8)).collect();
    let mut want_scan = Vec::with_capacity(n);
    let mut s = 0u64;
    for &v in &xl {
        s += v;
        want_scan.push(s);
    }
    let mut want_hist = vec![0u32; 1000];
    for &v in &x {
        want_hist[(v % 1000) as usize] += 1;
    }
    let xm: Vec<u32> = x.iter().map(|v| v % 1000).collect();
    for dev in devices("tuned_library_calls_equal_the_untuned_on_the_gpu") {
        if dev.backend() == Backend::Simulator {
            continue; // 2^22 elements: the candidates are checked there with fewer
        }
        let d = dev.upload(&x).unwrap();
        let dl = dev.upload(&xl).unwrap();
        let dm = dev.upload(&xm).unwrap();
        // Tuned (or the file's choice), then each candidate forced: all the CPU's.
        assert_eq!(reduce::sum(&dev, &d).unwrap(), sum);
        assert_eq!(reduce::max(&dev, &d).unwrap(), *x.iter().max().unwrap());
        for label in reduce_labels() {
            assert_eq!(
                forced("reduce", label, || reduce::sum(&dev, &d)).unwrap(),
                sum
            );
        }
        let mut out = dev.zeros::<u64>(n).unwrap();
        scan::inclusive_sum(&dev, &dl, &mut out).unwrap();
        assert!(out.download().unwrap() == want_scan);
        let mut counts = dev.zeros::<u32>(1000).unwrap();
        histogram::even(&dev, &dm, &mut counts, 0, 1000).unwrap();
        assert_eq!(counts.download().unwrap(), want_hist);
        // The choices were stored, unless tuning is off here.
        if autotune::Settings::from_env().enabled {
            let key = Key::new(&dev, "reduce", "Sum<u32>", &[n]);
            let ranking = autotune::ranking(&key, &Settings::from_env()).unwrap();
            assert_eq!(ranking.len(), 4, "{ranking:?}");
            let key = Key::new(&dev, "scan", "Sum<u64>", &[n]);
            assert!(autotune::ranking(&key, &Settings::from_env()).is_some());
            let key = Key::new(&dev, "histogram::even", "u32", &[n, 1000]);
            assert!(autotune::ranking(&key, &Settings::from_env()).is_some());
        }
        assert_eq!(d.download().unwrap(), x, "inputs unchanged");
        assert!(dl.download().unwrap() == xl);
        assert_eq!(dm.download().unwrap(), xm);
    }
}

#[test]
fn nvrtc_compiles_the_tuned_users_kernel() {
    nvrtc_compiles(&[
        ("scale::<1>", scale::kernel::<1>()),
        ("scale::<4>", scale::kernel::<4>()),
    ]);
}

#[test]
fn views_are_tuned_as_buffers() {
    // A view of a buffer goes through the same path; forced candidates see its length.
    for dev in devices("views_are_tuned_as_buffers") {
        let x = dev.upload(&(0..200_000u32).collect::<Vec<_>>()).unwrap();
        let v = x.slice(1000..150_000);
        let want = (1000..150_000u32).fold(0u32, |s, v| s.wrapping_add(v));
        for label in reduce_labels() {
            let got = forced("reduce", label, || reduce::sum(&dev, &v)).unwrap();
            assert_eq!(got, want, "{label}");
        }
        assert_eq!(v.as_device_view().len(), 149_000);
    }
}
