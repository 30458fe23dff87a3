//! A crate that depends on warpspeed under another name (`ws`), as a library that
//! re-exports warpspeed does: with no `warpspeed` in scope, its macros are told the path
//! with `crate = "::ws"` (docs/language.md, "Crates that re-export warpspeed"). A struct,
//! a device function, a kernel and a generic kernel; `tests/reexport.rs` launches them.

use ws::prelude::*;

/// `y = a * x + b`.
#[gpu_struct(crate = "::ws")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Affine {
    pub a: f32,
    pub b: f32,
}

/// The map, on the host as in kernels.
#[gpu_device(crate = "::ws")]
pub fn apply(t: Affine, x: f32) -> f32 {
    t.a * x + t.b
}

/// `y[i] = apply(t, x[i])`.
#[gpu_kernel(crate = "::ws")]
pub fn map(t: Affine, x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] = apply(t, x[i]);
    }
}

/// `x[i] *= s`, for each float type (`f16` among them: a library type the generated code
/// names through the crate path).
#[gpu_kernel(crate = "::ws")]
pub fn scale<T: Float>(s: T, x: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        x[i] = x[i] * s;
    }
}
