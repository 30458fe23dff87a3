//! The register-tiled matmul of examples/kernels/matmul.rs (docs/matmul.md): its checked C
//! keeps no bounds check (the prover removes every one, so checked costs what unchecked
//! does), and it computes what the CPU does on sizes that are not multiples of its 128x128
//! tiles and 8-deep slabs, over several blocks and slabs, on the simulator and the GPU.

mod common;
#[path = "../examples/kernels/matmul.rs"]
mod matmul_kernels;

use common::{devices, Rng};
use matmul_kernels::{checked, cpu_element, matmul_reg_config, small_ints, unchecked};

/// The C after the prelude, where the kernel's own code is.
fn kernel_c(source: &str) -> &str {
    source
        .split("// ---- end of the prelude")
        .nth(1)
        .expect("the prelude's end marker")
}

#[test]
fn the_checked_kernels_keep_no_check() {
    for (name, source) in [
        ("matmul_tiled", &*checked::matmul_tiled::CUDA_SOURCE),
        ("matmul_reg", &*checked::matmul_reg::CUDA_SOURCE),
    ] {
        let c = kernel_c(source);
        for check in ["ws_ld(", "ws_ld_d(", "ws_at(", "ws_at_shared("] {
            assert!(!c.contains(check), "{name} keeps a {check}..):\n{c}");
        }
    }
}

#[test]
fn matmul_reg_equals_the_cpu_on_ragged_sizes() {
    type Launch = fn(
        &warpspeed::Device,
        warpspeed::LaunchConfig,
        &mut warpspeed::DeviceBuffer<f32>,
        &warpspeed::DeviceBuffer<f32>,
        &warpspeed::DeviceBuffer<f32>,
        usize,
        usize,
        usize,
    ) -> warpspeed::Result<()>;
    let forms: [(&str, Launch); 2] = [
        ("checked", checked::matmul_reg::launch),
        ("unchecked", unchecked::matmul_reg::launch),
    ];
    for dev in devices("matmul_reg") {
        // (m, k, n): the fast path; ragged edges in every dimension over 2x2 blocks and 3
        // slabs; fewer than one slab; one element.
        for (m, k, n) in [(128, 16, 128), (130, 20, 131), (5, 3, 7), (1, 1, 1)] {
            let mut rng = Rng::new((m * k * n) as u64);
            let a_host = small_ints(|| rng.next_u64(), m * k);
            let b_host = small_ints(|| rng.next_u64(), k * n);
            let a = dev.upload(&a_host).unwrap();
            let b = dev.upload(&b_host).unwrap();
            let want: Vec<f32> = (0..m * n)
                .map(|i| cpu_element(&a_host, &b_host, k, n, i / n, i % n))
                .collect();
            for (form, launch) in forms {
                let mut c = dev.upload(&vec![f32::NAN; m * n]).unwrap();
                launch(&dev, matmul_reg_config(m, n), &mut c, &a, &b, m, k, n).unwrap();
                let got = c.download().unwrap();
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| g.to_bits() == w.to_bits());
                assert!(
                    same,
                    "{form} matmul_reg {m}x{k}x{n} on {:?} differs from the CPU",
                    dev.backend()
                );
            }
        }
    }
}
