//! Algorithms written in warpspeed, for buffers and views on a GPU or the simulator
//! (issue 22; re-exported as `warpspeed::algorithms`).
//!
//! Every kernel here is an ordinary `#[gpu_kernel]`, written with the public API only, as a
//! user's crate would (its macros are told `crate = "::warpspeed_core"`, since this crate
//! sits below the `warpspeed` facade that re-exports it): read them, copy them. Each
//! algorithm runs on both backends and checks its input before anything is launched.
//!
//! | module | what |
//! |---|---|
//! | [`reduce`] | [`reduce::sum`], [`reduce::min`], [`reduce::max`] of any integer or float buffer or view |

pub mod reduce;
