//! warpspeed: write CUDA kernels in Rust.
//!
//! `#[gpu_kernel]` translates a restricted Rust function into CUDA C while cargo builds;
//! at run time NVRTC compiles it for the GPU present, and `<kernel>::launch` runs it.
//! See README.md for the language and a first kernel.
//!
//! This crate is the facade: everything of [`warpspeed_core`] (the macros, the runtime,
//! the kernel language's vocabulary, the [`prelude`]) at its root, and the library of
//! algorithms written in warpspeed as [`algorithms`]. (The algorithms are a crate of their
//! own that depends on `warpspeed-core`, as a user's crate depends on `warpspeed`: the
//! facade re-exports them, so they cannot depend on the facade.)

pub use warpspeed_core::*;

pub use warpspeed_algorithms as algorithms;
