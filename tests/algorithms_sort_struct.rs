//! `warpspeed::algorithms::sort` with values that are not kernel scalars (issue 22,
//! "generic over `#[gpu_struct]` values"): structs of 3, 6, 8, 12 and 16 bytes (padded and
//! not, with `f64` and `u8` fields), vectors and `f16x2`, sorted with random keys with many
//! duplicates, ascending and descending, against the CPU's stable sort; views at an offset
//! (the rest of the buffer untouched), a stream and a reused scratch; `sort::gather` of
//! scalars and structs into poisoned outputs; bad input refused before anything runs; the
//! gather kernels compile with NVRTC and keep one bounds check.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use std::fmt::Debug;
use warpspeed::algorithms::sort::{self, Order, Scratch, SortKey};
use warpspeed::prelude::*;
use warpspeed::KernelScalar;

/// 12 bytes, 3 of them padding: moved by positions, as 4-byte words.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    id: u32,
    score: f32,
    tag: u8,
}

/// 12 bytes without padding.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vec3 {
    x: f32,
    y: f32,
    z: f32,
}

/// 8 bytes with an `f64`: rides the passes as a `u64`.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass {
    kg: f64,
}

/// 8 bytes of two 4-byte fields (aligned to 4): rides the passes as a `u64`.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    start: u32,
    len: f32,
}

/// 16 bytes, 2 of them padding, aligned to 8: moved by positions, as 8-byte words.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle16 {
    energy: f64,
    id: u32,
    kind: u16,
}

/// 6 bytes: moved by positions, as 2-byte words.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgb16 {
    r: u16,
    g: u16,
    b: u16,
}

/// 3 bytes: moved by positions, as bytes.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgb8 {
    r: u8,
    g: u8,
    b: bool,
}

/// The CPU's stable sort of `keys` with `values` (descending: by the reversed order, still
/// stable).
fn cpu_sort<K: Copy + Ord, V: Copy>(keys: &[K], values: &[V], order: Order) -> (Vec<K>, Vec<V>) {
    let mut pairs: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
    match order {
        Order::Ascending => pairs.sort_by_key(|p| p.0),
        Order::Descending => pairs.sort_by_key(|p| std::cmp::Reverse(p.0)),
    }
    pairs.into_iter().unzip()
}

/// Sorts `keys` with `values` on every device, both ways, by `sort_pairs` and
/// `sort_pairs_descending`, and compares with the CPU's.
fn check<K, V>(what: &str, keys: &[K], values: &[V])
where
    K: SortKey + Ord + Debug,
    V: KernelScalar + PartialEq + Debug,
{
    let n = keys.len();
    for order in [Order::Ascending, Order::Descending] {
        let (want_keys, want_values) = cpu_sort(keys, values, order);
        for dev in devices(what) {
            let mut k = dev.upload(keys).unwrap();
            let mut v = dev.upload(values).unwrap();
            match order {
                Order::Ascending => sort::sort_pairs(&dev, &mut k, &mut v).unwrap(),
                Order::Descending => sort::sort_pairs_descending(&dev, &mut k, &mut v).unwrap(),
            }
            let b = dev.backend();
            assert_eq!(
                k.download().unwrap(),
                want_keys,
                "{what} n {n} {order:?} keys {b:?}"
            );
            let got = v.download().unwrap();
            let bad = got.iter().zip(&want_values).position(|(a, b)| a != b);
            assert!(
                bad.is_none(),
                "{what} n {n} {order:?} {b:?}: first difference at {bad:?}: {:?} != {:?}",
                bad.map(|i| got[i]),
                bad.map(|i| want_values[i])
            );
        }
    }
}

/// `n` keys of few distinct values (stability shows), and a value made from each index.
fn random_keys(rng: &mut Rng, n: usize, distinct: u64) -> Vec<i32> {
    (0..n)
        .map(|_| (rng.next_u64() % distinct) as i32 - 20)
        .collect()
}

#[test]
fn structs_moved_by_positions_are_stable_both_ways() {
    let mut rng = Rng::new(61);
    for n in [0usize, 1, 2, 4097, 5000] {
        let keys = random_keys(&mut rng, n, 40);
        let hits: Vec<Hit> = (0..n)
            .map(|i| Hit {
                id: i as u32,
                score: i as f32 * 0.25 - 3.0,
                tag: (i % 251) as u8,
            })
            .collect();
        check("Hit (12 bytes, padded)", &keys, &hits);
    }
    let n = 3000;
    let keys: Vec<u8> = (0..n).map(|_| (rng.next_u64() % 7) as u8).collect();
    let v: Vec<Vec3> = (0..n)
        .map(|i| Vec3 {
            x: i as f32,
            y: -(i as f32),
            z: 0.5,
        })
        .collect();
    check("Vec3 (12 bytes)", &keys, &v);
    let keys: Vec<u64> = (0..n)
        .map(|_| rng.next_u64() % 100 * 1_000_000_007)
        .collect();
    let v: Vec<Particle16> = (0..n)
        .map(|i| Particle16 {
            energy: i as f64 / 3.0,
            id: i as u32,
            kind: (i * 7) as u16,
        })
        .collect();
    check("Particle16 (16 bytes, f64)", &keys, &v);
    let keys: Vec<i16> = (0..n).map(|_| (rng.next_u64() % 50) as i16 - 25).collect();
    let v: Vec<Rgb16> = (0..n)
        .map(|i| Rgb16 {
            r: i as u16,
            g: (i * 3) as u16,
            b: (i * 5) as u16,
        })
        .collect();
    check("Rgb16 (6 bytes)", &keys, &v);
    let v: Vec<Rgb8> = (0..n)
        .map(|i| Rgb8 {
            r: i as u8,
            g: (i / 256) as u8,
            b: i % 3 == 0,
        })
        .collect();
    check("Rgb8 (3 bytes, bool)", &keys, &v);
}

#[test]
fn eight_byte_structs_vectors_and_halves_ride_the_passes() {
    let mut rng = Rng::new(62);
    let n = 4500;
    let keys = random_keys(&mut rng, n, 30);
    let mass: Vec<Mass> = (0..n).map(|i| Mass { kg: i as f64 * 1.5 }).collect();
    check("Mass (8 bytes, f64)", &keys, &mass);
    let spans: Vec<Span> = (0..n)
        .map(|i| Span {
            start: i as u32,
            len: i as f32,
        })
        .collect();
    check("Span (8 bytes, 2 fields)", &keys, &spans);
    let v4: Vec<f32x4> = (0..n)
        .map(|i| f32x4::new(i as f32, 1.0, -(i as f32), 2.0))
        .collect();
    check("f32x4 (16 bytes, by positions)", &keys, &v4);
    let h2: Vec<f16x2> = (0..n)
        .map(|i| f16x2::new(f16::from_f32(i as f32), f16::from_f32(-1.0)))
        .collect();
    check("f16x2 (4 bytes)", &keys, &h2);
}

#[test]
fn views_streams_and_reused_scratch_with_struct_values() {
    let mut rng = Rng::new(63);
    let n = 6000;
    let keys = random_keys(&mut rng, n, 25);
    let hits: Vec<Hit> = (0..n)
        .map(|i| Hit {
            id: i as u32,
            score: i as f32,
            tag: i as u8,
        })
        .collect();
    for dev in devices("views_streams_and_reused_scratch_with_struct_values") {
        // Views at an offset: only their range moves, the rest stays as it was.
        let (a, b) = (123, 5321);
        let mut k = dev.upload(&keys).unwrap();
        let mut v = dev.upload(&hits).unwrap();
        sort::sort_pairs_descending(&dev, &mut k.slice_mut(a..b), &mut v.slice_mut(a + 7..b + 7))
            .unwrap();
        let (wk, wv) = cpu_sort(&keys[a..b], &hits[a + 7..b + 7], Order::Descending);
        let (gk, gv) = (k.download().unwrap(), v.download().unwrap());
        assert_eq!(&gk[a..b], &wk[..], "{:?}", dev.backend());
        assert_eq!(&gv[a + 7..b + 7], &wv[..], "{:?}", dev.backend());
        assert_eq!(&gk[..a], &keys[..a]);
        assert_eq!(&gk[b..], &keys[b..]);
        assert_eq!(&gv[..a + 7], &hits[..a + 7]);
        assert_eq!(&gv[b + 7..], &hits[b + 7..]);
        // On a stream, one scratch for sorts of several lengths, both ways and keys alone.
        let stream = dev.create_stream().unwrap();
        let mut scratch = Scratch::<i32, Hit>::with_values(&dev, n).unwrap();
        assert_eq!(scratch.capacity(), n);
        for (len, order) in [
            (n, Order::Ascending),
            (17, Order::Descending),
            (4096, Order::Ascending),
        ] {
            let mut k = dev.upload(&keys[..len]).unwrap();
            let mut v = dev.upload(&hits[..len]).unwrap();
            sort::sort_pairs_with_scratch(&stream, &mut k, &mut v, order, &mut scratch).unwrap();
            stream.synchronize().unwrap();
            let (wk, wv) = cpu_sort(&keys[..len], &hits[..len], order);
            assert_eq!(k.download().unwrap(), wk, "{len} {order:?}");
            assert_eq!(v.download().unwrap(), wv, "{len} {order:?}");
            let mut k = dev.upload(&keys[..len]).unwrap();
            sort::sort_with_scratch(&stream, &mut k, order, &mut scratch).unwrap();
            assert_eq!(k.download().unwrap(), wk);
        }
        // Equal keys everywhere: the values stay in input order, both ways.
        let same = vec![5i32; 4100];
        let mut k = dev.upload(&same).unwrap();
        let mut v = dev.upload(&hits[..4100]).unwrap();
        sort::sort_pairs_descending(&dev, &mut k, &mut v).unwrap();
        assert_eq!(v.download().unwrap(), &hits[..4100]);
        // Already sorted, and reversed.
        let sorted: Vec<i32> = (0..4100).collect();
        let mut k = dev.upload(&sorted).unwrap();
        let mut v = dev.upload(&hits[..4100]).unwrap();
        sort::sort_pairs(&dev, &mut k, &mut v).unwrap();
        assert_eq!(v.download().unwrap(), &hits[..4100]);
        sort::sort_pairs_descending(&dev, &mut k, &mut v).unwrap();
        let reversed: Vec<Hit> = hits[..4100].iter().rev().copied().collect();
        assert_eq!(v.download().unwrap(), reversed);
    }
}

#[test]
fn float_keys_with_nans_carry_struct_values() {
    let n = 3000;
    let keys: Vec<f32> = (0..n)
        .map(|i| match i % 11 {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => -0.0,
            3 => 0.0,
            _ => (i % 37) as f32 - 18.0,
        })
        .collect();
    let v: Vec<Vec3> = (0..n)
        .map(|i| Vec3 {
            x: i as f32,
            y: 0.0,
            z: 1.0,
        })
        .collect();
    let mut pairs: Vec<(f32, Vec3)> = keys.iter().copied().zip(v.iter().copied()).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let want: Vec<Vec3> = pairs.iter().map(|p| p.1).collect();
    let want_bits: Vec<u32> = pairs.iter().map(|p| p.0.to_bits()).collect();
    for dev in devices("float_keys_with_nans_carry_struct_values") {
        let mut k = dev.upload(&keys).unwrap();
        let mut d = dev.upload(&v).unwrap();
        sort::sort_pairs(&dev, &mut k, &mut d).unwrap();
        let got: Vec<u32> = k.download().unwrap().iter().map(|k| k.to_bits()).collect();
        assert_eq!(got, want_bits);
        assert_eq!(d.download().unwrap(), want);
    }
}

#[test]
fn gather_of_scalars_and_structs_into_poisoned_outputs() {
    let mut rng = Rng::new(64);
    let n = 3000;
    let m = 2500;
    // In range of the source's view from 5 on, too.
    let idx: Vec<u32> = (0..m)
        .map(|_| (rng.next_u64() % (n as u64 - 5)) as u32)
        .collect();
    let src: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let hits: Vec<Hit> = (0..n)
        .map(|i| Hit {
            id: i as u32,
            score: -(i as f32),
            tag: i as u8,
        })
        .collect();
    let poison_hit = Hit {
        id: 0xdead_beef,
        score: -7.5e30,
        tag: 0xee,
    };
    for dev in devices("gather_of_scalars_and_structs_into_poisoned_outputs") {
        let d_idx = dev.upload(&idx).unwrap();
        let d_src = dev.upload(&src).unwrap();
        let mut out = dev.upload(&vec![f32::NAN; m]).unwrap();
        sort::gather(&dev, &d_src, &d_idx, &mut out).unwrap();
        let want: Vec<f32> = idx.iter().map(|&i| src[i as usize]).collect();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
        // Structs, from a view into a view (the output's other elements untouched).
        let d_hits = dev.upload(&hits).unwrap();
        let mut out = dev.upload(&vec![poison_hit; m + 10]).unwrap();
        sort::gather(
            &dev,
            &d_hits.slice(5..),
            &d_idx.slice(..m - 100),
            &mut out.slice_mut(10..m - 90),
        )
        .unwrap();
        let got = out.download().unwrap();
        let want: Vec<Hit> = idx[..m - 100]
            .iter()
            .map(|&i| hits[i as usize + 5])
            .collect();
        assert_eq!(&got[10..m - 90], &want[..], "{:?}", dev.backend());
        assert!(got[..10]
            .iter()
            .chain(&got[m - 90..])
            .all(|h| *h == poison_hit));
        // The permutation of a sort, applied by gather: the values sorted with the keys.
        let keys = random_keys(&mut rng, n, 30);
        let mut k = dev.upload(&keys).unwrap();
        let mut at = dev.upload(&(0..n as u32).collect::<Vec<_>>()).unwrap();
        sort::sort_pairs(&dev, &mut k, &mut at).unwrap();
        let mut out = dev.upload(&vec![poison_hit; n]).unwrap();
        sort::gather(&dev, &d_hits, &at, &mut out).unwrap();
        assert_eq!(
            out.download().unwrap(),
            cpu_sort(&keys, &hits, Order::Ascending).1
        );
        // Nothing to gather.
        let mut empty = dev.zeros::<Hit>(0).unwrap();
        sort::gather(&dev, &d_hits, &d_idx.slice(..0), &mut empty).unwrap();
    }
}

#[test]
fn bad_input_is_refused_before_anything_runs() {
    let dev = Device::simulator();
    let keys: Vec<u32> = (0..100).rev().collect();
    let hits: Vec<Hit> = (0..100)
        .map(|i| Hit {
            id: i,
            score: 0.0,
            tag: 1,
        })
        .collect();
    let mut k = dev.upload(&keys).unwrap();
    let mut short = dev.upload(&hits[..99]).unwrap();
    let e = sort::sort_pairs(&dev, &mut k, &mut short).unwrap_err();
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
    let mut v = dev.upload(&hits).unwrap();
    let mut small = Scratch::<u32, Hit>::with_values(&dev, 50).unwrap();
    let e = sort::sort_pairs_with_scratch(&dev, &mut k, &mut v, Order::Ascending, &mut small)
        .unwrap_err();
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
    assert_eq!(k.download().unwrap(), keys, "the keys are untouched");
    assert_eq!(v.download().unwrap(), hits, "the values are untouched");
    // gather: the indices' length is the output's.
    let idx = dev.upload(&[0u32, 1, 2]).unwrap();
    let mut out = dev.upload(&hits[..4]).unwrap();
    let e = sort::gather(&dev, &v, &idx, &mut out).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(out.download().unwrap(), &hits[..4]);
    // An index past the source is the gather's bounds fault.
    let far = dev.upload(&[0u32, 100, 1]).unwrap();
    let mut out = dev.upload(&hits[..3]).unwrap();
    let e = sort::gather(&dev, &v, &far, &mut out)
        .and_then(|()| dev.synchronize())
        .unwrap_err();
    assert!(matches!(e, Error::OutOfBounds { .. }), "{e}");
    let scalars = dev.upload(&keys).unwrap();
    let mut out = dev.zeros::<u32>(3).unwrap();
    let e = sort::gather(&dev, &scalars, &far, &mut out)
        .and_then(|()| dev.synchronize())
        .unwrap_err();
    assert!(matches!(e, Error::OutOfBounds { .. }), "{e}");
}

#[test]
fn the_gather_kernels_compile_with_nvrtc() {
    use sort::kernels as k;
    nvrtc_compiles(&[
        ("gather f32", k::gather::kernel::<f32>()),
        ("gather bool", k::gather::kernel::<bool>()),
        ("gather_words u8", k::gather_words::kernel::<u8>()),
        ("gather_words u16", k::gather_words::kernel::<u16>()),
        ("gather_words u32", k::gather_words::kernel::<u32>()),
        ("gather_words u64", k::gather_words::kernel::<u64>()),
        (
            "gather_words u64 unchecked",
            k::unchecked::gather_words::kernel::<u64>(),
        ),
    ]);
}

#[test]
fn the_gathers_keep_only_the_read_of_the_source_checked() {
    // The index into the source comes from memory, so its check stays (a bad index in a
    // user's `gather` must fault); the output and the indices are proven or guarded.
    use sort::kernels as k;
    for (name, c) in [
        ("gather", k::gather::cuda_source::<i64>()),
        ("gather_words", k::gather_words::cuda_source::<u32>()),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        let checks: usize = ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("]
            .iter()
            .map(|check| body.matches(check).count())
            .sum();
        assert_eq!(checks, 1, "{name}: {body}");
    }
    for (name, c) in [
        ("gather", k::unchecked::gather::cuda_source::<i64>()),
        (
            "gather_words",
            k::unchecked::gather_words::cuda_source::<u32>(),
        ),
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        assert!(!body.contains("ws_at("), "{name} unchecked: {body}");
    }
}

#[test]
fn words_of_a_view_are_its_elements_bytes() {
    // The runtime's lending of a view's memory as words, which the struct gather uses:
    // refused unless the element is a whole number of words; otherwise the view's own
    // range, word by word, written back into the elements.
    let dev = Device::simulator();
    let px: Vec<Rgb16> = (0..5)
        .map(|i| Rgb16 {
            r: i,
            g: 10 + i,
            b: 20 + i,
        })
        .collect();
    let mut buf = dev.upload(&px).unwrap();
    let mut view = buf.slice_mut(1..4);
    // SAFETY: nothing is written.
    let e = unsafe { view.with_words::<u32, _>(|_| ()) }.unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // SAFETY: the words written are the elements' own, reversed: whole values.
    unsafe {
        view.with_words::<u16, _>(|w| {
            assert_eq!(w.len(), 9);
            let words = w.download().unwrap();
            assert_eq!(words, vec![1, 11, 21, 2, 12, 22, 3, 13, 23]);
            let mut rev: Vec<u16> = words.chunks(3).rev().flatten().copied().collect();
            rev.truncate(9);
            w.copy_from_host(&rev).unwrap();
        })
    }
    .unwrap();
    let got = buf.download().unwrap();
    assert_eq!(got, vec![px[0], px[3], px[2], px[1], px[4]]);
}
