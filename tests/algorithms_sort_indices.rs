//! `sort::sort_with_indices` (torch.sort's indices, a stable argsort): keys of 1, 2, 4
//! and 8 bytes (one pass to eight) with indices of 4 and 8 bytes, both orders, against the
//! CPU's stable sort, at lengths around the tile with few distinct keys (so stability
//! shows), floats with NaNs and signed zeros; the indices poisoned first, so an unwritten
//! one shows; a view and a stream with reused scratch; bad input refused.

mod common;
use common::{devices, Rng};
use warpspeed::algorithms::sort::{self, Order, Scratch, SortIndex, SortKey};
use warpspeed::prelude::*;

const LENGTHS: [usize; 6] = [0, 1, 2, 4095, 4097, 9001];

/// The CPU's stable sorting permutation of `keys` (descending: by the reversed order).
fn cpu_permutation<K>(
    keys: &[K],
    order: Order,
    cmp: impl Fn(&K, &K) -> std::cmp::Ordering,
) -> Vec<usize> {
    let mut p: Vec<usize> = (0..keys.len()).collect();
    match order {
        Order::Ascending => p.sort_by(|&a, &b| cmp(&keys[a], &keys[b])),
        Order::Descending => p.sort_by(|&a, &b| cmp(&keys[b], &keys[a])),
    }
    p
}

/// Sorts `keys` with indices of `I` on every device, both ways (the allocating entries
/// and, on a stream, the scratch one), and compares keys by bits and indices exactly.
fn check<
    K: SortKey + std::fmt::Debug,
    I: SortIndex + TryFrom<usize> + std::fmt::Debug + PartialEq,
>(
    what: &str,
    keys: &[K],
    cmp: impl Fn(&K, &K) -> std::cmp::Ordering + Copy,
    bits: impl Fn(&K) -> u64 + Copy,
    poison: I,
) {
    let n = keys.len();
    for order in [Order::Ascending, Order::Descending] {
        let perm = cpu_permutation(keys, order, cmp);
        let want_bits: Vec<u64> = perm.iter().map(|&i| bits(&keys[i])).collect();
        let want_index: Vec<I> = perm
            .iter()
            .map(|&i| I::try_from(i).ok().expect("fits"))
            .collect();
        for dev in devices(what) {
            let how = format!("{what} n {n} {order:?} {:?}", dev.backend());
            let mut d = dev.upload(keys).unwrap();
            let mut idx = dev.upload(&vec![poison; n]).unwrap();
            match order {
                Order::Ascending => sort::sort_with_indices(&dev, &mut d, &mut idx).unwrap(),
                Order::Descending => {
                    sort::sort_with_indices_descending(&dev, &mut d, &mut idx).unwrap()
                }
            }
            let got: Vec<u64> = d.download().unwrap().iter().map(bits).collect();
            assert_eq!(got, want_bits, "{how}: keys");
            assert_eq!(idx.download().unwrap(), want_index, "{how}: indices");

            // A view of the indices between poisoned neighbours, on a stream, with scratch
            // made for more keys and used twice.
            let stream = dev.create_stream().unwrap();
            let mut scratch = Scratch::<K, I>::with_values(&dev, n + 7).unwrap();
            for _ in 0..2 {
                let mut d = dev.upload(keys).unwrap();
                let mut wide = dev.upload(&vec![poison; n + 3]).unwrap();
                let mut view = wide.slice_mut(2..2 + n);
                sort::sort_with_indices_with_scratch(
                    &stream,
                    &mut d,
                    &mut view,
                    order,
                    &mut scratch,
                )
                .unwrap();
                stream.synchronize().unwrap();
                let got = wide.download().unwrap();
                assert_eq!(
                    &got[2..2 + n],
                    &want_index[..],
                    "{how}: indices of the view"
                );
                assert_eq!(&got[..2], &[poison, poison], "{how}: before the view");
                assert_eq!(got[2 + n], poison, "{how}: after the view");
            }
        }
    }
}

#[test]
fn i32_keys_with_i64_and_u32_indices() {
    let mut rng = Rng::new(71);
    for n in LENGTHS {
        let keys: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
        check("i32 i64", &keys, Ord::cmp, |&k| k as u32 as u64, -5i64);
        // Few distinct keys: long runs of equal keys, whose indices show stability.
        let few: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 7) as i32 - 3).collect();
        check(
            "i32 few u32",
            &few,
            Ord::cmp,
            |&k| k as u32 as u64,
            u32::MAX,
        );
    }
}

#[test]
fn floats_in_total_order_with_their_positions() {
    let mut rng = Rng::new(72);
    let special = [
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
    ];
    for n in [5usize, 4097] {
        let keys: Vec<f32> = (0..n)
            .map(|i| match i % 5 {
                0 => special[(rng.next_u64() % 7) as usize],
                _ => rng.range_f32(-4.0, 4.0).round(),
            })
            .collect();
        check(
            "f32 usize",
            &keys,
            f32::total_cmp,
            |&k| k.to_bits() as u64,
            usize::MAX,
        );
        let wide: Vec<f64> = keys.iter().map(|&k| k as f64).collect();
        check("f64 i32", &wide, f64::total_cmp, |&k| k.to_bits(), -1i32);
    }
}

#[test]
fn one_pass_two_passes_and_eight() {
    let mut rng = Rng::new(73);
    for n in [1usize, 3000, 4097] {
        // u8: one pass, an odd count (the result copied back); u16: two; i64: eight.
        let bytes: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 9) as u8).collect();
        check("u8 u64", &bytes, Ord::cmp, |&k| k as u64, 7u64);
        let halves: Vec<u16> = (0..n).map(|_| rng.next_u64() as u16).collect();
        check("u16 i64", &halves, Ord::cmp, |&k| k as u64, 7i64);
        let longs: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() % 1000) as i64 - 500)
            .collect();
        check("i64 i64", &longs, Ord::cmp, |&k| k as u64, -9i64);
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let dev = Device::simulator();
    let keys: Vec<u32> = (0..100).rev().collect();
    let mut d = dev.upload(&keys).unwrap();
    let mut short = dev.zeros::<i64>(99).unwrap();
    let e = sort::sort_with_indices(&dev, &mut d, &mut short).unwrap_err();
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
    assert!(e.to_string().contains("the indices"), "{e}");
    let mut idx = dev.zeros::<u32>(100).unwrap();
    let mut no_values = Scratch::<u32>::new(&dev, 100).unwrap();
    let e = sort::sort_with_indices_with_scratch(
        &dev,
        &mut d,
        &mut idx,
        Order::Ascending,
        &mut no_values,
    )
    .unwrap_err();
    assert!(e.to_string().contains("Scratch::with_values"), "{e}");
    assert_eq!(d.download().unwrap(), keys, "the keys are untouched");
}

#[test]
fn the_position_kernels_compile_with_nvrtc_and_keep_no_check() {
    use sort::kernels as k;
    common::nvrtc_compiles(&[
        ("iota", k::iota::kernel()),
        ("widen_positions", k::widen_positions::kernel()),
    ]);
    // Both loops' indexes are below the slices' lengths (the loop bound and the guard):
    // nothing is left to check.
    for (name, c) in [
        ("iota", k::iota::cuda_source()),
        ("widen_positions", k::widen_positions::cuda_source()),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        let checks: usize = ["ws_ld(", "ws_at("]
            .iter()
            .map(|check| body.matches(check).count())
            .sum();
        assert_eq!(checks, 0, "{name} keeps {checks} checks: {body}");
    }
}
