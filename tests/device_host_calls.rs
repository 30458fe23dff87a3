//! A `#[gpu_device]` function is also a plain Rust function on the host (docs/language.md,
//! "Calling device functions from host code"): the CPU reference calls the very functions
//! the kernel calls (scalars, tuples, structs, a slice, generic and const-generic
//! functions, one calling another, a `&mut [T]` written, a print), and gets what the
//! kernel gets, on the simulator and on the GPU where there is one, with outputs poisoned.
//! A function that is kernel code panics on the host, saying so.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;

mod common;
use common::{devices, nvrtc_compiles, Rng};

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub lo: i32,
    pub hi: i32,
    pub sum: i32,
}

/// A class and a flag: the issue's `let (c, odd) = classify(v);`.
#[gpu_device]
fn classify(v: i32) -> (u32, bool) {
    let c = if v < -100 {
        0
    } else if v < 0 {
        1
    } else if v < 100 {
        2
    } else {
        3
    };
    (c, v % 2 != 0)
}

/// Wrapping arithmetic, as in every kernel: the host call wraps too.
#[gpu_device]
fn hash(x: u32) -> u32 {
    (x ^ (x >> 16)) * 0x45d9_f3b5
}

/// Calls another device function.
#[gpu_device]
fn hash2(x: u32) -> u32 {
    hash(hash(x) + 1)
}

#[gpu_device]
fn stats(a: i32, b: i32) -> Stats {
    Stats {
        lo: a.min(b),
        hi: a.max(b),
        sum: a + b,
    }
}

/// A slice parameter, read where it is.
#[gpu_device]
fn window(x: &[f32], i: usize) -> f32 {
    let mut s = 0.0f32;
    for k in 0..3 {
        if i + k < x.len() {
            s += x[i + k];
        }
    }
    s
}

mod generic {
    use warpspeed::prelude::*;

    #[gpu_device]
    pub fn lerp<T: Float>(a: T, b: T, t: T) -> T {
        a + (b - a) * t
    }

    #[gpu_device]
    pub fn rotl<const R: u32>(x: u32) -> u32 {
        x.rotate_left(R)
    }
}

/// Kernel code: it reads the thread's index.
#[gpu_device]
fn lane_of(x: u32) -> u32 {
    x + lane_id()
}

/// Kernel code through a callee.
#[gpu_device]
fn via_lane(x: u32) -> u32 {
    lane_of(x) * 2
}

#[gpu_kernel]
fn host_twins(
    v: &[i32],
    x: &[u32],
    f: &[f32],
    cls: &mut [u32],
    hashes: &mut [u32],
    st: &mut [Stats],
    fo: &mut [f32],
    d: &mut [f64],
) {
    let i = grid_1d();
    if i < v.len() {
        let (c, odd) = classify(v[i]);
        cls[i] = c * 2 + odd as u32;
        hashes[i] = hash2(x[i]) ^ generic::rotl::<13>(x[i]);
        st[i] = stats(v[i], v[(i + 1) % v.len()]);
        fo[i] = window(f, i) + generic::lerp(f[i], 1.0, 0.25);
        d[i] = generic::lerp::<f64>(f[i] as f64, -2.0, 0.75);
    }
}

#[test]
fn host_calls_compute_what_the_kernel_computes() {
    nvrtc_compiles(&[("host_twins", &host_twins::KERNEL)]);
    let mut rng = Rng::new(99);
    let n = 4000;
    let v: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32 % 300).collect();
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let f: Vec<f32> = (0..n).map(|_| rng.range_f32(-8.0, 8.0)).collect();
    // The CPU reference: the device functions themselves.
    let want_cls: Vec<u32> = v
        .iter()
        .map(|&v| {
            let (c, odd) = classify(v);
            c * 2 + odd as u32
        })
        .collect();
    let want_hash: Vec<u32> = x
        .iter()
        .map(|&x| hash2(x) ^ generic::rotl::<13>(x))
        .collect();
    let want_st: Vec<Stats> = (0..n).map(|i| stats(v[i], v[(i + 1) % n])).collect();
    let want_fo: Vec<f32> = (0..n)
        .map(|i| window(&f, i) + generic::lerp(f[i], 1.0, 0.25))
        .collect();
    let want_d: Vec<f64> = f
        .iter()
        .map(|&f| generic::lerp::<f64>(f as f64, -2.0, 0.75))
        .collect();
    // The host calls are the plain Rust they read as.
    assert_eq!(classify(-7), (1, true));
    assert_eq!(hash(1), 0x45d9_f3b5);
    assert_eq!(
        stats(5, -3),
        Stats {
            lo: -3,
            hi: 5,
            sum: 2
        }
    );
    assert_eq!(generic::rotl::<4>(0x1000_0001), 0x0000_0011);
    assert_eq!(window(&[1.0, 2.0, 4.0, 8.0], 2), 12.0);
    for dev in devices("host_calls_compute_what_the_kernel_computes") {
        let (dv, dx, df) = (
            dev.upload(&v).unwrap(),
            dev.upload(&x).unwrap(),
            dev.upload(&f).unwrap(),
        );
        let mut cls = dev.upload(&vec![0xdead_beefu32; n]).unwrap();
        let mut hashes = dev.upload(&vec![0xdead_beefu32; n]).unwrap();
        let poison = Stats {
            lo: -1,
            hi: -1,
            sum: -1,
        };
        let mut st = dev.upload(&vec![poison; n]).unwrap();
        let mut fo = dev.upload(&vec![f32::NAN; n]).unwrap();
        let mut d = dev.upload(&vec![f64::NAN; n]).unwrap();
        let cfg = LaunchConfig::for_num_elems(n as u32);
        host_twins::launch(
            &dev,
            cfg,
            &dv,
            &dx,
            &df,
            &mut cls,
            &mut hashes,
            &mut st,
            &mut fo,
            &mut d,
        )
        .unwrap();
        let backend = dev.backend();
        assert_eq!(cls.download().unwrap(), want_cls, "{backend:?}: classify");
        assert_eq!(hashes.download().unwrap(), want_hash, "{backend:?}: hash");
        assert_eq!(st.download().unwrap(), want_st, "{backend:?}: stats");
        let fo = fo.download().unwrap();
        let d = d.download().unwrap();
        for i in 0..n {
            assert_eq!(
                fo[i].to_bits(),
                want_fo[i].to_bits(),
                "{backend:?}: f32 {i}"
            );
            assert_eq!(d[i].to_bits(), want_d[i].to_bits(), "{backend:?}: f64 {i}");
        }
    }
}

#[test]
#[should_panic(expected = "`lane_of` is kernel code: it uses `lane_id`")]
fn kernel_code_panics_on_the_host() {
    lane_of(3);
}

#[test]
#[should_panic(expected = "`via_lane` is kernel code: it uses `lane_id`")]
fn kernel_code_through_a_callee_panics_on_the_host() {
    via_lane(3);
}

#[test]
#[should_panic(
    expected = "`fifth` called on the host failed: kernel `fifth` indexed out of bounds"
)]
fn a_host_call_checks_bounds_as_the_kernel_does() {
    #[gpu_device]
    fn fifth(x: &[u32]) -> u32 {
        x[5]
    }
    fifth(&[1, 2, 3]);
}

#[test]
fn a_host_call_prints_as_the_simulator_does() {
    #[gpu_device]
    fn say(x: u32) -> u32 {
        gpu_println!("x = {}", x);
        x + 1
    }
    let (r, text) = warpspeed::__private::capture_sim_prints(|| say(41));
    assert_eq!(r, 42);
    assert_eq!(text, "x = 41\n");
}

#[test]
fn a_host_call_writes_a_mut_slice_and_takes_both_kinds_of_generics() {
    #[gpu_device]
    fn fill_from(out: &mut [u32], start: u32) {
        for i in 0..out.len() {
            out[i] = start + i as u32;
        }
    }
    #[gpu_device]
    fn times<T: Float, const N: usize>(x: T) -> (T, u32) {
        let mut acc = x;
        for _ in 1..N {
            acc += x;
        }
        (acc, N as u32)
    }
    let mut v = vec![0u32; 5];
    fill_from(&mut v, 10);
    assert_eq!(v, [10, 11, 12, 13, 14]);
    assert_eq!(times::<f64, 3>(1.5), (4.5, 3));
    assert_eq!(times::<f32, 2>(0.25), (0.5, 2));
}
