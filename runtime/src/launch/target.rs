//! [`LaunchTarget`]: what a kernel's generated `launch` takes as its first argument, a
//! `&Device` (its own queue) or a `&Stream`.

use crate::device::{Device, Stream};

/// Where a kernel's `launch` queues it: on a [`Device`] (its own queue) or on a
/// [`Stream`]. Implemented by those two, and by references to them, so that
/// `launch(&dev, ..)` also compiles where `dev` is itself a `&Device` (a helper's
/// parameter).
#[diagnostic::on_unimplemented(
    message = "a kernel is launched on a `&Device` or a `&Stream`, not on `{Self}`",
    label = "pass the device (`&dev`) or a stream (`&s`) here"
)]
pub trait LaunchTarget: sealed::Sealed {
    /// The device that runs the kernel.
    fn device(&self) -> &Device;
    /// The stream it is queued on; `None` for the device's own queue.
    fn stream(&self) -> Option<&Stream>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Device {}
    impl Sealed for crate::device::Stream {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
}

impl<T: LaunchTarget + ?Sized> LaunchTarget for &T {
    fn device(&self) -> &Device {
        (**self).device()
    }
    fn stream(&self) -> Option<&Stream> {
        (**self).stream()
    }
}

impl LaunchTarget for Device {
    fn device(&self) -> &Device {
        self
    }
    fn stream(&self) -> Option<&Stream> {
        None
    }
}

impl LaunchTarget for Stream {
    fn device(&self) -> &Device {
        &self.device
    }
    fn stream(&self) -> Option<&Stream> {
        Some(self)
    }
}
