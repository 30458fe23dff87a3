//! Helpers of the simulator tests: kernels written the way `#[gpu_kernel]` emits them
//! (a `KernelDef`, an entry that unpacks the arguments from the `ThreadCtx`, an `async fn`
//! body that passes a `static SrcLoc` for every access and sync point), a PRNG, launches.

#![allow(dead_code, unused_macros)]

use std::sync::LazyLock;

use warpspeed_runtime::__private::{launch, launch_cooperative, KernelArgs, KernelDef};
use warpspeed_runtime::{Device, Error, LaunchConfig, SimOptions};

/// The `&'static SrcLoc` of the place it is written, as generated code passes a site.
macro_rules! at {
    () => {{
        static AT: ::warpspeed_runtime::__private::SrcLoc =
            ::warpspeed_runtime::__private::SrcLoc::new(file!(), line!(), column!());
        &AT
    }};
}

/// A named site, for tests that check the line a report gives.
macro_rules! site {
    ($name:ident) => {
        static $name: ::warpspeed_runtime::__private::SrcLoc =
            ::warpspeed_runtime::__private::SrcLoc::new(file!(), line!(), column!());
    };
}

/// `kernel!(NAME, "name", ["param", ..], entry)`: a simulator-only kernel definition;
/// `kernel!(grid_sync NAME, ...)`: one that calls `this_grid().sync()`.
macro_rules! kernel {
    ($name:ident, $rust:literal, [$($p:literal),* $(,)?], $entry:path) => {
        kernel!(@def false, $name, $rust, [$($p),*], $entry);
    };
    (grid_sync $name:ident, $rust:literal, [$($p:literal),* $(,)?], $entry:path) => {
        kernel!(@def true, $name, $rust, [$($p),*], $entry);
    };
    (@def $grid_sync:literal, $name:ident, $rust:literal, [$($p:literal),*], $entry:path) => {
        static $name: ::warpspeed_runtime::__private::KernelDef =
            ::warpspeed_runtime::__private::KernelDef {
                rust_name: $rust,
                entry: $rust,
                source: &crate::sim_common::NO_SOURCE,
                options: ::warpspeed_runtime::__private::KernelOptions { fast_math: false },
                params: &[$($p),*],
                grid_sync: $grid_sync,
                block: None,
                sim: $entry,
                provable: &[],
            };
    };
}

/// The CUDA source of simulator-only kernels.
pub static NO_SOURCE: LazyLock<String> = LazyLock::new(String::new);

/// The simulator with every check on and threads in order, whatever the environment.
pub fn sim() -> Device {
    Device::simulator_with(SimOptions::default())
}

/// Launches `kernel` with the arguments `fill` packs.
pub fn run<'a>(
    dev: &Device,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    fill: impl FnOnce(&mut KernelArgs<'a>),
) -> Result<(), Error> {
    let mut args = KernelArgs::new();
    fill(&mut args);
    launch(dev, kernel, cfg, args)
}

/// Launches `kernel` cooperatively with the arguments `fill` packs.
pub fn run_cooperative<'a>(
    dev: &Device,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    fill: impl FnOnce(&mut KernelArgs<'a>),
) -> Result<(), Error> {
    let mut args = KernelArgs::new();
    fill(&mut args);
    launch_cooperative(dev, kernel, cfg, args)
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
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The error of a launch that must fail, or a panic naming what it did instead.
pub fn expect_err<T: std::fmt::Debug>(result: Result<T, Error>) -> Error {
    match result {
        Err(e) => e,
        Ok(v) => panic!("the launch succeeded ({v:?}), but it should have failed"),
    }
}
