//! Another crate uses `warpspeed-shared-kernels`' `pub` structs, device functions and
//! kernel (issue 20 item 6): in its own kernels (no annotations: the signatures come from
//! the other crate's hand-over macros), on the host (the same functions as the CPU
//! reference), and through the library's kernel. On the simulator and on the GPU where
//! there is one, with outputs poisoned; the package's binary does the same from `src/bin/`.

use warpspeed::prelude::*;
use warpspeed::LaunchConfig;
use warpspeed_shared_kernels as lib;
use warpspeed_shared_kernels::geo::Pt;
use warpspeed_shared_kernels::Lin;

#[path = "../../../common/mod.rs"]
mod common;
use common::{devices, nvrtc_compiles, Rng};

#[gpu_kernel]
fn user(l: Lin, p: &[Pt], x: &[f32], y: &mut [f32], n: &mut [u32], m: &mut [f64]) {
    let i = grid_1d();
    if i < p.len() {
        let (len, quadrant) = lib::geo::norm1(p[i]);
        n[i] = len * 4 + quadrant;
        let fit = lib::through(0.0, l.b, 1.0, l.a + l.b);
        y[i] = lib::eval(fit, x[i]);
        m[i] = lib::geo::mix(x[i] as f64, 0.5);
    }
}

/// A kernel whose module imports no struct: the signatures of `geo::at` and `geo::norm1`
/// name `Pt`, which the kernel reaches as `warpspeed_shared_kernels::geo::Pt`.
mod no_imports {
    use warpspeed::prelude::*;

    #[gpu_kernel]
    pub fn points(x: &[i32], out: &mut [u32]) {
        let i = grid_1d();
        if i < x.len() {
            let p = warpspeed_shared_kernels::geo::at(x[i], -3);
            let (n, q) = warpspeed_shared_kernels::geo::norm1(p);
            out[i] = n * 4 + q;
        }
    }
}

#[test]
fn struct_results_need_no_import() {
    let mut rng = Rng::new(6);
    let count = 1000;
    let x: Vec<i32> = (0..count).map(|_| rng.next_u32() as i32 % 500).collect();
    let want: Vec<u32> = x
        .iter()
        .map(|&x| {
            let (n, q) = lib::geo::norm1(lib::geo::at(x, -3));
            n * 4 + q
        })
        .collect();
    for dev in devices("struct_results_need_no_import") {
        let dx = dev.upload(&x).unwrap();
        let mut out = dev.upload(&vec![u32::MAX; count]).unwrap();
        let cfg = LaunchConfig::for_num_elems(count as u32);
        no_imports::points::launch(&dev, cfg, &dx, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), want, "{:?}", dev.backend());
    }
}

#[test]
fn pub_items_cross_crates() {
    nvrtc_compiles(&[
        ("user", &user::KERNEL),
        ("quadrants", &lib::quadrants::KERNEL),
        ("points", &no_imports::points::KERNEL),
    ]);
    let mut rng = Rng::new(5);
    let count = 3000;
    let l = Lin { a: 1.5, b: -0.25 };
    let p: Vec<Pt> = (0..count)
        .map(|_| Pt {
            x: rng.next_u32() as i32 % 1000,
            y: rng.next_u32() as i32 % 1000,
        })
        .collect();
    let x: Vec<f32> = (0..count).map(|_| rng.range_f32(-4.0, 4.0)).collect();
    let want_n: Vec<u32> = p
        .iter()
        .map(|&p| {
            let (len, q) = lib::geo::norm1(p);
            len * 4 + q
        })
        .collect();
    let fit = lib::through(0.0, l.b, 1.0, l.a + l.b);
    let want_y: Vec<f32> = x.iter().map(|&x| lib::eval(fit, x)).collect();
    let want_m: Vec<f64> = x.iter().map(|&x| lib::geo::mix(x as f64, 0.5)).collect();
    for dev in devices("pub_items_cross_crates") {
        let (dp, dx) = (dev.upload(&p).unwrap(), dev.upload(&x).unwrap());
        let mut y = dev.upload(&vec![f32::NAN; count]).unwrap();
        let mut n = dev.upload(&vec![u32::MAX; count]).unwrap();
        let mut m = dev.upload(&vec![f64::NAN; count]).unwrap();
        let cfg = LaunchConfig::for_num_elems(count as u32);
        user::launch(&dev, cfg, l, &dp, &dx, &mut y, &mut n, &mut m).unwrap();
        let backend = dev.backend();
        assert_eq!(n.download().unwrap(), want_n, "{backend:?}: norm1");
        let (y, m) = (y.download().unwrap(), m.download().unwrap());
        for i in 0..count {
            assert_eq!(y[i].to_bits(), want_y[i].to_bits(), "{backend:?}: eval {i}");
            assert_eq!(m[i].to_bits(), want_m[i].to_bits(), "{backend:?}: mix {i}");
        }
        // The library's own kernel.
        let mut y2 = dev.upload(&vec![f32::NAN; count]).unwrap();
        lib::eval_all::launch(&dev, cfg, l, &dx, &mut y2).unwrap();
        let y2 = y2.download().unwrap();
        for i in 0..count {
            assert_eq!(
                y2[i].to_bits(),
                lib::eval(l, x[i]).to_bits(),
                "{backend:?}: eval_all {i}"
            );
        }
        let mut q = dev.upload(&vec![u32::MAX; count]).unwrap();
        lib::quadrants::launch(&dev, cfg, &dp, &mut q).unwrap();
        assert_eq!(
            q.download().unwrap(),
            want_n.iter().map(|n| n % 4).collect::<Vec<_>>(),
            "{backend:?}: quadrants"
        );
    }
}

#[test]
fn a_kernel_in_src_bin_uses_the_library() {
    let out = std::process::Command::new(lin_bin())
        .output()
        .expect("the package's binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    for line in lines {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            f[0], f[1],
            "the kernel's value against the host call's: {line}"
        );
        assert_eq!(
            f[2], f[3],
            "the kernel's quadrant against the host call's: {line}"
        );
    }
}

/// The package's binary: where cargo built it, or, where the tests were carried elsewhere
/// without it (the GPU machine's bundle), the `lin_bin` file beside this test's executable.
fn lin_bin() -> std::path::PathBuf {
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_lin_bin"));
    if built.exists() {
        return built;
    }
    let here = std::env::current_exe().expect("the test's own path");
    let dir = here.parent().expect("the test's folder");
    std::fs::read_dir(dir)
        .expect("the test's folder is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n == "lin_bin" || n.starts_with("lin_bin-lin_bin"))
        })
        .unwrap_or_else(|| {
            panic!(
                "no lin_bin at {} nor beside {}",
                built.display(),
                here.display()
            )
        })
}

/// A generic `pub` struct of the other crate, by a module path, in a generic kernel.
#[gpu_kernel]
fn scaled<T: warpspeed::Float>(s: lib::scale::Scale<T>, x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        let back = lib::scale::inverse(s);
        y[i] = lib::scale::apply(back, lib::scale::apply(s, x[i]));
    }
}

#[test]
fn generic_pub_struct_crosses_crates() {
    use lib::scale::{apply, inverse, Scale};
    nvrtc_compiles(&[
        ("scaled::<f32>", scaled::kernel::<f32>()),
        ("scaled::<f64>", scaled::kernel::<f64>()),
    ]);
    let mut rng = Rng::new(6);
    let count = 2000;
    let x: Vec<f64> = (0..count)
        .map(|_| f64::from(rng.range_f32(-4.0, 4.0)))
        .collect();
    let s = Scale {
        k: 2.5f64,
        off: -0.75,
    };
    let want: Vec<f64> = x.iter().map(|&v| apply(inverse(s), apply(s, v))).collect();
    for dev in devices("generic_pub_struct_crosses_crates") {
        let dx = dev.upload(&x).unwrap();
        let mut y = dev.upload(&vec![f64::NAN; count]).unwrap();
        let cfg = LaunchConfig::for_num_elems(count as u32);
        scaled::launch(&dev, cfg, s, &dx, &mut y).unwrap();
        let got = y.download().unwrap();
        for i in 0..count {
            assert!(
                (got[i] - want[i]).abs() <= 1e-12 * want[i].abs().max(1.0),
                "{:?} at {i}: {} vs {}",
                dev.backend(),
                got[i],
                want[i]
            );
        }
    }
}
