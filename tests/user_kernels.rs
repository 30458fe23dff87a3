//! The kernels of examples/kernels/user_kernels.rs (written as users write them, declaring
//! nothing for the bounds prover), checked and `unchecked`, against their CPU references
//! on random data, with sizes that are not multiples of the blocks, outputs poisoned
//! before each run, on the simulator and the GPU.

mod common;
#[path = "../examples/kernels/user_kernels.rs"]
mod user_kernels;

use common::{devices, Rng};
use user_kernels::{checked, config, small_ints, unchecked, Csr, RADIUS};
use warpspeed::{Device, DeviceBuffer, LaunchConfig};

/// The two forms of each kernel.
const FORMS: [&str; 2] = ["checked", "unchecked"];

/// A buffer of `len` NaNs: an element a kernel fails to write stays NaN and differs.
fn poisoned(dev: &Device, len: usize) -> DeviceBuffer<f32> {
    dev.upload(&vec![f32::NAN; len]).unwrap()
}

fn assert_same(what: &str, form: &str, dev: &Device, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        panic!(
            "{form} {what} on {:?}: element {i} is {}, the CPU says {}",
            dev.backend(),
            got[i],
            want[i]
        );
    }
}

#[test]
fn heat_2d_equals_the_cpu() {
    for dev in devices("heat_2d") {
        for (nx, ny) in [(37, 21), (16, 16), (1, 5)] {
            let mut rng = Rng::new((nx * ny) as u64);
            let u_host = small_ints(|| rng.next_u64(), nx * ny);
            let want = user_kernels::cpu_heat_2d(&u_host, nx, ny, 0.25);
            let u = dev.upload(&u_host).unwrap();
            for form in FORMS {
                let mut out = poisoned(&dev, nx * ny);
                let cfg = config::heat_2d(nx, ny);
                match form {
                    "checked" => checked::heat_2d::launch(&dev, cfg, &mut out, &u, nx, ny, 0.25),
                    _ => unchecked::heat_2d::launch(&dev, cfg, &mut out, &u, nx, ny, 0.25),
                }
                .unwrap();
                let what = format!("heat_2d {nx}x{ny}");
                assert_same(&what, form, &dev, &out.download().unwrap(), &want);
            }
        }
    }
}

#[test]
fn heat_3d_equals_the_cpu() {
    for dev in devices("heat_3d") {
        for (nx, ny, nz) in [(35, 10, 6), (3, 3, 3)] {
            let len = nx * ny * nz;
            let mut rng = Rng::new(len as u64);
            let u_host = small_ints(|| rng.next_u64(), len);
            let want = user_kernels::cpu_heat_3d(&u_host, nx, ny, nz, 0.125);
            let u = dev.upload(&u_host).unwrap();
            for form in FORMS {
                let mut out = poisoned(&dev, len);
                let cfg = config::heat_3d(nx, ny, nz);
                match form {
                    "checked" => {
                        checked::heat_3d::launch(&dev, cfg, &mut out, &u, nx, ny, nz, 0.125)
                    }
                    _ => unchecked::heat_3d::launch(&dev, cfg, &mut out, &u, nx, ny, nz, 0.125),
                }
                .unwrap();
                let what = format!("heat_3d {nx}x{ny}x{nz}");
                assert_same(&what, form, &dev, &out.download().unwrap(), &want);
            }
        }
    }
}

#[test]
fn transpose_equals_the_cpu() {
    for dev in devices("transpose") {
        for (rows, cols) in [(70, 45), (32, 32), (1, 33)] {
            let mut rng = Rng::new((rows * cols) as u64);
            let a_host = small_ints(|| rng.next_u64(), rows * cols);
            let want = user_kernels::cpu_transpose(&a_host, rows, cols);
            let a = dev.upload(&a_host).unwrap();
            for form in FORMS {
                let mut out = poisoned(&dev, rows * cols);
                let cfg = config::transpose(rows, cols);
                match form {
                    "checked" => checked::transpose::launch(&dev, cfg, &mut out, &a, rows, cols),
                    _ => unchecked::transpose::launch(&dev, cfg, &mut out, &a, rows, cols),
                }
                .unwrap();
                let what = format!("transpose {rows}x{cols}");
                assert_same(&what, form, &dev, &out.download().unwrap(), &want);
            }
        }
    }
}

#[test]
fn gather_equals_the_cpu() {
    for dev in devices("gather") {
        let (n, src_len) = (1000, 777);
        let mut rng = Rng::new(5);
        let src_host = small_ints(|| rng.next_u64(), src_len);
        let idx_host: Vec<u32> = (0..n)
            .map(|_| (rng.next_u64() % src_len as u64) as u32)
            .collect();
        let want = user_kernels::cpu_gather(&src_host, &idx_host);
        let src = dev.upload(&src_host).unwrap();
        let idx = dev.upload(&idx_host).unwrap();
        for form in FORMS {
            let mut out = poisoned(&dev, n);
            let cfg = config::one_per_element(n);
            match form {
                "checked" => checked::gather::launch(&dev, cfg, &mut out, &src, &idx, n),
                _ => unchecked::gather::launch(&dev, cfg, &mut out, &src, &idx, n),
            }
            .unwrap();
            assert_same("gather", form, &dev, &out.download().unwrap(), &want);
        }
    }
}

type Spmv = fn(
    &Device,
    LaunchConfig,
    &mut DeviceBuffer<f32>,
    &DeviceBuffer<u32>,
    &DeviceBuffer<u32>,
    &DeviceBuffer<f32>,
    &DeviceBuffer<f32>,
    usize,
) -> warpspeed::Result<()>;

#[test]
fn spmv_equals_the_cpu() {
    for dev in devices("spmv") {
        let mut rng = Rng::new(7);
        // Rows of 0..=80 nonzeros: the warp kernel's lanes go round more than twice.
        let a = Csr::random(301, 250, 40, || rng.next_u64());
        let x_host = small_ints(|| rng.next_u64(), a.cols);
        let want = a.spmv(&x_host);
        let row_ptr = dev.upload(&a.row_ptr).unwrap();
        let col = dev.upload(&a.col).unwrap();
        let val = dev.upload(&a.val).unwrap();
        let x = dev.upload(&x_host).unwrap();
        let kernels: [(&str, [Spmv; 2], LaunchConfig); 3] = [
            (
                "spmv_csr_scalar",
                [
                    checked::spmv_csr_scalar::launch,
                    unchecked::spmv_csr_scalar::launch,
                ],
                config::one_per_element(a.rows),
            ),
            (
                "spmv_csr_inline",
                [
                    checked::spmv_csr_inline::launch,
                    unchecked::spmv_csr_inline::launch,
                ],
                config::one_per_element(a.rows),
            ),
            (
                "spmv_csr_warp",
                [
                    checked::spmv_csr_warp::launch,
                    unchecked::spmv_csr_warp::launch,
                ],
                config::warp_per_row(a.rows),
            ),
        ];
        let kernels = kernels.into_iter().flat_map(|(name, forms, cfg)| {
            FORMS
                .into_iter()
                .zip(forms)
                .map(move |(f, l)| (name, f, l, cfg))
        });
        for (name, form, launch, cfg) in kernels {
            let mut y = poisoned(&dev, a.rows);
            launch(&dev, cfg, &mut y, &row_ptr, &col, &val, &x, a.rows).unwrap();
            assert_same(name, form, &dev, &y.download().unwrap(), &want);
        }
    }
}

#[test]
fn matmul_32x8_equals_the_cpu() {
    for dev in devices("matmul_32x8") {
        // Ragged in every dimension over several blocks and slabs; one element.
        for (m, k, n) in [(70, 45, 37), (32, 32, 32), (1, 1, 1)] {
            let mut rng = Rng::new((m * k * n) as u64);
            let a_host = small_ints(|| rng.next_u64(), m * k);
            let b_host = small_ints(|| rng.next_u64(), k * n);
            let want = user_kernels::cpu_matmul(&a_host, &b_host, m, k, n);
            let a = dev.upload(&a_host).unwrap();
            let b = dev.upload(&b_host).unwrap();
            for form in FORMS {
                let mut c = poisoned(&dev, m * n);
                let cfg = config::matmul(m, n);
                match form {
                    "checked" => checked::matmul_32x8::launch(&dev, cfg, &mut c, &a, &b, m, k, n),
                    _ => unchecked::matmul_32x8::launch(&dev, cfg, &mut c, &a, &b, m, k, n),
                }
                .unwrap();
                let what = format!("matmul_32x8 {m}x{k}x{n}");
                assert_same(&what, form, &dev, &c.download().unwrap(), &want);
            }
        }
    }
}

#[test]
fn row_sums_equal_the_cpu() {
    for dev in devices("row_sums") {
        for (rows, cols) in [(19, 100), (8, 32), (3, 5)] {
            let mut rng = Rng::new((rows * cols) as u64);
            let a_host = small_ints(|| rng.next_u64(), rows * cols);
            let want = user_kernels::cpu_row_sums(&a_host, rows, cols);
            let a = dev.upload(&a_host).unwrap();
            for form in FORMS {
                let mut sums = poisoned(&dev, rows);
                let cfg = config::warp_per_row(rows);
                match form {
                    "checked" => checked::row_sums::launch(&dev, cfg, &mut sums, &a, rows, cols),
                    _ => unchecked::row_sums::launch(&dev, cfg, &mut sums, &a, rows, cols),
                }
                .unwrap();
                let what = format!("row_sums {rows}x{cols}");
                assert_same(&what, form, &dev, &sums.download().unwrap(), &want);
            }
        }
    }
}

#[test]
fn conv1d_shared_equals_the_cpu() {
    for dev in devices("conv1d_shared") {
        for n in [1000, 256, 5] {
            let mut rng = Rng::new(n as u64);
            let x_host = small_ints(|| rng.next_u64(), n);
            let w_host: Vec<f32> = (0..2 * RADIUS + 1)
                .map(|_| (rng.next_u64() % 9) as f32 - 4.0)
                .collect();
            let want = user_kernels::cpu_conv1d(&x_host, &w_host);
            let x = dev.upload(&x_host).unwrap();
            let w = dev.upload(&w_host).unwrap();
            for form in FORMS {
                let mut out = poisoned(&dev, n);
                let cfg = config::conv1d(n);
                match form {
                    "checked" => checked::conv1d_shared::launch(&dev, cfg, &mut out, &x, &w, n),
                    _ => unchecked::conv1d_shared::launch(&dev, cfg, &mut out, &x, &w, n),
                }
                .unwrap();
                let what = format!("conv1d_shared n = {n}");
                assert_same(&what, form, &dev, &out.download().unwrap(), &want);
            }
        }
    }
}

#[test]
fn nvrtc_compiles_every_kernel() {
    let mut all: Vec<(&str, &warpspeed::__private::KernelDef)> = Vec::new();
    for kernels in [checked::kernels(), unchecked::kernels()] {
        all.extend(kernels.into_iter().map(|k| (k.rust_name, k)));
    }
    common::nvrtc_compiles(&all);
}
