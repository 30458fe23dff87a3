//! `warpspeed::algorithms::histogram` (issue 22): `even` and `range` against a CPU
//! reference for integers (exact, in i128) and floats (the documented formula, in the
//! samples' type), on random, one-value, bin-edge, out-of-range and NaN samples, with 1,
//! 256, 4096, the largest shared and 65536 bins (so both the shared-memory and the
//! global-atomic kernels run); counts poisoned before each call (they are overwritten, also
//! for an empty input); every bad input refused before anything runs; the kernels keep no
//! bounds check; NVRTC compiles them.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::histogram;
use warpspeed::Device;

const POISON: u32 = 0xDEAD_BEEF;

/// `histogram::even` on `dev`, from poisoned counts.
fn even_on<T: histogram::Sample>(
    dev: &Device,
    x: &[T],
    bins: usize,
    lo: T::Level,
    hi: T::Level,
) -> Vec<u32> {
    let d = dev.upload(x).unwrap();
    let mut counts = dev.upload(&vec![POISON; bins]).unwrap();
    histogram::even(dev, &d, &mut counts, lo, hi).unwrap();
    counts.download().unwrap()
}

/// `histogram::range` on `dev`, from poisoned counts.
fn range_on<T: histogram::Sample>(dev: &Device, x: &[T], levels: &[T]) -> Vec<u32> {
    let d = dev.upload(x).unwrap();
    let mut counts = dev.upload(&vec![POISON; levels.len() - 1]).unwrap();
    histogram::range(dev, &d, levels, &mut counts).unwrap();
    counts.download().unwrap()
}

/// The CPU histogram of the bins `bin` gives.
fn cpu<T: Copy>(x: &[T], bins: usize, bin: impl Fn(T) -> Option<usize>) -> Vec<u32> {
    let mut c = vec![0u32; bins];
    for &v in x {
        if let Some(b) = bin(v) {
            c[b] += 1;
        }
    }
    c
}

/// The exact integer bin: `floor((x - lo) bins / (hi - lo))`.
fn int_bin(x: i128, lo: i128, hi: i128, bins: usize) -> Option<usize> {
    (x >= lo && x < hi).then(|| ((x - lo) * bins as i128 / (hi - lo)) as usize)
}

/// The documented float bins, in f32 and f64.
fn f32_bin(x: f32, lo: f32, hi: f32, bins: usize) -> Option<usize> {
    let scale = bins as f32 / (hi - lo);
    (x >= lo && x < hi).then(|| (((x - lo) * scale) as u32).min(bins as u32 - 1) as usize)
}
fn f64_bin(x: f64, lo: f64, hi: f64, bins: usize) -> Option<usize> {
    let scale = bins as f64 / (hi - lo);
    (x >= lo && x < hi).then(|| (((x - lo) * scale) as u32).min(bins as u32 - 1) as usize)
}

/// The bin among `levels` by a linear scan.
fn level_bin<T: PartialOrd + Copy>(x: T, levels: &[T]) -> Option<usize> {
    (0..levels.len() - 1).find(|&i| levels[i] <= x && x < levels[i + 1])
}

/// Integer samples of one type: random in and around `[lo, hi)`, the range's edges, and
/// each bin's first value and the one before it.
macro_rules! int_case {
    ($rng:expr, $t:ty, $lo:expr, $hi:expr, $bins:expr, $n:expr) => {{
        let (l, h, bins): (i128, i128, usize) = ($lo, $hi, $bins);
        let span = (h - l) as u128;
        let mut x: Vec<$t> = (0..$n)
            .map(|_| {
                let r = $rng.next_u64() as u128 % (span + span / 4 + 2);
                (l - (span / 8) as i128 + r as i128).clamp(<$t>::MIN as i128, <$t>::MAX as i128)
                    as $t
            })
            .collect();
        for i in 0..=bins.min(300) as i128 {
            // The first value of bin i: ceil(i (hi - lo) / bins).
            let first = l + (i * (h - l) + bins as i128 - 1) / bins as i128;
            for v in [first - 1, first, first + 1] {
                if v >= <$t>::MIN as i128 && v <= <$t>::MAX as i128 {
                    x.push(v as $t);
                }
            }
        }
        let clamp = |v: i128| v.clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t;
        x.extend([clamp(l), clamp(h), clamp(h - 1), <$t>::MIN, <$t>::MAX]);
        let want = cpu(&x, bins, |v: $t| int_bin(v as i128, l, h, bins));
        for dev in devices(concat!("integer_bins_are_exact ", stringify!($t))) {
            assert_eq!(
                even_on(&dev, &x, bins, l, h),
                want,
                "{} [{l}, {h}) {bins} bins {:?}",
                stringify!($t),
                dev.backend()
            );
        }
    }};
}

#[test]
fn integer_bins_are_exact() {
    let mut rng = Rng::new(31);
    // Every value of u8 and u16, one a bin: hi one past the type's greatest value.
    int_case!(rng, u8, 0, 256, 256, 3000);
    int_case!(rng, u8, 10, 200, 7, 1000);
    int_case!(rng, i8, -128, 127, 3, 1000);
    // Levels below and above the type's values.
    int_case!(rng, i8, -1000, 1000, 100, 1000);
    int_case!(rng, u8, -7, 300, 9, 1000);
    int_case!(rng, i16, -1000, 30_000, 4096, 3000);
    int_case!(rng, u16, 0, 65536, 65536, 2000);
    int_case!(rng, i32, i32::MIN as i128, i32::MAX as i128, 1000, 3000);
    int_case!(rng, u32, 7, 4_000_000_000, 12288, 3000);
    // 64-bit ranges whose product with the bins overflows u64 (the exact correction), up
    // to the whole type (hi - lo = 2^64).
    int_case!(
        rng,
        i64,
        i64::MIN as i128,
        i64::MAX as i128 + 1,
        65536,
        3000
    );
    int_case!(rng, i64, -5, 1 << 62, 777, 2000);
    int_case!(rng, u64, 3, u64::MAX as i128, 65521, 2000);
    int_case!(rng, u64, 0, 1 << 64, 1, 500);
    int_case!(rng, u64, 0, 1 << 64, 3, 500);
    int_case!(rng, usize, 0, usize::MAX as i128 / 3, 256, 1000);
    int_case!(rng, isize, -100, 100, 1, 500);
}

#[test]
fn float_bins_follow_the_formula() {
    let mut rng = Rng::new(32);
    for (bins, lo, hi, n) in [
        (256usize, 0.0f32, 1.0f32, 5000usize),
        (1, -2.0, 3.0, 700),
        (4096, -1.5, 2.5, 5000),
        (10, 0.1, 0.7, 3000),
        (65536, -1000.0, 1000.0, 4000),
        (12288, 1e-3, 2e-3, 3000),
    ] {
        // Random values over a range wider than [lo, hi), every bin edge and its
        // neighbouring floats, lo, hi, NaNs and infinities.
        let w = hi - lo;
        let mut x: Vec<f32> = (0..n)
            .map(|_| lo - w / 8.0 + w * 1.25 * (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
            .collect();
        for i in 0..=bins.min(400) {
            let e = lo + w * i as f32 / bins as f32;
            x.extend([e, e.next_down(), e.next_up()]);
        }
        x.extend([lo, hi, lo.next_down(), hi.next_down(), f32::NAN, -f32::NAN]);
        x.extend([f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -0.0]);
        let xd: Vec<f64> = x.iter().map(|&v| v as f64 * 1.000_000_1).collect();
        let want = cpu(&x, bins, |v| f32_bin(v, lo, hi, bins));
        let want_d = cpu(&xd, bins, |v| f64_bin(v, lo as f64, hi as f64, bins));
        for dev in devices("float_bins_follow_the_formula") {
            assert_eq!(
                even_on(&dev, &x, bins, lo, hi),
                want,
                "f32 {bins} bins [{lo}, {hi}) {:?}",
                dev.backend()
            );
            assert_eq!(
                even_on(&dev, &xd, bins, lo as f64, hi as f64),
                want_d,
                "f64 {bins} bins {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn one_value_and_sorted_data() {
    let n = 6000;
    for (bins, v) in [(256usize, 0.3f32), (4096, 0.999), (65536, 0.0)] {
        let x = vec![v; n];
        let mut sorted: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
        let reversed: Vec<f32> = sorted.iter().rev().copied().collect();
        sorted.push(1.0);
        for dev in devices("one_value_and_sorted_data") {
            for data in [&x, &sorted, &reversed] {
                assert_eq!(
                    even_on(&dev, data, bins, 0.0, 1.0),
                    cpu(data, bins, |s| f32_bin(s, 0.0, 1.0, bins)),
                    "{bins} bins {:?}",
                    dev.backend()
                );
            }
            let got = even_on(&dev, &x, bins, 0.0, 1.0);
            assert_eq!(got.iter().map(|&c| c as usize).sum::<usize>(), n);
        }
    }
}

#[test]
fn lengths_around_the_grid() {
    let mut rng = Rng::new(33);
    for n in [0usize, 1, 31, 1023, 4095, 4097, 12_289] {
        let x: Vec<u16> = (0..n).map(|_| rng.next_u64() as u16).collect();
        for dev in devices("lengths_around_the_grid") {
            for bins in [1usize, 256, 65536] {
                // Counts are zeroed even for an empty input.
                assert_eq!(
                    even_on(&dev, &x, bins, 0, 65536),
                    cpu(&x, bins, |v| int_bin(v as i128, 0, 65536, bins)),
                    "n {n} bins {bins} {:?}",
                    dev.backend()
                );
            }
        }
    }
}

/// Enough samples for many rounds of the kernels' four-sample loop, on every path: shared
/// memory with a copy a warp (256 bins), with one copy (12288), and global atomics (65536);
/// uniform, one-value and two-value data.
#[test]
fn many_rounds_on_every_path() {
    let mut rng = Rng::new(35);
    let n = 70_001;
    let uniform: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
        .collect();
    let one = vec![0.75f32; n];
    let two: Vec<f32> = (0..n).map(|i| if i % 3 == 0 { 0.1 } else { 0.9 }).collect();
    for dev in devices("many_rounds_on_every_path") {
        for bins in [256usize, 12288, 65536] {
            for x in [&uniform, &one, &two] {
                assert_eq!(
                    even_on(&dev, x, bins, 0.0, 1.0),
                    cpu(x, bins, |v| f32_bin(v, 0.0, 1.0, bins)),
                    "{bins} bins {:?}",
                    dev.backend()
                );
            }
        }
    }
}

#[test]
fn lo_and_hi_outside_the_data() {
    let x: Vec<i32> = (0..2000).collect();
    for dev in devices("lo_and_hi_outside_the_data") {
        assert_eq!(even_on(&dev, &x, 8, 5000, 6000), vec![0; 8]);
        assert_eq!(even_on(&dev, &x, 8, -100, -1), vec![0; 8]);
        // No value of the type in [lo, hi): the counts are zeroed, nothing else runs.
        assert_eq!(even_on(&dev, &x, 8, 1 << 40, 1 << 41), vec![0; 8]);
        let bytes = dev.upload(&[0u8, 255, 7]).unwrap();
        let mut c = dev.upload(&[POISON; 2]).unwrap();
        histogram::even(&dev, &bytes, &mut c, -10, 0).unwrap();
        assert_eq!(c.download().unwrap(), vec![0, 0]);
        histogram::even(&dev, &bytes, &mut c, 0, 512).unwrap();
        assert_eq!(c.download().unwrap(), vec![3, 0]);
        let wide = even_on(&dev, &x, 4, -10_000, 10_000);
        assert_eq!(wide, vec![0, 0, 2000, 0]);
    }
}

#[test]
fn range_bins_are_the_levels() {
    let mut rng = Rng::new(34);
    // Uneven float levels, with NaN, infinite and edge samples.
    let levels: Vec<f32> = vec![-3.0, -1.0, -0.5, 0.0, 0.25, 1.0, 10.0];
    let mut x: Vec<f32> = (0..3000)
        .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 16.0 - 4.0)
        .collect();
    x.extend(levels.iter().flat_map(|&l| [l, l.next_down(), l.next_up()]));
    x.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]);
    // Integer levels, 256 and 65536 bins (shared memory and global atomics).
    let ints: Vec<i64> = (0..4000).map(|_| rng.next_u64() as i64 >> 44).collect();
    let mut many: Vec<i64> = (0..=65536i64).map(|i| i * 7 - 200_000).collect();
    many[0] = i64::MIN;
    let few: Vec<i64> = (0..=256i64).map(|i| i * i * 3 - 50_000).collect();
    for dev in devices("range_bins_are_the_levels") {
        assert_eq!(
            range_on(&dev, &x, &levels),
            cpu(&x, 6, |v| level_bin(v, &levels))
        );
        for l in [&many, &few] {
            assert_eq!(
                range_on(&dev, &ints, l),
                cpu(&ints, l.len() - 1, |v| level_bin(v, l)),
                "{} levels {:?}",
                l.len(),
                dev.backend()
            );
        }
        // One bin; one-value data.
        assert_eq!(range_on(&dev, &[2u8; 1000], &[2, 3]), vec![1000]);
        assert_eq!(
            range_on(&dev, &[7u8; 100], &[0, 7, 8, 255]),
            vec![0, 100, 0]
        );
        // Empty input, with scratch of the caller.
        let e = dev.upload::<f32>(&[]).unwrap();
        let mut counts = dev.upload(&[POISON; 6]).unwrap();
        let mut scratch = dev.zeros::<f32>(10).unwrap();
        histogram::range_with_scratch(&dev, &e, &levels, &mut counts, &mut scratch).unwrap();
        assert_eq!(counts.download().unwrap(), vec![0; 6]);
    }
}

#[test]
fn views_and_streams_are_counted() {
    for dev in devices("views_and_streams_are_counted") {
        let x = dev.upload(&(0..1000u32).collect::<Vec<_>>()).unwrap();
        let s = dev.create_stream().unwrap();
        let mut counts = dev.upload(&[POISON; 6]).unwrap();
        histogram::even(&s, &x.slice(100..300), &mut counts.slice_mut(1..5), 0, 400).unwrap();
        s.synchronize().unwrap();
        assert_eq!(
            counts.download().unwrap(),
            vec![POISON, 0, 100, 100, 0, POISON]
        );
        // Levels uploaded for the call, and into the caller's scratch, on a stream, twice.
        let levels = [0u32, 10, 500, 999];
        let mut scratch = dev.zeros::<u32>(4).unwrap();
        for _ in 0..2 {
            histogram::range(&s, &x.slice(5..), &levels, &mut counts.slice_mut(..3)).unwrap();
            histogram::range_with_scratch(
                &s,
                &x,
                &levels,
                &mut counts.slice_mut(3..),
                &mut scratch,
            )
            .unwrap();
        }
        s.synchronize().unwrap();
        assert_eq!(counts.download().unwrap(), vec![5, 490, 499, 10, 490, 499]);
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    for dev in devices("bad_input_is_refused_before_anything_runs") {
        let x = dev.upload(&[1.0f32, 2.0]).unwrap();
        let xi = dev.upload(&[1i32, 2]).unwrap();
        let mut counts = dev.upload(&[POISON; 4]).unwrap();
        let mut none = dev.upload::<u32>(&[]).unwrap();
        let mut huge = dev.zeros::<u32>(65537).unwrap();
        let msg = |e: warpspeed::Error| e.to_string();
        let even = |c: &mut warpspeed::DeviceBuffer<u32>, lo: f32, hi: f32| {
            histogram::even(&dev, &x, c, lo, hi)
                .map_err(msg)
                .unwrap_err()
        };
        assert!(even(&mut counts, 1.0, 1.0).contains("lo 1 must be below hi 1"));
        assert!(even(&mut counts, 2.0, 1.0).contains("must be below"));
        assert!(even(&mut counts, f32::NAN, 1.0).contains("must be below"));
        assert!(even(&mut counts, 0.0, f32::NAN).contains("must be below"));
        assert!(even(&mut counts, -f32::MAX, f32::MAX).contains("not finite"));
        assert!(even(&mut counts, 0.0, f32::INFINITY).contains("not finite"));
        assert!(even(&mut counts, 0.0, 1e-45).contains("not finite"));
        assert!(even(&mut none, 0.0, 1.0).contains("0 bins"));
        assert!(even(&mut huge, 0.0, 1.0).contains("65537 bins"));
        let e = histogram::even(&dev, &xi, &mut counts, 5, -5).unwrap_err();
        assert!(msg(e).contains("lo 5 must be below hi -5"));
        let e = histogram::even(&dev, &xi, &mut counts, -1, 1 << 64).unwrap_err();
        assert!(msg(e).contains("passes 2^64"));
        let range = |levels: &[f32], c: &mut warpspeed::DeviceBuffer<u32>| {
            histogram::range(&dev, &x, levels, c)
                .map_err(msg)
                .unwrap_err()
        };
        assert!(range(&[0.0, 1.0, 2.0], &mut counts).contains("expected 5 elements, got 3"));
        assert!(range(&[0.0, 1.0, 1.0, 2.0, 3.0], &mut counts).contains("ascend strictly"));
        assert!(range(&[0.0, 2.0, 1.0, 3.0, 4.0], &mut counts).contains("levels[1] = 2.0"));
        assert!(range(&[0.0, f32::NAN, 1.0, 3.0, 4.0], &mut counts).contains("ascend"));
        assert!(range(&[0.0], &mut none).contains("0 bins"));
        let mut short = dev.zeros::<f32>(4).unwrap();
        let e = histogram::range_with_scratch(
            &dev,
            &x,
            &[0.0, 1.0, 2.0, 3.0, 4.0],
            &mut counts,
            &mut short,
        )
        .unwrap_err();
        assert!(msg(e).contains("expected 5 elements, got 4"));
        // Nothing ran: the counts still hold the poison.
        assert_eq!(counts.download().unwrap(), vec![POISON; 4]);
    }
}

/// Every index of the histogram kernels is proven in bounds: the checked forms keep no
/// check.
#[test]
fn the_histogram_kernels_keep_no_check() {
    use histogram::kernels as k;
    for (name, c) in [
        ("zero_counts", k::zero_counts::cuda_source()),
        (
            "even_shared_float",
            k::even_shared_float::cuda_source::<f32>(),
        ),
        (
            "even_global_float",
            k::even_global_float::cuda_source::<f64>(),
        ),
        ("even_shared_int", k::even_shared_int::cuda_source::<i64>()),
        ("even_global_int", k::even_global_int::cuda_source::<u8>()),
        ("range_shared", k::range_shared::cuda_source::<f32>()),
        ("range_global", k::range_global::cuda_source::<u32>()),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{name} keeps {check}: {body}");
        }
    }
}

#[test]
fn nvrtc_compiles_the_histogram_kernels() {
    use histogram::kernels as k;
    use histogram::unchecked as u;
    nvrtc_compiles(&[
        ("zero_counts", k::zero_counts::kernel()),
        (
            "even_shared_float f32",
            k::even_shared_float::kernel::<f32>(),
        ),
        (
            "even_shared_float f64",
            k::even_shared_float::kernel::<f64>(),
        ),
        (
            "even_global_float f32",
            k::even_global_float::kernel::<f32>(),
        ),
        ("even_shared_int i8", k::even_shared_int::kernel::<i8>()),
        ("even_shared_int u64", k::even_shared_int::kernel::<u64>()),
        ("even_global_int i64", k::even_global_int::kernel::<i64>()),
        ("range_shared f64", k::range_shared::kernel::<f64>()),
        ("range_global i16", k::range_global::kernel::<i16>()),
        (
            "unchecked even_shared_float f32",
            u::even_shared_float::kernel::<f32>(),
        ),
        (
            "unchecked even_global_float f32",
            u::even_global_float::kernel::<f32>(),
        ),
        (
            "unchecked range_shared u32",
            u::range_shared::kernel::<u32>(),
        ),
    ]);
}
