//! `warpspeed::algorithms::xoroshiro` (issue 22): xoroshiro128+ states per thread, as
//! Numba's `numba.cuda.random`. The states against splitmix64's known outputs and the
//! test's own generator and jump (written from Vigna's reference C, not from the library);
//! every draw of a kernel on both backends, bit for bit, against that generator and the
//! host calling the device functions; the states a kernel leaves; moments; the unchecked
//! twins; an index past the states reported; NVRTC.

mod common;
use common::{devices, nvrtc_compiles};
use warpspeed::algorithms::random;
use warpspeed::algorithms::xoroshiro::{self, *};
use warpspeed::prelude::*;

// ---- the test's own xoroshiro128+ -------------------------------------------------------

fn splitmix_cpu(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}

/// xoroshiro128plus.c's `next()`.
fn next_cpu(s: &mut [u64; 2]) -> u64 {
    let (s0, mut s1) = (s[0], s[1]);
    let result = s0.wrapping_add(s1);
    s1 ^= s0;
    s[0] = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
    s[1] = s1.rotate_left(36);
    result
}

/// xoroshiro128plus.c's `jump()`.
fn jump_cpu(s: &mut [u64; 2]) {
    let jump = [0xbeac0467eba5facbu64, 0xd86b048b86aa9922];
    let (mut a, mut b) = (0u64, 0u64);
    for w in jump {
        for bit in 0..64 {
            if w & (1u64 << bit) != 0 {
                a ^= s[0];
                b ^= s[1];
            }
            next_cpu(s);
        }
    }
    *s = [a, b];
}

/// Numba's `init_xoroshiro128p_states_cpu`, jump by jump.
fn states_cpu(n: usize, seed: u64, start: u64) -> Vec<[u64; 2]> {
    let z = splitmix_cpu(seed);
    let mut s = [z, z];
    for _ in 0..start {
        jump_cpu(&mut s);
    }
    let mut v = Vec::new();
    for i in 0..n {
        if i > 0 {
            jump_cpu(&mut s);
        }
        v.push(s);
    }
    v
}

fn words(s: &[Xoroshiro128p]) -> Vec<[u64; 2]> {
    s.iter().map(|x| [x.s0, x.s1]).collect()
}

#[test]
fn states_are_numbas() {
    // splitmix64's known first outputs: seed 0 gives e220a8397b1dcdaf; seed 1234567 gives
    // 6457827717110365317 (Vigna's splitmix64.c, as Wikipedia and Rosetta Code list them).
    assert_eq!(splitmix_cpu(0), 0xe220a8397b1dcdaf);
    assert_eq!(splitmix_cpu(1234567), 6457827717110365317);
    let s = xoroshiro::xoroshiro128p_states(1, 0, 0);
    assert_eq!(words(&s), vec![[0xe220a8397b1dcdaf; 2]]);
    let s = xoroshiro::xoroshiro128p_states(1, 1234567, 0);
    assert_eq!(words(&s), vec![[6457827717110365317; 2]]);

    for seed in [1u64, 42, u64::MAX] {
        let want = states_cpu(67, seed, 0);
        assert_eq!(words(&xoroshiro::xoroshiro128p_states(67, seed, 0)), want);
        // Numba's test_create_subsequence_start: a start of 3 shifts the states by 3.
        let later = xoroshiro::xoroshiro128p_states(64, seed, 3);
        assert_eq!(words(&later), want[3..]);
        assert!(xoroshiro::xoroshiro128p_states(0, seed, 0).is_empty());
    }
    // A large start by powers of the jump: 1000 jumps one by one agree.
    assert_eq!(
        words(&xoroshiro::xoroshiro128p_states(2, 9, 1000)),
        states_cpu(2, 9, 1000)[..]
    );
    // All distinct (Numba's test_create).
    let s = xoroshiro::xoroshiro128p_states(1000, 1, 0);
    let mut w = words(&s);
    w.sort();
    w.dedup();
    assert_eq!(w.len(), 1000);
}

#[test]
fn states_on_the_device_are_the_hosts() {
    for dev in devices("states_on_the_device_are_the_hosts") {
        for n in [0usize, 1, 100] {
            let s = create_xoroshiro128p_states(&dev, n, 7).unwrap();
            assert_eq!(s.len(), n);
            assert_eq!(words(&s.download().unwrap()), states_cpu(n, 7, 0));
        }
        // Into a view, from a subsequence, on a stream.
        let stream = dev.create_stream().unwrap();
        let mut s = dev.upload(&[Xoroshiro128p { s0: 5, s1: 5 }; 12]).unwrap();
        init_xoroshiro128p_states(&mut s.slice_mut(1..11), 7, 2).unwrap();
        let got = words(&s.download().unwrap());
        assert_eq!(got[0], [5, 5]);
        assert_eq!(got[11], [5, 5]);
        assert_eq!(got[1..11], states_cpu(12, 7, 0)[2..12]);
        let s = create_xoroshiro128p_states(&stream, 3, 7).unwrap();
        assert_eq!(words(&s.download().unwrap()), states_cpu(3, 7, 0));
    }
}

/// Each thread `t < states.len()` draws `per` rounds of: a raw word, a uniform f32, a
/// uniform f64, a normal f32, a normal f64 (7 steps of its state).
#[gpu_kernel]
#[allow(clippy::too_many_arguments)]
fn draw(
    states: &mut [Xoroshiro128p],
    per: u32,
    raw: &mut [u64],
    uf: &mut [f32],
    ud: &mut [f64],
    nf: &mut [f32],
    nd: &mut [f64],
) {
    let t = grid_1d();
    if t < states.len() {
        let mut j = 0u32;
        while j < per {
            let k = t * per as usize + j as usize;
            raw[k] = xoroshiro128p_next(states, t);
            uf[k] = xoroshiro128p_uniform_f32(states, t);
            ud[k] = xoroshiro128p_uniform_f64(states, t);
            nf[k] = xoroshiro128p_normal_f32(states, t);
            nd[k] = xoroshiro128p_normal_f64(states, t);
            j += 1;
        }
    }
}

/// [`draw`] with the unchecked device functions, in an unchecked kernel.
#[gpu_kernel(unchecked)]
#[allow(clippy::too_many_arguments)]
fn draw_unchecked(
    states: &mut [Xoroshiro128p],
    per: u32,
    raw: &mut [u64],
    uf: &mut [f32],
    ud: &mut [f64],
    nf: &mut [f32],
    nd: &mut [f64],
) {
    let t = grid_1d();
    if t < states.len() {
        let mut j = 0u32;
        while j < per {
            let k = t * per as usize + j as usize;
            raw[k] = xoroshiro::unchecked::xoroshiro128p_next(states, t);
            uf[k] = xoroshiro::unchecked::xoroshiro128p_uniform_f32(states, t);
            ud[k] = xoroshiro::unchecked::xoroshiro128p_uniform_f64(states, t);
            nf[k] = xoroshiro::unchecked::xoroshiro128p_normal_f32(states, t);
            nd[k] = xoroshiro::unchecked::xoroshiro128p_normal_f64(states, t);
            j += 1;
        }
    }
}

/// What [`draw`] writes, from the test's generator: the raw words and the uniforms by
/// hand, the normals through the library's Box-Muller (its polynomials are checked
/// against std in tests/algorithms_random.rs).
struct Draws {
    raw: Vec<u64>,
    uf: Vec<u32>,
    ud: Vec<u64>,
    nf: Vec<u32>,
    nd: Vec<u64>,
    states: Vec<[u64; 2]>,
}

fn draws_cpu(n: usize, per: usize, seed: u64) -> Draws {
    let mut d = Draws {
        raw: vec![],
        uf: vec![],
        ud: vec![],
        nf: vec![],
        nd: vec![],
        states: vec![],
    };
    for mut s in states_cpu(n, seed, 0) {
        for _ in 0..per {
            d.raw.push(next_cpu(&mut s));
            let u = (next_cpu(&mut s) >> 40) as f32 / 16_777_216.0;
            d.uf.push(u.to_bits());
            let u = (next_cpu(&mut s) >> 11) as f64 / 9_007_199_254_740_992.0;
            d.ud.push(u.to_bits());
            let (a, b) = (next_cpu(&mut s), next_cpu(&mut s));
            let z = random::box_muller_f32((a >> 32) as u32, (b >> 32) as u32).0;
            d.nf.push(z.to_bits());
            let (a, b) = (next_cpu(&mut s), next_cpu(&mut s));
            let w = u32x4::new((a >> 32) as u32, a as u32, (b >> 32) as u32, b as u32);
            d.nd.push(random::box_muller_f64(w).0.to_bits());
        }
        d.states.push(s);
    }
    d
}

#[test]
fn every_draw_is_the_test_generators_on_both_backends() {
    let seed = 0x5eed_0002u64;
    for (n, per) in [(1usize, 5usize), (37, 4), (300, 2)] {
        let want = draws_cpu(n, per, seed);
        // The host calling the device functions draws the same.
        let mut host = xoroshiro::xoroshiro128p_states(n, seed, 0);
        for t in 0..n {
            for j in 0..per {
                let k = t * per + j;
                assert_eq!(xoroshiro128p_next(&mut host, t), want.raw[k]);
                assert_eq!(
                    xoroshiro128p_uniform_f32(&mut host, t).to_bits(),
                    want.uf[k]
                );
                assert_eq!(
                    xoroshiro128p_uniform_f64(&mut host, t).to_bits(),
                    want.ud[k]
                );
                assert_eq!(xoroshiro128p_normal_f32(&mut host, t).to_bits(), want.nf[k]);
                assert_eq!(xoroshiro128p_normal_f64(&mut host, t).to_bits(), want.nd[k]);
            }
        }
        assert_eq!(words(&host), want.states);
        for dev in devices("every_draw_is_the_test_generators_on_both_backends") {
            let b = dev.backend();
            for checked in [true, false] {
                let mut states = create_xoroshiro128p_states(&dev, n, seed).unwrap();
                let m = n * per;
                // Poisoned outputs, one element longer than the draws.
                let mut raw = dev.upload(&vec![u64::MAX; m + 1]).unwrap();
                let mut uf = dev.upload(&vec![f32::NAN; m + 1]).unwrap();
                let mut ud = dev.upload(&vec![f64::NAN; m + 1]).unwrap();
                let mut nf = dev.upload(&vec![f32::NAN; m + 1]).unwrap();
                let mut nd = dev.upload(&vec![f64::NAN; m + 1]).unwrap();
                // More threads than states: the extra ones draw nothing.
                let cfg = LaunchConfig::new(n.div_ceil(64) as u32 + 1, 64);
                if checked {
                    draw::launch(
                        &dev,
                        cfg,
                        &mut states,
                        per as u32,
                        &mut raw,
                        &mut uf,
                        &mut ud,
                        &mut nf,
                        &mut nd,
                    )
                } else {
                    draw_unchecked::launch(
                        &dev,
                        cfg,
                        &mut states,
                        per as u32,
                        &mut raw,
                        &mut uf,
                        &mut ud,
                        &mut nf,
                        &mut nd,
                    )
                }
                .unwrap();
                let what = format!("n {n} per {per} {b:?} checked {checked}");
                let raw = raw.download().unwrap();
                assert_eq!(raw[..m], want.raw[..], "raw {what}");
                assert_eq!(raw[m], u64::MAX, "{what}");
                let b32 = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let b64 = |v: Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let uf = b32(uf.download().unwrap());
                assert_eq!(uf[..m], want.uf[..], "uniform f32 {what}");
                let ud = b64(ud.download().unwrap());
                assert_eq!(ud[..m], want.ud[..], "uniform f64 {what}");
                let nf = b32(nf.download().unwrap());
                assert_eq!(nf[..m], want.nf[..], "normal f32 {what}");
                let nd = b64(nd.download().unwrap());
                assert_eq!(nd[..m], want.nd[..], "normal f64 {what}");
                assert!(f32::from_bits(uf[m]).is_nan() && f64::from_bits(nd[m]).is_nan());
                assert_eq!(
                    words(&states.download().unwrap()),
                    want.states,
                    "the states left {what}"
                );
            }
        }
    }
}

/// Each thread draws `per` uniforms or normals into `out[t * per + j]`.
#[gpu_kernel]
fn fill(states: &mut [Xoroshiro128p], per: u32, normal: bool, out: &mut [f32]) {
    let t = grid_1d();
    if t < states.len() {
        let mut j = 0u32;
        while j < per {
            let k = t * per as usize + j as usize;
            if normal {
                out[k] = xoroshiro128p_normal_f32(states, t);
            } else {
                out[k] = xoroshiro128p_uniform_f32(states, t);
            }
            j += 1;
        }
    }
}

#[test]
fn draws_have_numbas_moments() {
    // Numba's check_uniform and check_normal: 64 states, 32 draws each, seed 1.
    let (n, per) = (64usize, 32u32);
    for dev in devices("draws_have_numbas_moments") {
        for normal in [false, true] {
            let mut states = create_xoroshiro128p_states(&dev, n, 1).unwrap();
            let mut out = dev.upload(&vec![f32::NAN; n * per as usize]).unwrap();
            fill::launch(
                &dev,
                LaunchConfig::new(2, 32),
                &mut states,
                per,
                normal,
                &mut out,
            )
            .unwrap();
            let v: Vec<f64> = out.download().unwrap().iter().map(|&x| x as f64).collect();
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let std = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
            if normal {
                // Numba's deltas are for its own draws; these are other numbers, so a
                // bound of a few standard errors (1/sqrt(2048) = 0.022) instead.
                assert!(mean.abs() < 0.07, "normal mean {mean}");
                assert!((std - 1.0).abs() < 0.05, "normal std {std}");
                assert!(v.iter().all(|x| x.is_finite()));
            } else {
                assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)));
                let (lo, hi) = v
                    .iter()
                    .fold((1.0f64, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
                assert!(lo < 1e-3 && hi > 1.0 - 1e-3, "{lo} {hi}");
                assert!((mean - 0.5).abs() < 1.5e-2, "uniform mean {mean}");
                assert!((std - 1.0 / 12f64.sqrt()).abs() < 6e-3, "uniform std {std}");
            }
        }
    }
}

#[test]
fn an_index_past_the_states_is_reported() {
    for dev in devices("an_index_past_the_states_is_reported") {
        // 8 states, 9 threads: thread 8's draw reads past them.
        let mut states = create_xoroshiro128p_states(&dev, 8, 1).unwrap();
        let mut out = dev.zeros::<f32>(9).unwrap();
        let r = over::launch(&dev, LaunchConfig::new(1, 9), &mut states, &mut out)
            .and_then(|()| dev.synchronize());
        match r {
            Err(Error::OutOfBounds {
                kernel, index, len, ..
            }) => assert_eq!((kernel.as_str(), index, len), ("over", 8, 8)),
            other => panic!("{:?}: expected OutOfBounds, got {other:?}", dev.backend()),
        }
        // The device is usable afterwards, and the states in bounds were drawn from.
        let after = states.download().unwrap();
        assert_ne!(words(&after), states_cpu(8, 1, 0));
    }
}

#[gpu_kernel]
fn over(states: &mut [Xoroshiro128p], out: &mut [f32]) {
    let t = grid_1d();
    if t < out.len() {
        out[t] = xoroshiro128p_uniform_f32(states, t);
    }
}

#[test]
fn the_kernels_compile_with_nvrtc() {
    nvrtc_compiles(&[
        ("draw", &draw::KERNEL),
        ("draw_unchecked", &draw_unchecked::KERNEL),
        ("fill", &fill::KERNEL),
    ]);
}

/// The unchecked twins keep no check; the checked functions keep exactly the one on
/// `states[index]` (an index a device function is handed cannot be proven).
#[test]
fn the_unchecked_functions_keep_no_check() {
    let c = &*draw_unchecked::CUDA_SOURCE;
    let body = c.split("// ---- end of the prelude").nth(1).unwrap();
    for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
        assert!(!body.contains(check), "{check}: {body}");
    }
    let c = &*draw::CUDA_SOURCE;
    let body = c.split("// ---- end of the prelude").nth(1).unwrap();
    assert!(
        body.contains("ws_ld(") || body.contains("ws_ld_d(") || body.contains("ws_at("),
        "{body}"
    );
}
