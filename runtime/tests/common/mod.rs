//! Helpers shared by the runtime's integration tests: skip-or-fail rules for machines
//! without a GPU or NVRTC, a small PRNG, temporary directories.

#![allow(dead_code)]

use warpspeed_runtime::{Backend, Device};

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// Whether NVRTC tests can run; prints a skip notice when not, and panics when
/// `WARPSPEED_REQUIRE_NVRTC=1`.
pub fn nvrtc_or_skip(test: &str) -> bool {
    if warpspeed_runtime::compile::nvrtc_available() {
        return true;
    }
    assert!(
        !required("WARPSPEED_REQUIRE_NVRTC"),
        "{test}: WARPSPEED_REQUIRE_NVRTC=1 but libnvrtc cannot be loaded"
    );
    eprintln!("SKIPPED {test}: NVRTC not available (set LD_LIBRARY_PATH to the directory of libnvrtc.so.13)");
    false
}

/// GPU 0, or `None` with a skip notice; panics when `WARPSPEED_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Device> {
    match Device::cuda(0) {
        Ok(dev) => Some(dev),
        Err(err) => {
            assert!(
                !required("WARPSPEED_REQUIRE_GPU"),
                "{test}: WARPSPEED_REQUIRE_GPU=1 but {err}"
            );
            eprintln!("SKIPPED {test}: no GPU ({err})");
            None
        }
    }
}

/// The device `Device::new` picks, checked against `WARPSPEED_REQUIRE_GPU`.
pub fn any_device() -> Device {
    let dev = Device::new().expect("Device::new");
    if required("WARPSPEED_REQUIRE_GPU") {
        assert_eq!(
            dev.backend(),
            Backend::Cuda,
            "WARPSPEED_REQUIRE_GPU=1 but Device::new chose {dev:?}"
        );
    }
    dev
}

/// xorshift64*: deterministic pseudo-random numbers without a dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
}

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!("warpspeed-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
