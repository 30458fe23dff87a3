//! [`LaunchTarget`]: what a kernel's generated `launch` takes as its first argument, a
//! `&Device` (its own queue) or a `&Stream`.

use crate::device::{Device, Stream};

/// Where a kernel's `launch` queues it: on a [`Device`] (its own queue) or on a
/// [`Stream`]. Implemented by those two only.
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
