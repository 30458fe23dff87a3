//! `warpspeed::algorithms::sort` (issue 22): every key type, ascending and descending,
//! keys alone and with values, against the CPU's stable sort (`total_cmp` for floats) on
//! random data at lengths around the tile (4096; 2048 for 64-bit keys) and past several
//! histogram chunks; few distinct keys (so stability shows), all equal, sorted, reversed,
//! NaNs of both signs, -0.0 and +0.0; views (the rest of the buffer untouched), a
//! stream, scratch reused; bad input refused before anything runs, the keys untouched.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::sort::{self, Order, Scratch, SortKey};
use warpspeed::prelude::*;

const LENGTHS: [usize; 9] = [0, 1, 2, 255, 2049, 4095, 4096, 4097, 12_289];

/// The CPU's stable sort of `keys` with `values` by `cmp` (descending: reversed).
fn cpu_sort<K: Copy, V: Copy>(
    keys: &[K],
    values: &[V],
    order: Order,
    cmp: impl Fn(&K, &K) -> std::cmp::Ordering,
) -> (Vec<K>, Vec<V>) {
    let mut pairs: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
    match order {
        Order::Ascending => pairs.sort_by(|a, b| cmp(&a.0, &b.0)),
        Order::Descending => pairs.sort_by(|a, b| cmp(&b.0, &a.0)),
    }
    pairs.into_iter().unzip()
}

/// Sorts `keys` (and their indices) on every device, both ways, and compares bits with
/// the CPU's.
fn check<K: SortKey + std::fmt::Debug>(
    what: &str,
    keys: &[K],
    cmp: impl Fn(&K, &K) -> std::cmp::Ordering + Copy,
    bits: impl Fn(&K) -> u64 + Copy,
) {
    let n = keys.len();
    let index: Vec<u32> = (0..n as u32).collect();
    for order in [Order::Ascending, Order::Descending] {
        let (want_keys, want_index) = cpu_sort(keys, &index, order, cmp);
        let want_bits: Vec<u64> = want_keys.iter().map(bits).collect();
        for dev in devices(what) {
            let same = |got: Vec<K>, how: &str| {
                let got: Vec<u64> = got.iter().map(bits).collect();
                let bad = got.iter().zip(&want_bits).position(|(a, b)| a != b);
                assert!(
                    bad.is_none(),
                    "{what} n {n} {order:?} {how} {:?}: first difference at {bad:?}",
                    dev.backend()
                );
            };
            let mut d = dev.upload(keys).unwrap();
            match order {
                Order::Ascending => sort::sort(&dev, &mut d).unwrap(),
                Order::Descending => sort::sort_descending(&dev, &mut d).unwrap(),
            }
            same(d.download().unwrap(), "keys");
            let mut d = dev.upload(keys).unwrap();
            let mut v = dev.upload(&index).unwrap();
            match order {
                Order::Ascending => sort::sort_pairs(&dev, &mut d, &mut v).unwrap(),
                Order::Descending => sort::sort_pairs_descending(&dev, &mut d, &mut v).unwrap(),
            }
            same(d.download().unwrap(), "pairs");
            assert_eq!(
                v.download().unwrap(),
                want_index,
                "{what} n {n} {order:?} values {:?}",
                dev.backend()
            );
        }
    }
}

#[test]
fn u32_keys_at_every_length() {
    let mut rng = Rng::new(51);
    for n in LENGTHS {
        let keys: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        check("u32", &keys, Ord::cmp, |&k| k as u64);
        // Few distinct keys: long runs of equal keys, whose order shows stability.
        let few: Vec<u32> = (0..n)
            .map(|_| (rng.next_u64() % 5) as u32 * 0x0101_0101)
            .collect();
        check("u32 few", &few, Ord::cmp, |&k| k as u64);
    }
}

#[test]
fn every_integer_width() {
    let mut rng = Rng::new(52);
    for n in [1usize, 3001] {
        let r: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        check(
            "u8",
            &r.iter().map(|&x| x as u8).collect::<Vec<_>>(),
            Ord::cmp,
            |&k| k as u64,
        );
        check(
            "i8",
            &r.iter().map(|&x| x as i8).collect::<Vec<_>>(),
            Ord::cmp,
            |&k| k as u64,
        );
        check(
            "u16",
            &r.iter().map(|&x| x as u16).collect::<Vec<_>>(),
            Ord::cmp,
            |&k| k as u64,
        );
        check(
            "i16",
            &r.iter().map(|&x| x as i16).collect::<Vec<_>>(),
            Ord::cmp,
            |&k| k as u64,
        );
        check(
            "i32",
            &r.iter().map(|&x| x as i32).collect::<Vec<_>>(),
            Ord::cmp,
            |&k| k as u64,
        );
        check("u64", &r, Ord::cmp, |&k| k);
        // Small magnitudes too, so the high digits are all 0x00 or 0xff.
        let i: Vec<i64> = r.iter().map(|&x| (x as i64) >> (x % 60)).collect();
        check("i64", &i, Ord::cmp, |&k| k as u64);
        let u: Vec<usize> = r.iter().map(|&x| (x >> (x % 64)) as usize).collect();
        check("usize", &u, Ord::cmp, |&k| k as u64);
    }
}

#[test]
fn floats_in_total_order() {
    let mut rng = Rng::new(53);
    let specials32 = [
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
    ];
    for n in [2usize, 4097, 9000] {
        let keys: Vec<f32> = (0..n)
            .map(|i| {
                if i % 7 == 0 {
                    specials32[(rng.next_u64() % 12) as usize]
                } else {
                    rng.range_f32(-100.0, 100.0)
                }
            })
            .collect();
        check("f32", &keys, f32::total_cmp, |&k| k.to_bits() as u64);
        let keys64: Vec<f64> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| k as f64 * (1.0 + i as f64 * 1e-12))
            .collect();
        check("f64", &keys64, f64::total_cmp, |&k| k.to_bits());
    }
}

#[test]
fn ordered_inputs_and_equal_keys() {
    let n = 5000;
    let sorted: Vec<i32> = (0..n as i32).map(|i| i - 5000).collect();
    let reversed: Vec<i32> = sorted.iter().rev().copied().collect();
    check("sorted", &sorted, Ord::cmp, |&k| k as u64);
    check("reversed", &reversed, Ord::cmp, |&k| k as u64);
    check("equal", &vec![7u32; n], Ord::cmp, |&k| k as u64);
    check("equal f32", &vec![-0.0f32; n], f32::total_cmp, |&k| {
        k.to_bits() as u64
    });
}

#[test]
fn values_of_other_types_move_with_their_keys() {
    let mut rng = Rng::new(54);
    let n = 6000;
    let keys: Vec<u16> = (0..n).map(|_| (rng.next_u64() % 300) as u16).collect();
    let values: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 7.0).collect();
    let bytes: Vec<u8> = (0..n).map(|i| (i * 31 % 251) as u8).collect();
    let (want_keys, want_values) = cpu_sort(&keys, &values, Order::Ascending, Ord::cmp);
    let (_, want_bytes) = cpu_sort(&keys, &bytes, Order::Descending, Ord::cmp);
    for dev in devices("values_of_other_types_move_with_their_keys") {
        let mut k = dev.upload(&keys).unwrap();
        let mut v = dev.upload(&values).unwrap();
        sort::sort_pairs(&dev, &mut k, &mut v).unwrap();
        assert_eq!(k.download().unwrap(), want_keys);
        assert_eq!(v.download().unwrap(), want_values);
        let mut k = dev.upload(&keys).unwrap();
        let mut b = dev.upload(&bytes).unwrap();
        sort::sort_pairs_descending(&dev, &mut k, &mut b).unwrap();
        assert_eq!(b.download().unwrap(), want_bytes);
    }
}

#[test]
fn views_streams_and_reused_scratch() {
    let mut rng = Rng::new(55);
    let n = 9000;
    let keys: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
    for dev in devices("views_streams_and_reused_scratch") {
        // A view: only its range is sorted.
        let mut d = dev.upload(&keys).unwrap();
        sort::sort(&dev, &mut d.slice_mut(100..8000)).unwrap();
        let got = d.download().unwrap();
        let mut want = keys.clone();
        want[100..8000].sort();
        assert_eq!(got, want, "{:?}", dev.backend());
        // On a stream, with one scratch for several sorts of different lengths.
        let stream = dev.create_stream().unwrap();
        let mut scratch = Scratch::<i32, u32>::with_values(&dev, n).unwrap();
        for len in [n, 17, 4096] {
            let mut d = dev.upload(&keys[..len]).unwrap();
            let mut v = dev.upload(&(0..len as u32).collect::<Vec<_>>()).unwrap();
            sort::sort_pairs_with_scratch(&stream, &mut d, &mut v, Order::Descending, &mut scratch)
                .unwrap();
            stream.synchronize().unwrap();
            let (wk, wv) = cpu_sort(
                &keys[..len],
                &(0..len as u32).collect::<Vec<_>>(),
                Order::Descending,
                Ord::cmp,
            );
            assert_eq!(d.download().unwrap(), wk);
            assert_eq!(v.download().unwrap(), wv);
            let mut d = dev.upload(&keys[..len]).unwrap();
            sort::sort_with_scratch(&dev, &mut d, Order::Ascending, &mut scratch).unwrap();
            let mut w = keys[..len].to_vec();
            w.sort();
            assert_eq!(d.download().unwrap(), w);
        }
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let dev = Device::simulator();
    let keys: Vec<u32> = (0..100).rev().collect();
    let mut d = dev.upload(&keys).unwrap();
    let mut short = dev.zeros::<u32>(99).unwrap();
    let e = sort::sort_pairs(&dev, &mut d, &mut short).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 100,
                found: 99,
                ..
            }
        ),
        "{e}"
    );
    let mut small = Scratch::<u32>::new(&dev, 50).unwrap();
    let e = sort::sort_with_scratch(&dev, &mut d, Order::Ascending, &mut small).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 100,
                found: 50,
                ..
            }
        ),
        "{e}"
    );
    let mut no_values = Scratch::<u32>::new(&dev, 100).unwrap();
    let mut v = dev.zeros::<u32>(100).unwrap();
    let e = sort::sort_pairs_with_scratch(&dev, &mut d, &mut v, Order::Ascending, &mut no_values)
        .unwrap_err();
    assert!(e.to_string().contains("Scratch::with_values"), "{e}");
    assert_eq!(d.download().unwrap(), keys, "the keys are untouched");
}

#[test]
fn every_sort_kernel_compiles_with_nvrtc() {
    use sort::kernels as k;
    nvrtc_compiles(&[
        ("digit_bases", k::digit_bases::kernel()),
        ("histogram_u8", k::histogram_u8::kernel()),
        ("histogram_i16", k::histogram_i16::kernel()),
        ("histogram_f32", k::histogram_f32::kernel()),
        ("histogram_f64", k::histogram_f64::kernel()),
        // Every tile of `TILES_32` and `TILES_64`; values as the words the passes move.
        (
            "onesweep_u8",
            k::onesweep_u8::kernel::<u8, 16, 4096, true>(),
        ),
        (
            "onesweep_i16",
            k::onesweep_i16::kernel::<u16, 24, 6144, true>(),
        ),
        (
            "onesweep_u32",
            k::onesweep_wide_u32::kernel::<u32, 32, 8192, false>(),
        ),
        (
            "onesweep_i32",
            k::onesweep_i32::kernel::<u8, 16, 4096, true>(),
        ),
        (
            "onesweep_i32 keys",
            k::onesweep_i32::kernel::<u32, 16, 4096, false>(),
        ),
        (
            "onesweep_i32 8",
            k::onesweep_i32::kernel::<u32, 8, 2048, true>(),
        ),
        (
            "onesweep_i32 24",
            k::onesweep_i32::kernel::<u64, 24, 6144, true>(),
        ),
        (
            "onesweep_i32 32",
            k::onesweep_wide_i32::kernel::<u64, 32, 8192, true>(),
        ),
        (
            "onesweep_f32",
            k::onesweep_f32::kernel::<u64, 16, 4096, true>(),
        ),
        (
            "onesweep_u64",
            k::onesweep_u64::kernel::<u64, 8, 2048, true>(),
        ),
        (
            "onesweep_usize",
            k::onesweep_wide_usize::kernel::<u16, 16, 4096, true>(),
        ),
        (
            "onesweep_f64",
            k::onesweep_f64::kernel::<u32, 8, 2048, false>(),
        ),
        (
            "onesweep_i64 16",
            k::onesweep_wide_i64::kernel::<u64, 16, 4096, true>(),
        ),
        (
            "onesweep_i64 unchecked",
            k::unchecked::onesweep_i64::kernel::<u16, 8, 2048, true>(),
        ),
        (
            "onesweep_i32 unchecked 32",
            k::unchecked::onesweep_wide_i32::kernel::<u64, 32, 8192, true>(),
        ),
    ]);
    use warpspeed::algorithms::kernels::radix_select as r;
    nvrtc_compiles(&[
        ("digit_counts_u8", r::digit_counts_u8::kernel()),
        ("digit_counts_i16", r::digit_counts_i16::kernel()),
        ("digit_counts_f32", r::digit_counts_f32::kernel()),
        ("digit_counts_usize", r::digit_counts_usize::kernel()),
        ("at_least_i32", r::at_least_i32::kernel()),
        ("at_least_f64", r::at_least_f64::kernel()),
        (
            "at_least_u16 unchecked",
            r::unchecked::at_least_u16::kernel(),
        ),
    ]);
}

#[test]
fn the_radix_select_kernels_keep_only_the_lookback_check() {
    use warpspeed::algorithms::kernels::radix_select as r;
    for (name, c) in [
        ("digit_counts_f32", r::digit_counts_f32::cuda_source()),
        ("digit_counts_i64", r::digit_counts_i64::cuda_source()),
        ("at_least_f32", r::at_least_f32::cuda_source()),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        let checks: usize = ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("]
            .iter()
            .map(|check| body.matches(check).count())
            .sum();
        // The select template's look-back status read keeps its one check.
        assert!(checks <= 1, "{name} keeps {checks} checks: {body}");
    }
}

#[test]
fn the_pass_kernels_keep_no_check_and_the_histogram_one() {
    // A pass keeps no check (the look-back's status read is guarded: its index comes from
    // a spin loop), the histogram one, adding into the counts (once a block a pass): every
    // index of the per-key loops is proven or guarded.
    use sort::kernels as k;
    for (name, c, most) in [
        (
            "onesweep_i32",
            k::onesweep_i32::cuda_source::<u64, 16, 4096, true>(),
            0,
        ),
        (
            "onesweep_i32 keys",
            k::onesweep_i32::cuda_source::<u32, 16, 4096, false>(),
            0,
        ),
        (
            "onesweep_i32 24",
            k::onesweep_wide_i32::cuda_source::<u64, 24, 6144, true>(),
            0,
        ),
        (
            "onesweep_u32 32",
            k::onesweep_wide_u32::cuda_source::<u32, 32, 8192, false>(),
            0,
        ),
        (
            "onesweep_f64",
            k::onesweep_f64::cuda_source::<u8, 8, 2048, true>(),
            0,
        ),
        (
            "onesweep_i64 16",
            k::onesweep_wide_i64::cuda_source::<u64, 16, 4096, true>(),
            0,
        ),
        ("histogram_u16", k::histogram_u16::cuda_source(), 1),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        let checks: usize = ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("]
            .iter()
            .map(|check| body.matches(check).count())
            .sum();
        assert!(checks <= most, "{name} keeps {checks} checks: {body}");
    }
}

#[test]
fn the_pass_asks_for_four_blocks_an_sm() {
    // `min_blocks_per_multiprocessor = 4`: 64 registers a thread, 4 blocks of 256 an SM.
    use sort::kernels as k;
    for c in [
        k::onesweep_u32::cuda_source::<u32, 16, 4096, false>(),
        k::unchecked::onesweep_i64::cuda_source::<u32, 8, 2048, false>(),
    ] {
        assert!(c.contains("__launch_bounds__(256, 4)"), "{c}");
    }
    // The larger tiles' twin asks for 2 (128 registers: their keys and ranks fit).
    assert!(k::onesweep_wide_i32::cuda_source::<u32, 32, 8192, false>()
        .contains("__launch_bounds__(256, 2)"));
}

#[test]
fn top_k_is_the_greatest_with_the_lower_index_first() {
    let mut rng = Rng::new(56);
    let n = 5000;
    let x: Vec<f32> = (0..n)
        .map(|i| match i % 97 {
            0 => f32::NAN,
            1 => -f32::NAN,
            _ => (rng.next_u64() % 300) as f32 / 4.0 - 20.0,
        })
        .collect();
    let mut want: Vec<(f32, u32)> = x.iter().copied().zip(0..n as u32).collect();
    want.sort_by(|a, b| b.0.total_cmp(&a.0));
    let ints: Vec<i64> = (0..n).map(|_| rng.next_u64() as i64 >> 3).collect();
    let mut want_ints: Vec<(i64, u32)> = ints.iter().copied().zip(0..n as u32).collect();
    want_ints.sort_by_key(|p| std::cmp::Reverse(p.0));
    for dev in devices("top_k_is_the_greatest_with_the_lower_index_first") {
        let d = dev.upload(&x).unwrap();
        for k in [0usize, 1, 100, 4097, n] {
            let mut values = dev.upload(&vec![7.0f32; k]).unwrap();
            let mut at = dev.upload(&vec![u32::MAX; k]).unwrap();
            sort::top_k(&dev, &d, k, &mut values, &mut at).unwrap();
            let got: Vec<u32> = values
                .download()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            let wanted: Vec<u32> = want[..k].iter().map(|p| p.0.to_bits()).collect();
            assert_eq!(got, wanted, "k {k} {:?}", dev.backend());
            let idx: Vec<u32> = want[..k].iter().map(|p| p.1).collect();
            assert_eq!(at.download().unwrap(), idx, "k {k} {:?}", dev.backend());
        }
        assert_eq!(d.download().unwrap().len(), n, "the input is left as it is");
        let di = dev.upload(&ints).unwrap();
        let (mut v, mut at) = (dev.zeros::<i64>(33).unwrap(), dev.zeros::<u32>(33).unwrap());
        sort::top_k(&dev, &di, 33, &mut v, &mut at).unwrap();
        let w: Vec<i64> = want_ints[..33].iter().map(|p| p.0).collect();
        assert_eq!(v.download().unwrap(), w);
        // Bad input: k past the input, outputs of another length.
        let e = sort::top_k(
            &dev,
            &d,
            n + 1,
            &mut dev.zeros::<f32>(n + 1).unwrap(),
            &mut dev.zeros::<u32>(n + 1).unwrap(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        let e = sort::top_k(
            &dev,
            &d,
            5,
            &mut dev.zeros::<f32>(5).unwrap(),
            &mut dev.zeros::<u32>(4).unwrap(),
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::LengthMismatch {
                    expected: 5,
                    found: 4,
                    ..
                }
            ),
            "{e}"
        );
    }
}

/// `top_k` of `x` by the CPU: the `k` greatest (`total_cmp`-like `cmp` given), ties by
/// lower position.
fn top_k_reference<T: Copy>(
    x: &[T],
    k: usize,
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> (Vec<T>, Vec<u32>) {
    let mut all: Vec<(T, u32)> = x.iter().copied().zip(0..x.len() as u32).collect();
    all.sort_by(|a, b| cmp(&b.0, &a.0));
    all.truncate(k);
    all.into_iter().unzip()
}

#[test]
fn top_k_digit_passes_go_as_deep_as_the_keys_need() {
    // More keys than `k + radix_select::FEW`, so the digit passes do not stop at the
    // first: keys sharing their top bytes (every pass of an i64), a crowd equal to the
    // k-th greatest (ties at the threshold, by position), all equal (every key kept),
    // and f32 with NaNs of both signs and both zeros.
    let mut rng = Rng::new(91);
    let n = sort_fewest() + 3000;
    let deep: Vec<i64> = (0..n)
        .map(|_| 0x1234_5678_0000_0000 + (rng.next_u64() % 5000) as i64)
        .collect();
    let crowd: Vec<u32> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                777
            } else {
                (rng.next_u64() % 700) as u32 + (i as u32 % 2) * 1000
            }
        })
        .collect();
    let same = vec![-3i16; n];
    let floats: Vec<f32> = (0..n)
        .map(|i| match i % 501 {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => 0.0,
            3 => -0.0,
            _ => (rng.next_u64() % 100_000) as f32 * 1e-3,
        })
        .collect();
    for dev in devices("top_k_digit_passes_go_as_deep_as_the_keys_need") {
        for k in [1usize, 77, 2000] {
            let (w, wi) = top_k_reference(&deep, k, |a, b| a.cmp(b));
            let (mut v, mut at) = (
                dev.upload(&vec![0i64; k]).unwrap(),
                dev.upload(&vec![u32::MAX; k]).unwrap(),
            );
            sort::top_k(&dev, &dev.upload(&deep).unwrap(), k, &mut v, &mut at).unwrap();
            assert_eq!(
                (v.download().unwrap(), at.download().unwrap()),
                (w, wi),
                "i64 k {k}"
            );

            let (w, wi) = top_k_reference(&crowd, k, |a, b| a.cmp(b));
            let (mut v, mut at) = (
                dev.upload(&vec![0u32; k]).unwrap(),
                dev.upload(&vec![u32::MAX; k]).unwrap(),
            );
            sort::top_k(&dev, &dev.upload(&crowd).unwrap(), k, &mut v, &mut at).unwrap();
            assert_eq!(
                (v.download().unwrap(), at.download().unwrap()),
                (w, wi),
                "u32 crowd k {k}"
            );

            let (w, wi) = top_k_reference(&same, k, |a, b| a.cmp(b));
            let (mut v, mut at) = (
                dev.upload(&vec![0i16; k]).unwrap(),
                dev.upload(&vec![u32::MAX; k]).unwrap(),
            );
            sort::top_k_unchecked(&dev, &dev.upload(&same).unwrap(), k, &mut v, &mut at).unwrap();
            assert_eq!(
                (v.download().unwrap(), at.download().unwrap()),
                (w, wi),
                "all equal k {k}"
            );

            let (w, wi) = top_k_reference(&floats, k, |a, b| a.total_cmp(b));
            let (mut v, mut at) = (
                dev.upload(&vec![7.0f32; k]).unwrap(),
                dev.upload(&vec![u32::MAX; k]).unwrap(),
            );
            let x = dev.upload(&floats).unwrap();
            sort::top_k(&dev, &x.slice(..), k, &mut v, &mut at).unwrap();
            let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
            assert_eq!(
                (bits(v.download().unwrap()), at.download().unwrap()),
                (bits(w), wi),
                "f32 k {k}"
            );
        }
    }
}

/// Keys past which the digit passes stop.
fn sort_fewest() -> usize {
    warpspeed::algorithms::radix_select::FEW
}
