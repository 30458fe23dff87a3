//! How a kernel reaches a `#[gpu_device]` function it calls, on both sides: the function's
//! C (for the kernel's `SourceItem` dependencies) and its simulator body.
//!
//! `#[gpu_device] fn lerp(..)` fills rustc's three namespaces under one name: in the value
//! namespace the host function `lerp` (the plain Rust function, `sim/host.rs`), in the
//! macro namespace the hand-over macro that tells a caller the signature, and in the type
//! namespace a module `lerp` holding its C and a marker type of the function's name,
//! `lerp::lerp` (with the function's const parameters, `nth::nth<N>`), whose `with(ctx)`
//! binds it to a simulated thread and whose bound form's method `lerp` is the simulator
//! body. A caller names the marker inside a closure that is never called
//! (`|| { use super::*; lerp::lerp }`), in the user's scope, and [`device_fn`] takes the C
//! and the simulator body from the closure's result type. The caller asked the function's
//! hand-over macro at the same path first, so a call that cannot work fails there, with one
//! error ("cannot find macro `lerp` in this scope"), and its arguments were checked against
//! the signature by the kernel's type checker.

use crate::kernel_abi::SourceItem;

/// What `#[gpu_device]` implements for each device function (for the marker type in the
/// function's module): how a kernel that calls the function finds its C and its simulator
/// body. A kernel can call a function only where this is implemented (a second guard: the
/// caller asks the function's hand-over macro first, which only `#[gpu_device]` defines).
/// Not implemented by hand.
///
/// # Safety
/// `ITEM` points to a `static` (the function's `SourceItem`). It is a raw pointer, not a
/// reference, because rustc validates a constant reference by evaluating what it points
/// to: two device functions that call each other would make their statics' initializers
/// depend on each other, rustc's query cycle error instead of [`reaches`]'s message.
#[diagnostic::on_unimplemented(
    message = "kernels can call only #[gpu_device] functions",
    label = "not a #[gpu_device] function",
    note = "mark the function #[gpu_device] to call it from a kernel (its body must be in the kernel language)"
)]
pub unsafe trait DeviceFunction {
    /// The marker type itself. [`device_fn`] hands out this projection rather than the
    /// marker, so where the bound fails (a plain function's `i32`) the simulator call
    /// that follows has no type to report a second error about.
    type Sim: Copy;
    /// The function's C (every instance, for a generic function): a `static`.
    const ITEM: *const SourceItem;
    /// The marker value.
    const SIM: Self::Sim;
}

/// A value for each const argument of the never-run closure where a constant names a
/// const-generic device function (a caller's C dependencies, its cycle assertions): the
/// function's C is one template for every value, and a constant cannot name the caller's
/// own const parameters. Its type is the const parameter's, which rustc gives.
pub const fn const_hole<T: ConstHole>() -> T {
    T::HOLE
}

/// The types a const parameter of a kernel or device function may have (the integers and
/// `bool`), for [`const_hole`].
pub trait ConstHole: Sized {
    /// Any value of the type.
    const HOLE: Self;
}

macro_rules! const_hole {
    ($($t:ty = $v:expr),*) => { $(impl ConstHole for $t { const HOLE: Self = $v; })* };
}
const_hole!(
    bool = false,
    i8 = 0,
    i16 = 0,
    i32 = 0,
    i64 = 0,
    isize = 0,
    u8 = 0,
    u16 = 0,
    u32 = 0,
    u64 = 0,
    usize = 0
);

/// A `#[gpu_device]` function as [`device_fn`] found it.
pub struct DeviceFnRef<M> {
    /// A `static` (see [`DeviceFunction`]).
    item: *const SourceItem,
    marker: M,
}

/// The callee of `call`, a closure that is never run and names the marker of the function the kernel
/// names (see the module docs). One function for both uses, so a plain Rust function
/// called from a kernel is one error, not one per use.
pub const fn device_fn<F: Fn() -> M, M: DeviceFunction>(_call: &F) -> DeviceFnRef<M::Sim> {
    DeviceFnRef {
        item: M::ITEM,
        marker: M::SIM,
    }
}

// Unbounded, so a failed `device_fn` is the only error.
impl<M> DeviceFnRef<M> {
    /// The callee's C, for the caller's `SourceItem::deps`.
    pub const fn item(&self) -> &'static SourceItem {
        // SAFETY: `item` came from `DeviceFunction::ITEM`, which points to a `static`.
        unsafe { &*self.item }
    }

    /// The callee's marker, whose method of the function's name is its simulator body.
    pub fn marker(self) -> M {
        self.marker
    }
}

/// `callee`, for a call that names no const arguments: a function that has const
/// parameters is then [`NoConstParams`]'s error, one hard error that stands for the
/// "cannot infer the value of the const parameter" of each use of its marker. Where
/// [`device_fn`] failed (a plain Rust function), `M` is already an error and this adds none.
pub const fn without_const_args<M: NoConstParams>(callee: DeviceFnRef<M>) -> DeviceFnRef<M> {
    callee
}

/// What `#[gpu_device]` implements for each device function without const parameters (for
/// the marker type in the function's module, which has the function's name). A kernel's
/// call that names no const arguments (`nth(x)`) requires it, so calling a function with
/// const parameters (`fn nth<const N: usize>`) without them is the error "this device
/// function has const parameters, which the call must name": Rust infers no const
/// parameter of a device function, so every call names them (`nth::<4>(x)`). Not
/// implemented by hand.
#[diagnostic::on_unimplemented(
    message = "this device function has const parameters, which the call must name",
    label = "name the const arguments, as Rust requires: `f::<4>(..)`, `f::<f32, TILE>(..)`",
    note = "Rust infers a const parameter only from an array length in a parameter's type, and a device function's array parameters have literal lengths"
)]
pub trait NoConstParams {}

/// Whether `from` calls `to`, directly or through the functions it calls (at most 32
/// calls deep), or is `to`. Evaluated by rustc at compile time for each call of one device
/// function from another: a call whose callee leads back to the caller is a cycle, which
/// the GPU's fixed per-thread stack cannot hold and which `#[gpu_kernel]` refuses. Items
/// are told apart by Rust name and C prototype (two device functions of one name and one
/// signature cannot be called from one kernel anyway: their C would clash).
pub const fn reaches(from: &SourceItem, to: &SourceItem) -> bool {
    reaches_within(from, to, 32)
}

const fn reaches_within(from: &SourceItem, to: &SourceItem, depth: u32) -> bool {
    if same_str(from.rust_name, to.rust_name) && same_str(from.prototype, to.prototype) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let mut i = 0;
    while i < from.deps.len() {
        if reaches_within(from.deps[i], to, depth - 1) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether the call of `from` by `to` closes a cycle (`from` reaches `to`) that `to` is
/// the first of, by Rust name and C prototype: of the functions on a cycle, only that one
/// reports it, so a cycle of three functions is one error, not three.
pub const fn first_of_cycle(from: &SourceItem, to: &SourceItem) -> bool {
    reaches(from, to) && !earlier_on_cycle(from, to, 32)
}

/// Whether a function on a path from `x` back to `to` (not through `to`) comes before
/// `to`.
const fn earlier_on_cycle(x: &SourceItem, to: &SourceItem, depth: u32) -> bool {
    if same_str(x.rust_name, to.rust_name) && same_str(x.prototype, to.prototype) {
        return false;
    }
    if depth == 0 || !reaches_within(x, to, depth) {
        return false;
    }
    if before(x, to) {
        return true;
    }
    let mut i = 0;
    while i < x.deps.len() {
        if earlier_on_cycle(x.deps[i], to, depth - 1) {
            return true;
        }
        i += 1;
    }
    false
}

/// `a` before `b`: by Rust name, then C prototype.
const fn before(a: &SourceItem, b: &SourceItem) -> bool {
    match compare(a.rust_name, b.rust_name) {
        0 => compare(a.prototype, b.prototype) < 0,
        c => c < 0,
    }
}

/// -1, 0 or 1 as `a` is before, equal to or after `b`, byte by byte.
const fn compare(a: &str, b: &str) -> i8 {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return if a[i] < b[i] { -1 } else { 1 };
        }
        i += 1;
    }
    if a.len() < b.len() {
        -1
    } else if a.len() > b.len() {
        1
    } else {
        0
    }
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A device function's call on the simulator: its future as it is, or, where the call
/// closes a cycle (`CYCLE`, from [`reaches`]), boxed. A cycle is a compile error anyway
/// (the caller's assertion says which functions); the box only keeps rustc from adding
/// its own "recursion in an async fn requires boxing" about the simulator's futures. Calls
/// outside cycles, every call of a program that compiles, cost nothing.
pub fn sim_call<const CYCLE: bool, F>(call: F) -> <Recursion<CYCLE> as SimCall<F>>::Out
where
    Recursion<CYCLE>: SimCall<F>,
{
    <Recursion<CYCLE> as SimCall<F>>::wrap(call)
}

/// Whether a call closes a cycle of device functions (see [`sim_call`]).
pub struct Recursion<const CYCLE: bool>;

/// The future a simulator call awaits (see [`sim_call`]).
pub trait SimCall<F> {
    /// The future.
    type Out;
    /// `call` as that future.
    fn wrap(call: F) -> Self::Out;
}

impl<F: std::future::Future> SimCall<F> for Recursion<false> {
    type Out = F;
    fn wrap(call: F) -> F {
        call
    }
}

impl<F: std::future::Future> SimCall<F> for Recursion<true> {
    type Out = std::pin::Pin<Box<F>>;
    fn wrap(call: F) -> Self::Out {
        Box::pin(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn item(name: &'static str, deps: &'static [&'static SourceItem]) -> SourceItem {
        SourceItem {
            rust_name: name,
            prototype: "void f()",
            definition: "",
            deps,
            consts: None,
        }
    }

    // a -> b -> c -> a, and d -> a (d is outside the cycle).
    static A: SourceItem = item("a", &[&B]);
    static B: SourceItem = item("b", &[&C]);
    static C: SourceItem = item("c", &[&A]);
    static D: SourceItem = item("d", &[&A]);

    #[test]
    fn a_cycle_is_reported_by_its_first_function_only() {
        // Each call's check: `first_of_cycle(callee, caller)`.
        assert!(first_of_cycle(&B, &A));
        assert!(!first_of_cycle(&C, &B));
        assert!(!first_of_cycle(&A, &C));
        assert!(!first_of_cycle(&A, &D));
        assert!(reaches(&A, &C) && reaches(&C, &B));
    }
}
