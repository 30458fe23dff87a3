//! `warpspeed::algorithms::select` (issue 22): stream compaction against the CPU's on
//! random data at lengths around the tile (4096) and across many tiles (the look-back):
//! `flagged` with `bool` and `u8` flags over integers and floats, `select_if` and a stable
//! `partition` with predicates made in this crate (a `#[gpu_struct]` one too), `unique` and
//! `run_length_encode` on runs, sorted, reversed, all-equal data and NaNs; outputs poisoned
//! first and untouched past the count; views and a stream with reused scratch; bad input
//! refused before anything runs; the kernels compile with NVRTC and keep no bounds check.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::select::Predicate;
use warpspeed::algorithms::{predicate, select};
use warpspeed::prelude::*;

const LENGTHS: [usize; 9] = [0, 1, 2, 31, 4095, 4096, 4097, 20_000, 70_001];

/// The CPU's selection: `x[i]` where `keep(i)`.
fn cpu_select<T: Copy>(x: &[T], keep: impl Fn(usize) -> bool) -> Vec<T> {
    (0..x.len()).filter(|&i| keep(i)).map(|i| x[i]).collect()
}

/// Checks `got` is `want` then the poison, untouched.
fn assert_kept<T: Copy + PartialEq + std::fmt::Debug>(
    got: &[T],
    count: usize,
    want: &[T],
    poison: T,
    what: &str,
) {
    assert_eq!(count, want.len(), "{what}: the count");
    let bad = got[..count].iter().zip(want).position(|(a, b)| a != b);
    assert!(bad.is_none(), "{what}: first difference at {bad:?}");
    assert!(
        got[count..].iter().all(|&v| v == poison),
        "{what}: written past the count"
    );
}

#[test]
fn flagged_keeps_the_flagged_in_order() {
    let mut rng = Rng::new(61);
    // And 74 tiles: more than the look-back's window of 32 predecessors.
    for n in LENGTHS.into_iter().chain([300_001]) {
        let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        // Mostly kept, mostly dropped, and half.
        let density = [2u32, 50, 98][n % 3];
        let keep: Vec<bool> = (0..n).map(|_| rng.next_u32() % 100 < density).collect();
        let flags8: Vec<u8> = keep
            .iter()
            .map(|&k| {
                if k {
                    (rng.next_u32() % 255 + 1) as u8
                } else {
                    0
                }
            })
            .collect();
        let want = cpu_select(&x, |i| keep[i]);
        for dev in devices("flagged_keeps_the_flagged_in_order") {
            let d = dev.upload(&x).unwrap();
            let f = dev.upload(&keep).unwrap();
            let mut out = dev.upload(&vec![0xdead_beef; n]).unwrap();
            let count = select::flagged(&dev, &d, &f, &mut out).unwrap();
            let what = format!("n {n} bool {:?}", dev.backend());
            assert_kept(&out.download().unwrap(), count, &want, 0xdead_beef, &what);
            let f = dev.upload(&flags8).unwrap();
            let mut out = dev.upload(&vec![0xdead_beef; n]).unwrap();
            let count = select::flagged(&dev, &d, &f, &mut out).unwrap();
            let what = format!("n {n} u8 {:?}", dev.backend());
            assert_kept(&out.download().unwrap(), count, &want, 0xdead_beef, &what);
        }
    }
}

#[test]
fn flagged_moves_every_scalar_type() {
    let mut rng = Rng::new(62);
    let n = 5000;
    let keep: Vec<bool> = (0..n).map(|_| rng.next_u32().is_multiple_of(2)).collect();
    let f64s: Vec<f64> = (0..n).map(|_| rng.range_f64(-1e9, 1e9)).collect();
    let i8s: Vec<i8> = (0..n).map(|_| rng.next_u32() as i8).collect();
    let f16s: Vec<f16> = (0..n)
        .map(|_| f16::from_f32(rng.range_f32(-8.0, 8.0)))
        .collect();
    let bools: Vec<bool> = (0..n).map(|_| rng.next_u32().is_multiple_of(3)).collect();
    for dev in devices("flagged_moves_every_scalar_type") {
        let f = dev.upload(&keep).unwrap();
        let d = dev.upload(&f64s).unwrap();
        let mut out = dev.upload(&vec![f64::NAN; n]).unwrap();
        let c = select::flagged(&dev, &d, &f, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap()[..c],
            cpu_select(&f64s, |i| keep[i])[..]
        );
        let d = dev.upload(&i8s).unwrap();
        let mut out = dev.upload(&vec![0i8; n]).unwrap();
        let c = select::flagged(&dev, &d, &f, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap()[..c],
            cpu_select(&i8s, |i| keep[i])[..]
        );
        let d = dev.upload(&f16s).unwrap();
        let mut out = dev.upload(&vec![f16::from_f32(0.0); n]).unwrap();
        let c = select::flagged(&dev, &d, &f, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap()[..c],
            cpu_select(&f16s, |i| keep[i])[..]
        );
        let d = dev.upload(&bools).unwrap();
        let mut out = dev.upload(&vec![false; n]).unwrap();
        let c = select::flagged(&dev, &d, &f, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap()[..c],
            cpu_select(&bools, |i| keep[i])[..]
        );
    }
}

/// More than a half.
#[gpu_device]
fn above_half(x: f32) -> bool {
    x > 0.5
}

predicate! {
    /// The values above 0.5 (not NaN).
    pub struct AboveHalf { elem: f32, keep: above_half }
}

/// A point with a weight.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    x: f32,
    y: f32,
    id: u32,
}

mod preds {
    use super::Particle;
    use warpspeed::prelude::*;

    /// Inside the unit circle.
    #[gpu_device]
    pub fn inside(p: Particle) -> bool {
        p.x * p.x + p.y * p.y < 1.0
    }
}

predicate! {
    struct Inside { elem: Particle, keep: preds::inside }
}

#[test]
fn select_if_and_partition_with_a_users_predicate() {
    let mut rng = Rng::new(63);
    for n in LENGTHS {
        let mut x: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 1.0)).collect();
        if n > 10 {
            x[3] = f32::NAN;
            x[n - 1] = 0.5;
        }
        let want = cpu_select(&x, |i| above_half(x[i]));
        let rejected = cpu_select(&x, |i| !above_half(x[i]));
        for dev in devices("select_if_and_partition_with_a_users_predicate") {
            let d = dev.upload(&x).unwrap();
            let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
            let c = select::select_if::<AboveHalf>(&dev, &d, &mut out).unwrap();
            let what = format!("select_if n {n} {:?}", dev.backend());
            assert_kept(&out.download().unwrap(), c, &want, -7.0, &what);

            let mut out = dev.upload(&vec![-7.0f32; n + 3]).unwrap();
            let c = select::partition::<AboveHalf>(&dev, &d, &mut out).unwrap();
            let got = out.download().unwrap();
            let what = format!("partition n {n} {:?}", dev.backend());
            assert_eq!(c, want.len(), "{what}");
            assert_eq!(got[..c], want[..], "{what}: the kept");
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&got[c..n]),
                bits(&rejected),
                "{what}: the rejected (NaN too)"
            );
            assert_eq!(got[n..], [-7.0; 3], "{what}: past the input's length");
        }
    }
}

#[test]
fn a_struct_predicate() {
    let mut rng = Rng::new(64);
    let n = 9000;
    let x: Vec<Particle> = (0..n)
        .map(|i| Particle {
            x: rng.range_f32(-1.5, 1.5),
            y: rng.range_f32(-1.5, 1.5),
            id: i as u32,
        })
        .collect();
    let want = cpu_select(&x, |i| preds::inside(x[i]));
    let poison = Particle {
        x: 9.0,
        y: 9.0,
        id: u32::MAX,
    };
    for dev in devices("a_struct_predicate") {
        let d = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![poison; n]).unwrap();
        let c = select::select_if::<Inside>(&dev, &d, &mut out).unwrap();
        assert_kept(&out.download().unwrap(), c, &want, poison, "particles");
        let c = select::partition::<Inside>(&dev, &d, &mut out).unwrap();
        let got = out.download().unwrap();
        assert_eq!(got[..c], want[..]);
        assert_eq!(got[c..], cpu_select(&x, |i| !preds::inside(x[i]))[..]);
    }
}

/// The CPU's run-length encoding, with `==` (so each NaN is a run of its own).
fn cpu_runs<T: Copy + PartialEq>(x: &[T]) -> (Vec<T>, Vec<u32>) {
    let mut values: Vec<T> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    for (i, &v) in x.iter().enumerate() {
        if i > 0 && x[i - 1] == v {
            *counts.last_mut().unwrap() += 1;
        } else {
            values.push(v);
            counts.push(1);
        }
    }
    (values, counts)
}

/// Inputs for `unique`: random runs, sorted, reversed, all equal, all different.
fn run_inputs(rng: &mut Rng, n: usize) -> Vec<(&'static str, Vec<i32>)> {
    let mut runs = Vec::with_capacity(n);
    while runs.len() < n {
        let v = (rng.next_u32() % 5) as i32;
        let len = 1 + (rng.next_u32() % [1, 3, 40][runs.len() % 3]) as usize;
        runs.extend(std::iter::repeat_n(v, len.min(n - runs.len())));
    }
    let mut sorted: Vec<i32> = (0..n).map(|_| (rng.next_u32() % 300) as i32).collect();
    sorted.sort();
    let reversed: Vec<i32> = sorted.iter().rev().copied().collect();
    vec![
        ("runs", runs),
        ("sorted", sorted),
        ("reversed", reversed),
        ("all equal", vec![42; n]),
        ("all different", (0..n as i32).collect()),
    ]
}

#[test]
fn unique_and_run_length_encode_are_the_cpus() {
    let mut rng = Rng::new(65);
    for n in LENGTHS {
        for (what, x) in run_inputs(&mut rng, n) {
            let (values, counts) = cpu_runs(&x);
            for dev in devices("unique_and_run_length_encode_are_the_cpus") {
                let d = dev.upload(&x).unwrap();
                let what = format!("{what} n {n} {:?}", dev.backend());
                let mut out = dev.upload(&vec![-1i32; n]).unwrap();
                let c = select::unique(&dev, &d, &mut out).unwrap();
                assert_kept(&out.download().unwrap(), c, &values, -1, &what);
                let mut vals = dev.upload(&vec![-1i32; n]).unwrap();
                let mut cnts = dev.upload(&vec![u32::MAX; n]).unwrap();
                let r = select::run_length_encode(&dev, &d, &mut vals, &mut cnts).unwrap();
                assert_kept(&vals.download().unwrap(), r, &values, -1, &what);
                assert_kept(&cnts.download().unwrap(), r, &counts, u32::MAX, &what);
            }
        }
    }
}

#[test]
fn floats_compare_with_eq_nan_is_its_own_run() {
    let x = [
        1.0f32,
        1.0,
        f32::NAN,
        f32::NAN,
        -0.0,
        0.0,
        2.0,
        f32::INFINITY,
        f32::INFINITY,
    ];
    let (values, counts) = cpu_runs(&x);
    assert_eq!(counts, [2, 1, 1, 2, 1, 2]);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    for dev in devices("floats_compare_with_eq_nan_is_its_own_run") {
        let d = dev.upload(&x).unwrap();
        let mut vals = dev.upload(&[7.0f32; 9]).unwrap();
        let mut cnts = dev.upload(&[0u32; 9]).unwrap();
        let r = select::run_length_encode(&dev, &d, &mut vals, &mut cnts).unwrap();
        assert_eq!(r, 6);
        assert_eq!(bits(&vals.download().unwrap()[..r]), bits(&values));
        assert_eq!(cnts.download().unwrap()[..r], counts[..]);
        let c = select::unique(&dev, &d, &mut vals).unwrap();
        assert_eq!(bits(&vals.download().unwrap()[..c]), bits(&values));
    }
}

#[test]
fn views_streams_and_reused_scratch() {
    let mut rng = Rng::new(66);
    let n = 20_000;
    let x: Vec<u16> = (0..n).map(|_| (rng.next_u32() % 4) as u16).collect();
    let keep: Vec<u8> = (0..n).map(|_| (rng.next_u32() % 2) as u8).collect();
    for dev in devices("views_streams_and_reused_scratch") {
        let d = dev.upload(&x).unwrap();
        let f = dev.upload(&keep).unwrap();
        let s = dev.create_stream().unwrap();
        let mut out = dev.upload(&vec![9u16; n + 1000]).unwrap();
        let mut counts = dev.upload(&vec![0u32; n]).unwrap();
        let mut scratch = select::Scratch::new(&dev, n).unwrap();
        for (lo, hi) in [(0usize, n), (100, 9000), (5, 6), (4096, 3 * 4096 + 1)] {
            let what = format!("{lo}..{hi}");
            let want = cpu_select(&x[lo..hi], |i| keep[lo + i] != 0);
            let mut dst = out.slice_mut(1000..1000 + hi - lo);
            let c = select::flagged_with_scratch(
                &s,
                &d.slice(lo..hi),
                &f.slice(lo..hi),
                &mut dst,
                &mut scratch,
            )
            .unwrap();
            let got = out.download().unwrap();
            assert_eq!(got[1000..1000 + c], want[..], "{what}");
            assert!(got[..1000].iter().all(|&v| v == 9), "{what}");
            let (values, runs) = cpu_runs(&x[lo..hi]);
            let mut dst = out.slice_mut(1000..1000 + hi - lo);
            let mut cdst = counts.slice_mut(..hi - lo);
            let r = select::run_length_encode_with_scratch(
                &s,
                &d.slice(lo..hi),
                &mut dst,
                &mut cdst,
                &mut scratch,
            )
            .unwrap();
            assert_eq!(
                out.download().unwrap()[1000..1000 + r],
                values[..],
                "{what}"
            );
            assert_eq!(counts.download().unwrap()[..r], runs[..], "{what}");
            let mut dst = out.slice_mut(1000..1000 + hi - lo);
            let c =
                select::unique_with_scratch(&s, &d.slice(lo..hi), &mut dst, &mut scratch).unwrap();
            assert_eq!(
                out.download().unwrap()[1000..1000 + c],
                values[..],
                "{what}"
            );
        }
    }
}

#[test]
fn bad_input_is_refused_and_the_output_untouched() {
    for dev in devices("bad_input_is_refused_and_the_output_untouched") {
        let x = dev.upload(&[1.0f32; 100]).unwrap();
        let flags = dev.upload(&[true; 99]).unwrap();
        let mut out = dev.upload(&[5.0f32; 100]).unwrap();
        let err = select::flagged(&dev, &x, &flags, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch in select::flagged: the flags (one an element): expected 100 elements, got 99"
        );
        let flags = dev.upload(&[true; 100]).unwrap();
        let mut short = dev.upload(&[5.0f32; 99]).unwrap();
        let err = select::flagged(&dev, &x, &flags, &mut short).unwrap_err();
        assert!(
            matches!(
                err,
                Error::LengthMismatch {
                    expected: 100,
                    found: 99,
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string().contains("every element may be kept"),
            "{err}"
        );
        let err = select::select_if::<AboveHalf>(&dev, &x, &mut short).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        let err = select::partition::<AboveHalf>(&dev, &x, &mut short).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        let err = select::unique(&dev, &x, &mut short).unwrap_err();
        assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
        let mut counts = dev.upload(&[3u32; 50]).unwrap();
        let err = select::run_length_encode(&dev, &x, &mut out, &mut counts).unwrap_err();
        assert!(err.to_string().contains("the counts"), "{err}");
        let mut scratch = select::Scratch::new(&dev, 50).unwrap();
        let err = select::unique_with_scratch(&dev, &x, &mut out, &mut scratch).unwrap_err();
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
        assert_eq!(out.download().unwrap(), vec![5.0; 100]);
        assert_eq!(short.download().unwrap(), vec![5.0; 99]);
        assert_eq!(counts.download().unwrap(), vec![3; 50]);
    }
}

#[test]
fn select_kernels_compile_with_nvrtc() {
    use select::kernels as k;
    let mut all: Vec<(&str, &'static warpspeed::__private::KernelDef)> = vec![
        ("flagged_bool f32", k::flagged_bool::kernel::<f32>()),
        ("flagged_u8 i64", k::flagged_u8::kernel::<i64>()),
        ("flagged_bool bool", k::flagged_bool::kernel::<bool>()),
        ("unique f16", k::unique::kernel::<warpspeed::f16>()),
        ("unique u8", k::unique::kernel::<u8>()),
        ("run_lengths", &k::run_lengths::KERNEL),
        (
            "flagged_bool f32 unchecked",
            k::unchecked::flagged_bool::kernel::<f32>(),
        ),
    ];
    for kd in AboveHalf::kernels().into_iter().chain(Inside::kernels()) {
        all.push((kd.rust_name, kd));
    }
    nvrtc_compiles(&all);
}

/// Every index of the select kernels is proven in bounds (or guarded by the kernel's own
/// test): the checked form keeps no check.
#[test]
fn the_select_kernels_keep_no_check() {
    use select::kernels as k;
    let mut sources = vec![
        k::flagged_bool::cuda_source::<f32>(),
        k::flagged_u8::cuda_source::<u64>(),
        k::unique::cuda_source::<i32>(),
        k::run_lengths::KERNEL.source.to_string(),
    ];
    for kd in AboveHalf::kernels() {
        sources.push(kd.source.to_string());
    }
    for c in sources {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{check}: {body}");
        }
    }
}
