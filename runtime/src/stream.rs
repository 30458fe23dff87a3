//! Streams, events and pinned host memory: the types ([`Stream`], [`Event`],
//! [`PinnedBuffer`]) and [`LaunchTarget`], through which a kernel's generated `launch`
//! takes a `&Device` or a `&Stream`.
//!
//! The operations that depend on the backend live where the backend is matched on:
//! `device.rs` (creating streams, synchronising, events), `memory.rs` (pinned memory and
//! the copies on a stream), `launch/` (launching on a stream). docs/host-api.md, "Streams",
//! has the rules: stream order, the simulator's check of it, and the in-flight rule.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaEvent, CudaStream, PinnedHostSlice};

use crate::device::Device;
use crate::scalar::KernelScalar;
use crate::sim::{EventClock, HostAlloc, StreamId};

/// A queue of work on a device: kernels launched and copies queued on one stream run in
/// order, and concurrently with the device's other streams. Created by
/// [`Device::create_stream`]; cheap to clone (the clones are the same stream).
///
/// Launch on it through a kernel's `launch`, which takes a `&Stream` as it takes a
/// `&Device` (`scale::launch(&s, cfg, &mut buf, 2.0)?`); copy with
/// [`Stream::upload`]/[`Stream::download`] (from and to [`PinnedBuffer`]s) and
/// [`Stream::copy`]; order it after another stream with [`Stream::wait`] on an
/// [`Event`] that stream recorded.
///
/// ```
/// # fn main() -> Result<(), warpspeed_runtime::Error> {
/// use warpspeed_runtime::Device;
/// let dev = Device::simulator();
/// let (s, t) = (dev.create_stream()?, dev.create_stream()?);
/// let mut buf = dev.zeros::<f32>(4)?;
/// let mut pinned = dev.alloc_pinned::<f32>(4)?;
/// pinned.as_mut_slice()?.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
/// s.upload(&pinned, &mut buf)?;
/// let uploaded = s.record()?;
/// t.wait(&uploaded)?; // without it, t's download would be refused on the simulator
/// let mut back = dev.alloc_pinned::<f32>(4)?;
/// t.download(&buf, &mut back)?;
/// assert_eq!(back.as_slice()?, &[1.0, 2.0, 3.0, 4.0]); // waits for the download
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) inner: StreamInner,
}

/// A stream on its device's backend (the variants are named as `Backend`'s).
#[derive(Clone)]
pub(crate) enum StreamInner {
    Cuda(Arc<CudaStream>),
    /// Its number among the simulated device's streams (from 1).
    Simulator(StreamId),
}

/// A point in a stream's work, recorded by [`Stream::record`]: another stream may wait for
/// it ([`Stream::wait`]), the host may wait for it ([`Event::synchronize`]), and two of
/// them measure the time between ([`Event::elapsed_since`]).
pub struct Event {
    pub(crate) device: Device,
    pub(crate) inner: EventInner,
}

/// An event on its device's backend.
pub(crate) enum EventInner {
    /// A CUDA event with timing.
    Cuda(CudaEvent),
    /// The simulator runs work when it is queued: the host's time then, and the stream's
    /// order at the record (`sim/order.rs`).
    Simulator { at: Instant, clock: EventClock },
}

/// Page-locked ("pinned") host memory of `len` elements of `T`, which a [`Stream`] copies
/// from and to asynchronously ([`Stream::upload`], [`Stream::download`]); allocated zeroed
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
    impl Sealed for super::Stream {}
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

impl Stream {
    /// The device whose work this stream queues.
    pub fn device(&self) -> &Device {
        &self.device
    }

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

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream on {}", self.device.describe())
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event on {}", self.device.describe())
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
