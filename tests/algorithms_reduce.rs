//! `warpspeed::algorithms::reduce` (issue 22): min and max equal to the CPU's; sums of
//! random integers exact against the
//! CPU at lengths around the block and grid boundaries (empty, 1, 255, 257, past the
//! 1024-block grid); float sums within the documented bound of an f64 reference and equal
//! bit for bit on the simulator and the GPU (their order is fixed); views; a result of the
//! wrong length refused before anything runs.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::reduce;
use warpspeed::{bf16, f16};

#[test]
fn integer_sums_are_exact() {
    let mut rng = Rng::new(22);
    for n in [0usize, 1, 255, 256, 257, 4099, 300_000] {
        let x: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let want = x.iter().fold(0u32, |s, &v| s.wrapping_add(v));
        let xi: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64 >> 8).collect();
        let want_i = xi.iter().fold(0i64, |s, &v| s.wrapping_add(v));
        for dev in devices("integer_sums_are_exact") {
            let d = dev.upload(&x).unwrap();
            assert_eq!(
                reduce::sum(&dev, &d).unwrap(),
                want,
                "n {n} {:?}",
                dev.backend()
            );
            let di = dev.upload(&xi).unwrap();
            assert_eq!(
                reduce::sum(&dev, &di).unwrap(),
                want_i,
                "n {n} {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn float_sums_are_close_and_the_same_on_both_backends() {
    let mut rng = Rng::new(23);
    for n in [1usize, 1000, 70_001] {
        let x: Vec<f32> = (0..n)
            .map(|_| (rng.next_u64() % 2001) as f32 / 1000.0 - 1.0)
            .collect();
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let abs: f64 = x.iter().map(|&v| (v as f64).abs()).sum();
        let mut seen = Vec::new();
        for dev in devices("float_sums_are_close_and_the_same_on_both_backends") {
            let d = dev.upload(&x).unwrap();
            let got = reduce::sum(&dev, &d).unwrap();
            // Each element passes through at most log2(n) + 2 roundings of f32.
            let bound = abs * f64::from(f32::EPSILON) * ((n as f64).log2() + 2.0);
            assert!(
                (got as f64 - exact).abs() <= bound,
                "n {n}: {got} against {exact} (bound {bound:e}) {:?}",
                dev.backend()
            );
            seen.push(got.to_bits());
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "n {n}: {seen:x?}");
    }
}

#[test]
fn views_and_streams_are_summed() {
    for dev in devices("views_and_streams_are_summed") {
        let x = dev.upload(&(0..1000u64).collect::<Vec<_>>()).unwrap();
        let s = dev.create_stream().unwrap();
        let mut out = dev.upload(&[7u64; 3]).unwrap();
        reduce::sum_into(&s, &x.slice(100..200), &mut out.slice_mut(1..2)).unwrap();
        s.synchronize().unwrap();
        assert_eq!(out.download().unwrap(), vec![7, (100..200).sum::<u64>(), 7]);
    }
}

#[test]
fn a_result_of_the_wrong_length_is_refused() {
    for dev in devices("a_result_of_the_wrong_length_is_refused") {
        let x = dev.upload(&[1u32; 10]).unwrap();
        let mut out = dev.upload(&[9u32; 2]).unwrap();
        let err = reduce::sum_into(&dev, &x, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch in reduce::sum_into: the result: expected 1 elements, got 2"
        );
        assert_eq!(out.download().unwrap(), vec![9, 9]);
    }
}

/// Every index of the reduce kernels is proven in bounds: the checked form keeps no check
/// (the store of the partial is guarded by `b < partial.len()`).
#[test]
fn the_sum_kernel_keeps_no_check() {
    for c in [
        reduce::kernels::block_sums_float::cuda_source::<f32>(),
        reduce::kernels::block_sums_int::cuda_source::<u32>(),
        reduce::kernels::block_mins_float::cuda_source::<f32>(),
        reduce::kernels::block_maxs_int::cuda_source::<i32>(),
        reduce::kernels::block_min_max_float::cuda_source::<f64>(),
        reduce::kernels::block_arg_min_int::cuda_source::<u8>(),
        reduce::kernels::block_arg_max_pairs_float::cuda_source::<f32>(),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{check}: {body}");
        }
    }
}

#[test]
fn min_and_max_are_the_cpus() {
    let mut rng = Rng::new(24);
    for n in [1usize, 3, 257, 5000, 300_001] {
        let x: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        let f: Vec<f32> = (0..n)
            .map(|_| (rng.next_u64() % 100_000) as f32 / 7.0 - 5000.0)
            .collect();
        let (lo, hi) = (*x.iter().min().unwrap(), *x.iter().max().unwrap());
        let flo = f.iter().copied().fold(f32::INFINITY, f32::min);
        let fhi = f.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        for dev in devices("min_and_max_are_the_cpus") {
            let d = dev.upload(&x).unwrap();
            assert_eq!(
                reduce::min(&dev, &d).unwrap(),
                lo,
                "n {n} {:?}",
                dev.backend()
            );
            assert_eq!(
                reduce::max(&dev, &d).unwrap(),
                hi,
                "n {n} {:?}",
                dev.backend()
            );
            let d = dev.upload(&f).unwrap();
            assert_eq!(
                reduce::min(&dev, &d).unwrap(),
                flo,
                "n {n} {:?}",
                dev.backend()
            );
            assert_eq!(
                reduce::max(&dev, &d).unwrap(),
                fhi,
                "n {n} {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn min_of_nothing_is_refused() {
    for dev in devices("min_of_nothing_is_refused") {
        let x = dev.zeros::<u32>(0).unwrap();
        let err = reduce::max(&dev, &x).unwrap_err();
        assert_eq!(
            err.to_string(),
            "length mismatch in reduce::max: the input (an operator without an identity has \
             no result for nothing): expected 1 elements, got 0"
        );
        for err in [
            reduce::min_max(&dev, &x).unwrap_err(),
            reduce::arg_min(&dev, &x).unwrap_err(),
        ] {
            assert!(
                matches!(err, warpspeed::Error::LengthMismatch { found: 0, .. }),
                "{err}"
            );
        }
    }
}

/// The CPU's arg-min (`max`: arg-max) as the library defines it: NaNs passed over unless
/// all are NaN, the first of equals.
fn cpu_arg<T: Copy + PartialOrd>(x: &[T], max: bool) -> (usize, T) {
    let nan = |v: T| v.partial_cmp(&v).is_none();
    let mut best = 0;
    for i in 1..x.len() {
        let (a, b) = (x[best], x[i]);
        let better = if nan(a) != nan(b) {
            nan(a)
        } else if nan(a) {
            false
        } else if max {
            b > a
        } else {
            b < a
        };
        if better {
            best = i;
        }
    }
    (best, x[best])
}

#[test]
fn min_max_and_arg_reductions_are_the_cpus() {
    let mut rng = Rng::new(25);
    for n in [1usize, 2, 255, 1025, 4099, 300_001] {
        // Few distinct values, so ties are everywhere; NaNs at random places.
        let b: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 7) as u8).collect();
        let i: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64).collect();
        let f: Vec<f32> = (0..n)
            .map(|_| match rng.next_u64() % 50 {
                0 => f32::NAN,
                r => (r % 9) as f32 - 4.0,
            })
            .collect();
        let same = |a: f32, b: f32| a == b || (a.is_nan() && b.is_nan());
        for dev in devices("min_max_and_arg_reductions_are_the_cpus") {
            let ctx = format!("n {n} {:?}", dev.backend());
            let db = dev.upload(&b).unwrap();
            assert_eq!(
                reduce::arg_min(&dev, &db).unwrap(),
                cpu_arg(&b, false),
                "{ctx}"
            );
            assert_eq!(
                reduce::arg_max(&dev, &db).unwrap(),
                cpu_arg(&b, true),
                "{ctx}"
            );
            let lo = *b.iter().min().unwrap();
            let hi = *b.iter().max().unwrap();
            assert_eq!(reduce::min_max(&dev, &db).unwrap(), (lo, hi), "{ctx}");
            let di = dev.upload(&i).unwrap();
            assert_eq!(
                reduce::arg_min(&dev, &di).unwrap(),
                cpu_arg(&i, false),
                "{ctx}"
            );
            assert_eq!(
                reduce::arg_max(&dev, &di).unwrap(),
                cpu_arg(&i, true),
                "{ctx}"
            );
            let df = dev.upload(&f).unwrap();
            let (gi, gv) = reduce::arg_min(&dev, &df).unwrap();
            let (wi, wv) = cpu_arg(&f, false);
            assert!(
                gi == wi && same(gv, wv),
                "{ctx}: ({gi}, {gv}), the CPU ({wi}, {wv})"
            );
            let (gi, gv) = reduce::arg_max(&dev, &df).unwrap();
            let (wi, wv) = cpu_arg(&f, true);
            assert!(
                gi == wi && same(gv, wv),
                "{ctx}: ({gi}, {gv}), the CPU ({wi}, {wv})"
            );
            let (glo, ghi) = reduce::min_max(&dev, &df).unwrap();
            let flo = f.iter().copied().fold(f32::NAN, f32::min);
            let fhi = f.iter().copied().fold(f32::NAN, f32::max);
            assert!(
                same(glo, flo) && same(ghi, fhi),
                "{ctx}: ({glo}, {ghi}), the CPU ({flo}, {fhi})"
            );
        }
    }
}

#[test]
fn all_nan_gives_the_first_nan() {
    for dev in devices("all_nan_gives_the_first_nan") {
        let x = dev.upload(&[f64::NAN; 3000]).unwrap();
        let (i, v) = reduce::arg_max(&dev, &x).unwrap();
        assert!(i == 0 && v.is_nan(), "({i}, {v})");
        let (lo, hi) = reduce::min_max(&dev, &x).unwrap();
        assert!(lo.is_nan() && hi.is_nan());
    }
}

#[test]
fn reduce_takes_the_librarys_operators() {
    use warpspeed::algorithms::operator::{Max, Min, Sum};
    let x: Vec<i16> = (0..5000)
        .map(|i| ((i * 7919) % 1001) as i16 - 500)
        .collect();
    for dev in devices("reduce_takes_the_librarys_operators") {
        let d = dev.upload(&x).unwrap();
        let sum = x.iter().fold(0i16, |s, &v| s.wrapping_add(v));
        assert_eq!(reduce::reduce::<Sum<i16>>(&dev, &d).unwrap(), sum);
        assert_eq!(reduce::reduce::<Min<i16>>(&dev, &d).unwrap(), -500);
        assert_eq!(reduce::reduce::<Max<i16>>(&dev, &d).unwrap(), 500);
        let empty = dev.zeros::<i16>(0).unwrap();
        assert_eq!(reduce::reduce::<Sum<i16>>(&dev, &empty).unwrap(), 0);
        assert!(reduce::reduce::<Min<i16>>(&dev, &empty).is_err());
    }
}

#[test]
fn every_reduce_kernel_compiles_with_nvrtc() {
    use reduce::kernels as k;
    macro_rules! each {
        ($($kernel:ident::<$t:ty>),* $(,)?) => {
            nvrtc_compiles(&[$((stringify!($kernel), k::$kernel::kernel::<$t>())),*])
        };
    }
    each!(
        block_sums_int::<i8>,
        block_mins_int::<u64>,
        block_maxs_int::<isize>,
        block_min_max_int::<i16>,
        block_min_max_pairs_int::<u32>,
        block_arg_min_int::<u8>,
        block_arg_max_int::<i64>,
        block_arg_min_pairs_int::<usize>,
        block_arg_max_pairs_int::<u16>,
        block_sums_float::<f16>,
        block_mins_float::<bf16>,
        block_maxs_float::<f64>,
        block_min_max_float::<f16>,
        block_min_max_pairs_float::<bf16>,
        block_arg_min_float::<f32>,
        block_arg_max_float::<f64>,
        block_arg_min_pairs_float::<f16>,
        block_arg_max_pairs_float::<bf16>,
    );
}
