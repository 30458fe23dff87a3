//! Generic `#[gpu_struct]`s (docs/language.md, "Structs", "Generic structs"): a struct
//! generic over `T: Float` taken by a generic kernel at f32, f64 and f16 and by a concrete
//! kernel as `Params<f32>`; as locals, literals (`Params::<T> { .. }`), a device
//! function's result, a field of another generic struct, and `DeviceBuffer` elements; a
//! struct over `T: Int` at 8, 32 and 64 bits (`isize` and `i64` are C structs of their own).
//! Each on the simulator and on the GPU where there is one, against the same Rust on the
//! host, with outputs poisoned first; NVRTC compiles every instance.

use warpspeed::prelude::*;
use warpspeed::{f16, Float, Int, LaunchConfig};

mod common;
use common::{devices, nvrtc_compiles, Rng};

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params<T: Float> {
    pub alpha: T,
    pub beta: T,
    pub n: u32,
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair<T: Float> {
    pub a: Params<T>,
    pub w: [T; 2],
    pub tag: u8,
}

#[gpu_device]
fn swapped<T: Float>(p: Params<T>) -> Params<T> {
    // The instance is inferred from the fields of type `T`, as rustc does.
    Params {
        alpha: p.beta,
        beta: p.alpha,
        n: p.n + 1,
    }
}

#[gpu_device]
fn halved(p: Params<f32>) -> Params<f32> {
    let h: Params<f32> = Params::<f32> {
        n: p.n / 2,
        alpha: p.alpha * 0.5,
        beta: p.beta * 0.5,
    };
    h
}

#[gpu_kernel]
fn saxpy<T: Float>(p: Params<T>, x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < x.len() && (i as u32) < p.n {
        let q: Params<T> = swapped::<T>(p);
        y[i] = q.beta * x[i] + q.alpha * y[i];
    }
}

#[gpu_kernel]
fn saxpy_f32(p: Params<f32>, x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    let h = halved(p);
    if i < x.len() && (i as u32) < h.n * 2 {
        // The expected type gives the literal's instance.
        let q: Params<f32> = Params {
            alpha: h.alpha * 2.0,
            beta: h.beta * 2.0,
            n: 0,
        };
        y[i] = q.alpha * x[i] + q.beta * y[i];
    }
}

#[gpu_kernel]
fn pairs<T: Float>(ps: &[Pair<T>], out: &mut [Params<T>]) {
    let i = grid_1d();
    if i < ps.len() {
        let mut q = ps[i].a;
        q.alpha = q.alpha * ps[i].w[0] + ps[i].w[1];
        q.n = q.n + ps[i].tag as u32;
        out[i] = q;
    }
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds<T: Int> {
    pub lo: T,
    pub hi: T,
}

#[gpu_kernel]
fn clamp_all<T: Int>(b: Bounds<T>, x: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        let v = x[i];
        out[i] = if v < b.lo {
            b.lo
        } else if v > b.hi {
            b.hi
        } else {
            v
        };
    }
}

fn cfg(n: usize) -> LaunchConfig {
    LaunchConfig::for_num_elems(n as u32)
}

fn check_saxpy<T: Float + std::fmt::Debug>(dev: &Device, p: Params<T>, x: &[T], y: &[T]) {
    let (n, limit) = (x.len(), p.n as usize);
    let dx = dev.upload(x).unwrap();
    let mut dy = dev.upload(y).unwrap();
    saxpy::launch(dev, cfg(n), p, &dx, &mut dy).unwrap();
    let got = dy.download().unwrap();
    for i in 0..n {
        // The kernel swaps alpha and beta through the device function.
        let want = if i < limit {
            p.alpha * x[i] + p.beta * y[i]
        } else {
            y[i]
        };
        assert_eq!(got[i], want, "{:?} at {i}", dev.backend());
    }
}

#[test]
fn generic_kernel_takes_generic_struct_at_each_float() {
    let mut rng = Rng::new(41);
    let n = 1500;
    let x32: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let y32: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let (a, b) = (rng.range_f32(-2.0, 2.0), rng.range_f32(-2.0, 2.0));
    for dev in devices("generic_kernel_takes_generic_struct_at_each_float") {
        let p = Params {
            alpha: a,
            beta: b,
            n: 1200,
        };
        check_saxpy(&dev, p, &x32, &y32);
        let p64 = Params {
            alpha: f64::from(a),
            beta: f64::from(b),
            n: 900,
        };
        let x64: Vec<f64> = x32.iter().map(|v| f64::from(*v)).collect();
        let y64: Vec<f64> = y32.iter().map(|v| f64::from(*v)).collect();
        check_saxpy(&dev, p64, &x64, &y64);
        // f16: exact inputs (multiples of 1/4 below 4), so that the products and sums
        // round the same way on both sides.
        let q = |v: f32| f16::from_f32((v * 4.0).round() / 4.0);
        let p16 = Params {
            alpha: q(a),
            beta: q(b),
            n: 1499,
        };
        let x16: Vec<f16> = x32.iter().map(|v| q(*v)).collect();
        let y16: Vec<f16> = y32.iter().map(|v| q(*v)).collect();
        let dx = dev.upload(&x16).unwrap();
        let mut dy = dev.upload(&vec![f16::NAN; n]).unwrap();
        dy.copy_from_host(&y16).unwrap();
        saxpy::launch(&dev, cfg(n), p16, &dx, &mut dy).unwrap();
        let got = dy.download().unwrap();
        for i in 0..n {
            let want = if i < 1499 {
                f16::from_f32(
                    p16.alpha.to_f32() * x16[i].to_f32() + p16.beta.to_f32() * y16[i].to_f32(),
                )
            } else {
                y16[i]
            };
            let tol = want.to_f32().abs() * 2e-3 + 1e-2;
            assert!(
                (got[i].to_f32() - want.to_f32()).abs() <= tol,
                "f16 {:?} at {i}: {} vs {}",
                dev.backend(),
                got[i],
                want
            );
        }
    }
}

#[test]
fn concrete_kernel_takes_an_instance() {
    let mut rng = Rng::new(42);
    let n = 1000;
    let x: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let p = Params {
        alpha: rng.range_f32(-2.0, 2.0),
        beta: rng.range_f32(-2.0, 2.0),
        n: 776,
    };
    for dev in devices("concrete_kernel_takes_an_instance") {
        let dx = dev.upload(&x).unwrap();
        let mut dy = dev.upload(&vec![f32::NAN; n]).unwrap();
        dy.copy_from_host(&y).unwrap();
        saxpy_f32::launch(&dev, cfg(n), p, &dx, &mut dy).unwrap();
        let got = dy.download().unwrap();
        for i in 0..n {
            let want = if i < 776 {
                p.alpha * x[i] + p.beta * y[i]
            } else {
                y[i]
            };
            assert_eq!(got[i], want, "{:?} at {i}", dev.backend());
        }
    }
}

fn check_pairs<T: Float + std::fmt::Debug>(dev: &Device, ps: &[Pair<T>], poison: Params<T>) {
    let n = ps.len();
    let dps = dev.upload(ps).unwrap();
    let mut out = dev.upload(&vec![poison; n]).unwrap();
    pairs::launch(dev, cfg(n), &dps, &mut out).unwrap();
    let got = out.download().unwrap();
    for i in 0..n {
        let mut q = ps[i].a;
        q.alpha = q.alpha * ps[i].w[0] + ps[i].w[1];
        q.n += u32::from(ps[i].tag);
        assert_eq!(got[i], q, "{:?} at {i}", dev.backend());
    }
}

#[test]
fn buffers_of_generic_structs_holding_generic_structs() {
    let mut rng = Rng::new(43);
    let n = 700;
    let ps: Vec<Pair<f32>> = (0..n)
        .map(|i| Pair {
            a: Params {
                alpha: rng.range_f32(-3.0, 3.0),
                beta: rng.range_f32(-3.0, 3.0),
                n: i as u32,
            },
            w: [rng.range_f32(-3.0, 3.0), rng.range_f32(-3.0, 3.0)],
            tag: (i % 200) as u8,
        })
        .collect();
    let ps64: Vec<Pair<f64>> = ps
        .iter()
        .map(|p| Pair {
            a: Params {
                alpha: f64::from(p.a.alpha),
                beta: f64::from(p.a.beta),
                n: p.a.n,
            },
            w: [f64::from(p.w[0]), f64::from(p.w[1])],
            tag: p.tag,
        })
        .collect();
    // f16: each operation rounds once, on both sides (the host's through f32, exactly).
    let ps16: Vec<Pair<f16>> = ps
        .iter()
        .map(|p| Pair {
            a: Params {
                alpha: f16::from_f32(p.a.alpha),
                beta: f16::from_f32(p.a.beta),
                n: p.a.n,
            },
            w: [f16::from_f32(p.w[0]), f16::from_f32(p.w[1])],
            tag: p.tag,
        })
        .collect();
    for dev in devices("buffers_of_generic_structs_holding_generic_structs") {
        let poison = Params {
            alpha: f32::NAN,
            beta: f32::NAN,
            n: u32::MAX,
        };
        check_pairs(&dev, &ps, poison);
        let poison = Params {
            alpha: f64::NAN,
            beta: f64::NAN,
            n: u32::MAX,
        };
        check_pairs(&dev, &ps64, poison);
        let poison = Params {
            alpha: f16::NAN,
            beta: f16::NAN,
            n: u32::MAX,
        };
        check_pairs(&dev, &ps16, poison);
    }
}

#[test]
fn device_functions_with_generic_structs_run_on_the_host() {
    let p = Params {
        alpha: 1.5f64,
        beta: -2.0,
        n: 7,
    };
    let q = swapped(p);
    assert_eq!((q.alpha, q.beta, q.n), (-2.0, 1.5, 8));
    let h = halved(Params {
        alpha: 3.0f32,
        beta: 5.0,
        n: 9,
    });
    assert_eq!((h.alpha, h.beta, h.n), (1.5, 2.5, 4));
}

fn check_clamp<T: Int + std::fmt::Debug>(dev: &Device, b: Bounds<T>, x: &[T], poison: T) {
    let n = x.len();
    let dx = dev.upload(x).unwrap();
    let mut out = dev.upload(&vec![poison; n]).unwrap();
    clamp_all::launch(dev, cfg(n), b, &dx, &mut out).unwrap();
    let got = out.download().unwrap();
    for i in 0..n {
        assert_eq!(got[i], x[i].clamp(b.lo, b.hi), "{:?} at {i}", dev.backend());
    }
}

#[test]
fn int_bounded_struct_at_several_widths() {
    let mut rng = Rng::new(44);
    let n = 900;
    let x32: Vec<i32> = (0..n).map(|_| rng.next_u32() as i32 % 1000).collect();
    let x8: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
    let x64: Vec<isize> = x32.iter().map(|v| *v as isize * 1_000_000).collect();
    for dev in devices("int_bounded_struct_at_several_widths") {
        check_clamp(&dev, Bounds { lo: -300, hi: 450 }, &x32, i32::MIN);
        check_clamp(&dev, Bounds { lo: 17u8, hi: 201 }, &x8, 0);
        let b = Bounds {
            lo: -200_000_000isize,
            hi: 300_000_000,
        };
        check_clamp(&dev, b, &x64, isize::MIN);
    }
}

#[test]
fn instances_have_their_own_c_layouts() {
    use warpspeed::KernelScalar;
    assert_eq!(<Params<f32> as KernelScalar>::C_NAME, "ws_s_Params_f32");
    assert_eq!(<Params<f16> as KernelScalar>::C_NAME, "ws_s_Params_f16");
    assert_eq!(std::mem::size_of::<Params<f64>>(), 24);
    assert_eq!(std::mem::size_of::<Pair<f16>>(), 16);
}

#[test]
fn nvrtc_compiles_generic_struct_instances() {
    nvrtc_compiles(&[
        ("saxpy::<f32>", saxpy::kernel::<f32>()),
        ("saxpy::<f64>", saxpy::kernel::<f64>()),
        ("saxpy::<f16>", saxpy::kernel::<f16>()),
        ("saxpy_f32", &saxpy_f32::KERNEL),
        ("pairs::<f32>", pairs::kernel::<f32>()),
        ("pairs::<f64>", pairs::kernel::<f64>()),
        ("pairs::<f16>", pairs::kernel::<f16>()),
        ("clamp_all::<u8>", clamp_all::kernel::<u8>()),
        ("clamp_all::<isize>", clamp_all::kernel::<isize>()),
        ("clamp_all::<i64>", clamp_all::kernel::<i64>()),
    ]);
}
