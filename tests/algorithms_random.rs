//! `warpspeed::algorithms::random` (issue 22): Philox4x32-10 against Random123's known
//! answers and an independent CPU implementation; fills on both backends equal, bit for
//! bit, to the stream's elements computed on the host, whatever the offset and length;
//! Box-Muller's own logarithm and sine/cosine within a few ulp of std's; the moments of
//! large fills; an offset past the stream's end refused.

mod common;
use common::{devices, nvrtc_compiles, Rng};
use warpspeed::algorithms::random;
use warpspeed::prelude::*;

/// Philox4x32-10 as Random123 defines it, written from the paper (not from the library).
fn philox_cpu(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (ctr, key);
    for _ in 0..10 {
        let p0 = 0xD251_1F53u64 * c[0] as u64;
        let p1 = 0xCD9E_8D57u64 * c[2] as u64;
        c = [
            (p1 >> 32) as u32 ^ c[1] ^ k[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ c[3] ^ k[1],
            p0 as u32,
        ];
        k = [
            k[0].wrapping_add(0x9E37_79B9),
            k[1].wrapping_add(0xBB67_AE85),
        ];
    }
    c
}

fn lanes(v: u32x4) -> [u32; 4] {
    [v.x, v.y, v.z, v.w]
}

#[test]
fn philox_gives_random123s_known_answers() {
    // Random123's kat_vectors for philox4x32 with 10 rounds: counter, key, result.
    let kat: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        (
            [0; 4],
            [0; 2],
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
        ),
        (
            [u32::MAX; 4],
            [u32::MAX; 2],
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
        ),
        (
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
        ),
    ];
    for (ctr, key, want) in kat {
        assert_eq!(philox_cpu(ctr, key), want, "the test's own Philox");
        let got = random::philox4x32_10(u32x4::from(ctr), u32x2::new(key[0], key[1]));
        assert_eq!(lanes(got), want);
    }
    let mut rng = Rng::new(51);
    for _ in 0..200 {
        let ctr = [
            rng.next_u32(),
            rng.next_u32(),
            rng.next_u32(),
            rng.next_u32(),
        ];
        let key = [rng.next_u32(), rng.next_u32()];
        let got = random::philox4x32_10(u32x4::from(ctr), u32x2::new(key[0], key[1]));
        assert_eq!(lanes(got), philox_cpu(ctr, key));
    }
}

#[test]
fn fills_are_the_streams_elements_on_both_backends() {
    let seed = 0x5eed_1234_abcd_0042u64;
    let n = 3001;
    let want_u32: Vec<f32> = (0..n as u64)
        .map(|i| random::uniform_f32_at(seed, i))
        .collect();
    let want_n32: Vec<f32> = (0..n as u64)
        .map(|i| random::normal_f32_at(seed, i))
        .collect();
    let want_u64: Vec<f64> = (0..n as u64)
        .map(|i| random::uniform_f64_at(seed, i))
        .collect();
    let want_n64: Vec<f64> = (0..n as u64)
        .map(|i| random::normal_f64_at(seed, i))
        .collect();
    // The host's elements from the test's own Philox: the uniform mapping by hand.
    for i in [0u64, 1, 2, 3, 4, 1001, 3000] {
        let w = philox_cpu(
            [(i / 4) as u32, 0, 0, 0],
            [seed as u32, (seed >> 32) as u32],
        );
        let v = (w[(i % 4) as usize] >> 8) as f32 / 16_777_216.0;
        assert_eq!(want_u32[i as usize].to_bits(), v.to_bits(), "element {i}");
    }
    let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let bits64 = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for dev in devices("fills_are_the_streams_elements_on_both_backends") {
        let b = dev.backend();
        let mut x = dev.upload(&vec![f32::NAN; n]).unwrap();
        random::fill_uniform_f32(&dev, &mut x, seed, 0).unwrap();
        assert_eq!(
            bits32(&x.download().unwrap()),
            bits32(&want_u32),
            "uniform f32 {b:?}"
        );
        random::fill_normal_f32(&dev, &mut x, seed, 0).unwrap();
        assert_eq!(
            bits32(&x.download().unwrap()),
            bits32(&want_n32),
            "normal f32 {b:?}"
        );
        let mut y = dev.upload(&vec![f64::NAN; n]).unwrap();
        random::fill_uniform_f64(&dev, &mut y, seed, 0).unwrap();
        assert_eq!(
            bits64(&y.download().unwrap()),
            bits64(&want_u64),
            "uniform f64 {b:?}"
        );
        random::fill_normal_f64(&dev, &mut y, seed, 0).unwrap();
        assert_eq!(
            bits64(&y.download().unwrap()),
            bits64(&want_n64),
            "normal f64 {b:?}"
        );
        // Any offset and length, into a view: the same elements.
        for (off, len) in [(1usize, 1usize), (3, 6), (13, 777), (2998, 3)] {
            let mut z = dev.upload(&vec![-1.0f32; len + 2]).unwrap();
            random::fill_normal_f32(&dev, &mut z.slice_mut(1..len + 1), seed, off as u64).unwrap();
            let got = z.download().unwrap();
            assert_eq!(got[0], -1.0);
            assert_eq!(got[len + 1], -1.0);
            assert_eq!(
                bits32(&got[1..len + 1]),
                bits32(&want_n32[off..off + len]),
                "{off}+{len} {b:?}"
            );
            let mut z = dev.upload(&vec![-1.0f64; len]).unwrap();
            random::fill_uniform_f64(&dev, &mut z, seed, off as u64).unwrap();
            assert_eq!(
                bits64(&z.download().unwrap()),
                bits64(&want_u64[off..off + len]),
                "{off}+{len} {b:?}"
            );
        }
    }
}

#[test]
fn box_muller_is_within_a_few_ulp_of_std() {
    let mut rng = Rng::new(52);
    for _ in 0..20_000 {
        let (a, b) = (rng.next_u32(), rng.next_u32());
        let (z0, z1) = random::box_muller_f32(a, b);
        let u1 = ((a >> 8) + 1) as f64 / 16_777_216.0;
        let u2 = (b >> 8) as f64 / 16_777_216.0;
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        // f32's rounding of r, u2 and the polynomials: a few ulp of r.
        let tol = 8.0 * f32::EPSILON as f64 * r.max(1.0);
        assert!(
            (z0 as f64 - r * c).abs() <= tol,
            "{a:x} {b:x}: {z0} against {}",
            r * c
        );
        assert!(
            (z1 as f64 - r * s).abs() <= tol,
            "{a:x} {b:x}: {z1} against {}",
            r * s
        );

        let w = u32x4::new(a, b, rng.next_u32(), rng.next_u32());
        let (y0, y1) = random::box_muller_f64(w);
        let u1 = ((((w.x as u64) << 32 | w.y as u64) >> 11) + 1) as f64 / 9_007_199_254_740_992.0;
        let u2 = (((w.z as u64) << 32 | w.w as u64) >> 11) as f64 / 9_007_199_254_740_992.0;
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        let tol = 8.0 * f64::EPSILON * r.max(1.0);
        assert!((y0 - r * c).abs() <= tol, "{w:?}: {y0} against {}", r * c);
        assert!((y1 - r * s).abs() <= tol, "{w:?}: {y1} against {}", r * s);
    }
}

#[test]
fn large_fills_have_the_right_moments() {
    let n = 1 << 18;
    for dev in devices("large_fills_have_the_right_moments") {
        let mut x = dev.zeros::<f32>(n).unwrap();
        random::fill_uniform_f32(&dev, &mut x, 7, 0).unwrap();
        let u = x.download().unwrap();
        assert!(u.iter().all(|&v| (0.0..1.0).contains(&v)));
        let mean = u.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "uniform mean {mean}");
        random::fill_normal_f32(&dev, &mut x, 7, 0).unwrap();
        let z = x.download().unwrap();
        let mean = z.iter().map(|&v| v as f64).sum::<f64>() / n as f64;
        let var = z.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(
            mean.abs() < 0.01 && (var - 1.0).abs() < 0.02,
            "normal mean {mean} var {var}"
        );
        // Two seeds, two streams.
        random::fill_uniform_f32(&dev, &mut x, 8, 0).unwrap();
        let other = x.download().unwrap();
        let same = u.iter().zip(&other).filter(|(a, b)| a == b).count();
        assert!(same < 100, "{same} equal elements between seeds 7 and 8");
    }
}

#[test]
fn an_offset_past_the_streams_end_is_refused() {
    for dev in devices("an_offset_past_the_streams_end_is_refused") {
        let mut x = dev.upload(&[3.0f32; 10]).unwrap();
        let err = random::fill_uniform_f32(&dev, &mut x, 1, u64::MAX - 5).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        assert_eq!(x.download().unwrap(), vec![3.0; 10]);
        // The last elements of the stream are fine.
        random::fill_uniform_f32(&dev, &mut x, 1, u64::MAX - 10).unwrap();
    }
}

#[test]
fn the_fill_kernels_compile_with_nvrtc() {
    use random::kernels as k;
    nvrtc_compiles(&[
        ("fill_uniform_f32", &k::fill_uniform_f32::KERNEL),
        ("fill_normal_f32", &k::fill_normal_f32::KERNEL),
        ("fill_uniform_f64", &k::fill_uniform_f64::KERNEL),
        ("fill_normal_f64", &k::fill_normal_f64::KERNEL),
    ]);
}

/// Every index of the fills is proven in bounds: the checked form keeps no check.
#[test]
fn the_fill_kernels_keep_no_check() {
    use random::kernels as k;
    for c in [
        &*k::fill_uniform_f32::CUDA_SOURCE,
        &*k::fill_normal_f32::CUDA_SOURCE,
        &*k::fill_uniform_f64::CUDA_SOURCE,
        &*k::fill_normal_f64::CUDA_SOURCE,
    ] {
        let body = c.split("// ---- end of the prelude").nth(1).unwrap();
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!body.contains(check), "{check}: {body}");
        }
    }
}
