//! `warpspeed::algorithms::reduce` (issue 22): min and max equal to the CPU's; sums of
//! random integers exact against the
//! CPU at lengths around the block and grid boundaries (empty, 1, 255, 257, past the
//! 1024-block grid); float sums within the documented bound of an f64 reference and equal
//! bit for bit on the simulator and the GPU (their order is fixed); views; a result of the
//! wrong length refused before anything runs.

mod common;
use common::{devices, Rng};
use warpspeed::algorithms::reduce;

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

/// Every index of the sum's kernel is proven in bounds: the checked form keeps only the
/// store of the partial (`b < partial.len()` guards it, so not even that).
#[test]
fn the_sum_kernel_keeps_no_check() {
    for c in [
        reduce::kernels::block_sums_float::cuda_source::<f32>(),
        reduce::kernels::block_sums_int::cuda_source::<u32>(),
        reduce::kernels::block_mins_float::cuda_source::<f32>(),
        reduce::kernels::block_maxs_int::cuda_source::<i32>(),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        assert!(
            !body.contains("ws_at(") && !body.contains("ws_at_shared("),
            "{body}"
        );
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
            "length mismatch in reduce::min/max: the input (the min or max of nothing is \
             undefined): expected 1 elements, got 0"
        );
    }
}
