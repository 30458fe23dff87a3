//! How a kernel reaches a `#[gpu_device]` function it calls, on both sides: the function's
//! C (for the kernel's `SourceItem` dependencies) and its simulator body.
//!
//! `#[gpu_device] fn lerp(..)` expands to a module `lerp` (its C, and a marker type
//! `lerp::Marker` whose `__sim` method is the simulator body) and, in the value namespace, a
//! hidden `fn lerp(_: Infallible, ..) -> lerp::Marker` with one parameter per parameter of
//! the function. A caller names the callee through that hidden function, inside a closure
//! that is never called (`|| lerp(loop {}, loop {}, loop {})`): rustc resolves the user's
//! path in the user's scope, checks the number of arguments, and gives the closure the
//! marker as its result type, from which [`device_fn`] takes the C and the simulator body.
//! So a call that cannot work fails with rustc's own words about the user's code: "cannot
//! find function `lerp` in this scope" for a missing function, "this function takes 3
//! arguments but 2 arguments were supplied", or, for a plain Rust function, the
//! [`DeviceFnMarker`] error below. (A module path, `super::lerp::__sim`, failed with
//! "cannot find `lerp` in `super`", a name the user never wrote.)

use crate::kernel_abi::SourceItem;

/// The marker type of a `#[gpu_device]` function (`lerp::Marker`), implemented by the
/// macro only: the function's C, and the marker value whose `__sim` runs it on the
/// simulator.
#[diagnostic::on_unimplemented(
    message = "kernels can call only #[gpu_device] functions",
    label = "not a #[gpu_device] function",
    note = "mark the function #[gpu_device] to call it from a kernel (its body must be in the kernel language)"
)]
pub trait DeviceFnMarker {
    /// The marker type itself. [`device_fn`] hands out this projection rather than the
    /// marker, so where the bound fails (a plain function's `i32`) the simulator call
    /// that follows has no type to report a second error about.
    type Sim: Copy;
    /// The function's C (every instance, for a generic function).
    const ITEM: &'static SourceItem;
    /// The marker value.
    const SIM: Self::Sim;
}

/// A `#[gpu_device]` function as [`device_fn`] found it.
pub struct DeviceFnRef<M> {
    item: &'static SourceItem,
    marker: M,
}

/// The callee of `call`, a closure that is never run and calls the function the kernel
/// names (see the module docs). One function for both uses, so a plain Rust function
/// called from a kernel is one error, not one per use.
pub const fn device_fn<F: Fn() -> M, M: DeviceFnMarker>(_call: &F) -> DeviceFnRef<M::Sim> {
    DeviceFnRef {
        item: M::ITEM,
        marker: M::SIM,
    }
}

// Unbounded, so a failed `device_fn` is the only error.
impl<M> DeviceFnRef<M> {
    /// The callee's C, for the caller's `SourceItem::deps`.
    pub const fn item(&self) -> &'static SourceItem {
        self.item
    }

    /// The callee's marker, whose `__sim` method is its simulator body.
    pub fn marker(self) -> M {
        self.marker
    }
}
