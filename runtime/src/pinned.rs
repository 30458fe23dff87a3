//! Page-locked host memory: the type [`PinnedBuffer`], which a `Stream` copies from and to
//! asynchronously. Its operations depend on the backend and live in `memory.rs` (with the
//! copies on a stream); docs/host-api.md, "Streams", has the in-flight rule.

use cudarc::driver::PinnedHostSlice;

use crate::device::Device;
use crate::scalar::KernelScalar;
use crate::sim::HostAlloc;

/// Page-locked ("pinned") host memory of `len` elements of `T`, which a [`Stream`](crate::Stream) copies
/// from and to asynchronously ([`Stream::upload`](crate::Stream::upload), [`Stream::download`](crate::Stream::download)); allocated zeroed
/// by [`Device::alloc_pinned`] or [`Device::pinned_from`].
///
/// The host reaches the elements only through [`PinnedBuffer::as_slice`] and
/// [`PinnedBuffer::as_mut_slice`], which first wait until no queued copy uses the memory
/// (the in-flight rule, docs/host-api.md); dropping it waits too. On the simulator it is
/// ordinary host memory and copies finish when they are queued.
pub struct PinnedBuffer<T: KernelScalar> {
    pub(crate) device: Device,
    pub(crate) len: usize,
    pub(crate) storage: PinnedStorage<T>,
}

/// Pinned memory on its device's backend: bytes on a GPU (cudarc's `DeviceRepr` is not a
/// bound of `KernelScalar`, as for device buffers), elements on the simulator.
pub(crate) enum PinnedStorage<T> {
    Cuda(PinnedHostSlice<u8>),
    Simulator(HostAlloc<T>),
}

impl<T: KernelScalar> PinnedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device whose streams copy from and to it.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl<T: KernelScalar> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PinnedBuffer<{}>[{}] for {}",
            T::C_NAME,
            self.len,
            self.device.describe()
        )
    }
}
