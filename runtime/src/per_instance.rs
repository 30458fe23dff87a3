//! What a generic kernel's module has where a concrete kernel's has the statics
//! `CUDA_SOURCE` and `KERNEL`: a generic kernel has one C program and one [`KernelDef`] per
//! instance, so it has the functions every kernel module has, `cuda_source::<..>()` and
//! `kernel::<..>()`, and in place of the statics a [`PerInstance`] whose use is a compile
//! error saying which function to call (docs/language.md, "Generics").

use crate::kernel_abi::KernelDef;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// A generic kernel's `CUDA_SOURCE` or `KERNEL`, which do not exist: the C and the
/// [`KernelDef`] are per instance, `axpy::cuda_source::<f32>()` and
/// `axpy::kernel::<f32>()` (every kernel module has both functions; a concrete kernel also
/// has the statics). Reading it does not compile; rustc's warning names the function to
/// call for this kernel.
pub struct PerInstance<W: 'static>(PhantomData<&'static W>);

impl<W> PerInstance<W> {
    /// The stand-in the macro puts in a generic kernel's module. Not an API.
    #[doc(hidden)]
    pub const fn new() -> Self {
        PerInstance(PhantomData)
    }
}

/// What `*axpy::CUDA_SOURCE` gives on a generic kernel: nothing to print.
pub struct NoInstance<W: 'static>(PhantomData<&'static W>);

/// Holds for no type: the bound that turns a read of a generic kernel's `CUDA_SOURCE` or
/// `KERNEL` into an error that says what to write.
#[diagnostic::on_unimplemented(
    message = "a generic kernel has one C program and one `KernelDef` per instance, not a `CUDA_SOURCE` or `KERNEL`: call its module's `cuda_source::<..>()` or `kernel::<..>()` with the instance's parameters (`axpy::cuda_source::<f32>()`, `block_sum::kernel::<256>()`)",
    label = "a generic kernel's, which has no single program"
)]
pub trait Instance {}

impl<W> Deref for PerInstance<W> {
    type Target = NoInstance<W>;
    fn deref(&self) -> &NoInstance<W> {
        &NoInstance(PhantomData)
    }
}

impl<W: Instance> fmt::Display for PerInstance<W> {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        unreachable!("no type implements `Instance`")
    }
}

impl<W: Instance> fmt::Display for NoInstance<W> {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        unreachable!("no type implements `Instance`")
    }
}

impl<W: Instance> AsRef<KernelDef> for PerInstance<W> {
    fn as_ref(&self) -> &KernelDef {
        unreachable!("no type implements `Instance`")
    }
}
