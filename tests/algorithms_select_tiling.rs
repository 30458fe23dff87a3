//! The select kernels' tilings (`select::Tiling`, `select::TUNED_TILINGS`, issue 22: the
//! autotuner chooses the items a thread and the blocks an SM): every tiling, forced
//! through `autotune::force` for each entry (`flagged`, `select_if`, `partition`, `unique`,
//! `run_length_encode`), gives the CPU's result on the simulator (and the GPU where there
//! is one) at lengths that are not a multiple of any tile and across more tiles than the
//! look-back's window of 32; outputs poisoned first and untouched past the count; all kept,
//! none kept, runs, sorted, reversed, all equal and NaNs; scratch made for the default fits
//! every tiling; bad input is still refused before anything runs; each tiling's kernels
//! carry their launch bounds, keep no bounds check and compile with NVRTC.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::predicate;
use warpspeed::algorithms::select::{self, Predicate, Tiling, TUNED_TILINGS};
use warpspeed::autotune;
use warpspeed::prelude::*;

/// The select entries, by the name each is tuned (and forced) under.
const ALGORITHMS: [&str; 5] = [
    "select::flagged",
    "select::select_if",
    "select::partition",
    "select::unique",
    "select::run_length_encode",
];

/// Around each tile (2048, 4096, 8192), and 70_001: 35 tiles of 2048, more than the
/// look-back's window.
const LENGTHS: [usize; 9] = [0, 1, 2047, 2049, 4097, 8191, 8193, 20_001, 70_001];

/// `f` with this thread's tunings of every select entry forced to `tiling`.
fn forced<R>(tiling: Tiling, f: impl FnOnce() -> R) -> R {
    for a in ALGORITHMS {
        autotune::force(a, Some(tiling.label()));
    }
    let r = f();
    for a in ALGORITHMS {
        autotune::force(a, None);
    }
    r
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

/// More than a half.
#[gpu_device]
fn above_half(x: f32) -> bool {
    x > 0.5
}

predicate! {
    /// The values above 0.5 (not NaN).
    pub struct AboveHalf { elem: f32, keep: above_half }
}

#[test]
fn the_tilings_are_what_their_labels_say() {
    assert_eq!(TUNED_TILINGS[0].1, Tiling::T4096c4, "the default first");
    assert_eq!(select::TILE, Tiling::T4096c4.tile());
    for (label, t) in TUNED_TILINGS {
        assert_eq!(label, t.label());
        assert_eq!(t.tile(), 256 * t.items_per_thread());
        let bps = t.blocks_per_sm().map_or(String::new(), |b| format!("c{b}"));
        assert_eq!(label, format!("t{}{bps}", t.tile()));
        assert_eq!(t.launch_config(t.tile() + 1).grid.x, 2);
        assert_eq!(t.launch_config(1).block.x, 256);
    }
}

#[test]
fn flagged_under_every_tiling() {
    let mut rng = Rng::new(71);
    for n in LENGTHS {
        let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
        // Random at a density, all kept, none kept.
        let density = [50u32, 3, 97][n % 3];
        let masks: [(&str, Vec<bool>); 3] = [
            (
                "random",
                (0..n).map(|_| rng.next_u32() % 100 < density).collect(),
            ),
            ("all kept", vec![true; n]),
            ("none kept", vec![false; n]),
        ];
        for dev in devices("flagged_under_every_tiling") {
            let d = dev.upload(&x).unwrap();
            for (mask, keep) in &masks {
                let want: Vec<u32> = (0..n).filter(|&i| keep[i]).map(|i| x[i]).collect();
                let f = dev.upload(keep).unwrap();
                let flags8: Vec<u8> = keep.iter().map(|&k| if k { 7 } else { 0 }).collect();
                let f8 = dev.upload(&flags8).unwrap();
                for (_, t) in TUNED_TILINGS {
                    let what = format!("{mask} n {n} {t:?} {:?}", dev.backend());
                    forced(t, || {
                        let mut out = dev.upload(&vec![0xdead_beef; n]).unwrap();
                        let c = select::flagged(&dev, &d, &f, &mut out).unwrap();
                        assert_kept(&out.download().unwrap(), c, &want, 0xdead_beef, &what);
                        if *mask == "random" {
                            let mut out = dev.upload(&vec![0xdead_beef; n]).unwrap();
                            let c = select::flagged(&dev, &d, &f8, &mut out).unwrap();
                            assert_kept(&out.download().unwrap(), c, &want, 0xdead_beef, &what);
                        }
                    });
                }
            }
        }
    }
}

#[test]
fn select_if_and_partition_under_every_tiling() {
    let mut rng = Rng::new(72);
    for n in LENGTHS {
        let mut x: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 1.0)).collect();
        if n > 10 {
            x[3] = f32::NAN;
            x[n - 1] = 0.5;
        }
        let want: Vec<f32> = x.iter().copied().filter(|&v| above_half(v)).collect();
        let rejected: Vec<u32> = x
            .iter()
            .filter(|&&v| !above_half(v))
            .map(|v| v.to_bits())
            .collect();
        for dev in devices("select_if_and_partition_under_every_tiling") {
            let d = dev.upload(&x).unwrap();
            for (_, t) in TUNED_TILINGS {
                let what = format!("n {n} {t:?} {:?}", dev.backend());
                forced(t, || {
                    let mut out = dev.upload(&vec![-7.0f32; n]).unwrap();
                    let c = select::select_if::<AboveHalf>(&dev, &d, &mut out).unwrap();
                    assert_kept(&out.download().unwrap(), c, &want, -7.0, &what);
                    let mut out = dev.upload(&vec![-7.0f32; n + 3]).unwrap();
                    let c = select::partition::<AboveHalf>(&dev, &d, &mut out).unwrap();
                    let got = out.download().unwrap();
                    assert_eq!(c, want.len(), "{what}");
                    assert_eq!(got[..c], want[..], "{what}: the kept");
                    let bits: Vec<u32> = got[c..n].iter().map(|f| f.to_bits()).collect();
                    assert_eq!(bits, rejected, "{what}: the rejected (NaN too)");
                    assert_eq!(got[n..], [-7.0; 3], "{what}: past the input");
                });
            }
        }
    }
}

/// The CPU's run-length encoding, with `==` (each NaN a run of its own).
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

#[test]
fn unique_and_run_length_encode_under_every_tiling() {
    let mut rng = Rng::new(73);
    for n in LENGTHS {
        // Runs of 1 to 40 (some across tiles), sorted, reversed, all equal, with NaNs.
        let mut runs = Vec::with_capacity(n);
        while runs.len() < n {
            let v = (rng.next_u32() % 5) as f32;
            let len = 1 + (rng.next_u32() % [1, 3, 40][runs.len() % 3]) as usize;
            runs.extend(std::iter::repeat_n(v, len.min(n - runs.len())));
        }
        for i in (0..n).step_by(997) {
            runs[i] = f32::NAN;
        }
        let mut sorted: Vec<f32> = (0..n).map(|_| (rng.next_u32() % 300) as f32).collect();
        sorted.sort_by(f32::total_cmp);
        let reversed: Vec<f32> = sorted.iter().rev().copied().collect();
        let inputs = [
            ("runs", runs),
            ("sorted", sorted),
            ("reversed", reversed),
            ("all equal", vec![42.0; n]),
        ];
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        for dev in devices("unique_and_run_length_encode_under_every_tiling") {
            for (what, x) in &inputs {
                let (values, counts) = cpu_runs(x);
                let d = dev.upload(x).unwrap();
                for (_, t) in TUNED_TILINGS {
                    let what = format!("{what} n {n} {t:?} {:?}", dev.backend());
                    forced(t, || {
                        let mut out = dev.upload(&vec![-1.0f32; n]).unwrap();
                        let c = select::unique(&dev, &d, &mut out).unwrap();
                        let got = out.download().unwrap();
                        assert_eq!(c, values.len(), "{what}: unique's count");
                        assert_eq!(bits(&got[..c]), bits(&values), "{what}: unique");
                        assert!(got[c..].iter().all(|&v| v == -1.0), "{what}");
                        let mut vals = dev.upload(&vec![-1.0f32; n]).unwrap();
                        let mut cnts = dev.upload(&vec![u32::MAX; n]).unwrap();
                        let r = select::run_length_encode(&dev, &d, &mut vals, &mut cnts).unwrap();
                        let got = vals.download().unwrap();
                        assert_eq!(r, values.len(), "{what}: the runs");
                        assert_eq!(bits(&got[..r]), bits(&values), "{what}: the values");
                        assert_kept(&cnts.download().unwrap(), r, &counts, u32::MAX, &what);
                    });
                }
            }
        }
    }
}

/// Scratch made once serves every tiling in turn (its status words are one a tile of the
/// smallest), on a stream, over views.
#[test]
fn one_scratch_serves_every_tiling() {
    let mut rng = Rng::new(74);
    let n = 30_000;
    let x: Vec<i16> = (0..n).map(|_| (rng.next_u32() % 3) as i16).collect();
    let keep: Vec<bool> = (0..n).map(|_| rng.next_u32().is_multiple_of(3)).collect();
    for dev in devices("one_scratch_serves_every_tiling") {
        let d = dev.upload(&x).unwrap();
        let f = dev.upload(&keep).unwrap();
        let s = dev.create_stream().unwrap();
        let mut scratch = select::Scratch::new(&dev, n).unwrap();
        let mut out = dev.upload(&vec![9i16; n]).unwrap();
        for (lo, hi) in [(0, n), (1, n - 1), (2048, 2 * 8192 + 1)] {
            let want: Vec<i16> = (lo..hi).filter(|&i| keep[i]).map(|i| x[i]).collect();
            let (values, _) = cpu_runs(&x[lo..hi]);
            for (_, t) in TUNED_TILINGS.iter().rev() {
                let what = format!("{lo}..{hi} {t:?} {:?}", dev.backend());
                forced(*t, || {
                    let mut dst = out.slice_mut(..hi - lo);
                    let c = select::flagged_with_scratch(
                        &s,
                        &d.slice(lo..hi),
                        &f.slice(lo..hi),
                        &mut dst,
                        &mut scratch,
                    )
                    .unwrap();
                    assert_eq!(out.download().unwrap()[..c], want[..], "{what}");
                    let mut dst = out.slice_mut(..hi - lo);
                    let u =
                        select::unique_with_scratch(&s, &d.slice(lo..hi), &mut dst, &mut scratch)
                            .unwrap();
                    assert_eq!(out.download().unwrap()[..u], values[..], "{what}");
                });
            }
        }
    }
}

#[test]
fn bad_input_is_refused_whatever_the_tiling() {
    for dev in devices("bad_input_is_refused_whatever_the_tiling") {
        let x = dev.upload(&[1.0f32; 100]).unwrap();
        let flags = dev.upload(&[true; 99]).unwrap();
        let mut out = dev.upload(&[5.0f32; 100]).unwrap();
        let mut short = dev.upload(&[5.0f32; 99]).unwrap();
        for (_, t) in TUNED_TILINGS {
            forced(t, || {
                let err = select::flagged(&dev, &x, &flags, &mut out).unwrap_err();
                assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
                let err = select::select_if::<AboveHalf>(&dev, &x, &mut short).unwrap_err();
                assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
                let err = select::unique(&dev, &x, &mut short).unwrap_err();
                assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
                let mut scratch = select::Scratch::new(&dev, 50).unwrap();
                let err =
                    select::unique_with_scratch(&dev, &x, &mut out, &mut scratch).unwrap_err();
                assert!(matches!(err, Error::LengthMismatch { .. }), "{err}");
            });
        }
        assert_eq!(out.download().unwrap(), vec![5.0; 100]);
        assert_eq!(short.download().unwrap(), vec![5.0; 99]);
    }
}

/// Every tiling's kernels, checked and unchecked (and a predicate's), with the launch
/// bounds the tiling names.
fn tiling_kernels() -> Vec<(String, Tiling, &'static warpspeed::__private::KernelDef)> {
    use select::kernels as k;
    macro_rules! of {
        ($t:expr, $m:ident) => {
            vec![
                (
                    format!("{} flagged_bool f32", $t.label()),
                    $t,
                    k::$m::flagged_bool::kernel::<f32>(),
                ),
                (
                    format!("{} flagged_u8 i64", $t.label()),
                    $t,
                    k::$m::flagged_u8::kernel::<i64>(),
                ),
                (
                    format!("{} unique f32", $t.label()),
                    $t,
                    k::$m::unique::kernel::<f32>(),
                ),
                (
                    format!("{} unique u8", $t.label()),
                    $t,
                    k::$m::unique::kernel::<u8>(),
                ),
                (
                    format!("{} flagged_bool f32 unchecked", $t.label()),
                    $t,
                    k::unchecked::$m::flagged_bool::kernel::<f32>(),
                ),
                (
                    format!("{} unique i32 unchecked", $t.label()),
                    $t,
                    k::unchecked::$m::unique::kernel::<i32>(),
                ),
            ]
        };
    }
    let mut all = Vec::new();
    all.extend(of!(Tiling::T4096c4, t4096c4));
    all.extend(of!(Tiling::T4096, t4096));
    all.extend(of!(Tiling::T4096c6, t4096c6));
    all.extend(of!(Tiling::T8192c3, t8192c3));
    all.extend(of!(Tiling::T2048c8, t2048c8));
    // The predicate's select kernels, in the order of TUNED_TILINGS.
    for (kd, (_, t)) in AboveHalf::kernels().into_iter().zip(TUNED_TILINGS) {
        all.push((format!("{} {}", t.label(), kd.rust_name), t, kd));
    }
    all
}

#[test]
fn each_tiling_has_its_launch_bounds_and_no_check() {
    for (name, t, kd) in tiling_kernels() {
        let c = kd.source.to_string();
        let bounds = match t.blocks_per_sm() {
            Some(b) => format!("__launch_bounds__(256, {b})"),
            None => "__launch_bounds__(256)".to_string(),
        };
        assert!(c.contains(&bounds), "{name}: wants {bounds}");
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        if !name.ends_with("unchecked") {
            for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
                assert!(!body.contains(check), "{name}: {check}");
            }
        }
        // The items a thread, in the tile's size (the C keeps the product unfolded).
        let tile = format!("(256ull * {}ull)", t.items_per_thread());
        assert!(body.contains(&tile), "{name}: a tile of {tile}");
    }
}

#[test]
fn every_tiling_compiles_with_nvrtc() {
    let all = tiling_kernels();
    let named: Vec<(&str, &'static warpspeed::__private::KernelDef)> =
        all.iter().map(|(n, _, k)| (n.as_str(), *k)).collect();
    nvrtc_compiles(&named);
}
