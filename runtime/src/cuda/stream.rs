//! Streams, events and pinned host memory on the GPU, each driver result through
//! [`Faults::check`](super::result::Faults::check): a fault of an earlier kernel seen by a
//! stream's synchronisation, an event or an asynchronous copy is named as `KernelFault`,
//! then `ContextLost`, as everywhere else.
//!
//! Streams are cudarc's (`CudaContext::new_stream`: non-blocking streams; the first one
//! puts the context in cudarc's multi-stream mode, where every allocation's reads and
//! writes are recorded as events and a stream that uses an allocation first waits for
//! the other streams' earlier uses of it). That is what keeps the host from freeing,
//! overwriting or reading memory an unfinished operation uses (docs/host-api.md, "The
//! in-flight rule"): a buffer is freed on its stream after the events of its last uses,
//! pinned memory's accessors wait for the event of its last copy.
//!
//! Pinned memory is cudarc's `PinnedHostSlice<u8>` (`cuMemHostAlloc` without the
//! write-combined flag, so the host may read it quickly), viewed as elements by the
//! caller.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream, HostSlice, PinnedHostSlice, SyncOnDrop};

use super::device::CudaDevice;
use super::memory::CudaBuffer;
use crate::error::Result;

/// What waiting for pinned memory's copies is called in errors.
const PINNED_WAIT: &str =
    "waiting for the copies that use pinned memory (the error may come from an \
                           earlier asynchronous kernel launch or copy)";

impl CudaDevice {
    /// A new stream of this device's context.
    pub(crate) fn create_stream(&self) -> Result<Arc<CudaStream>> {
        self.faults.alive()?;
        // Set first: a synchronisation that starts once the stream exists must wait for
        // it (a stream made by a failed call is never used).
        self.has_streams.store(true, Ordering::Release);
        let created = self.stream.context().new_stream();
        self.faults.check(created, "creating a stream", None)
    }

    /// Waits until everything queued on `stream` is done, and reports a fault of its
    /// work (or of any other work of the context the driver reports with it).
    /// Launches stay recorded as unsynchronised until the device synchronises, as do
    /// bounds records, which only `Device::synchronize` and downloads read (reading them
    /// while other streams run could read a record as a kernel writes it).
    pub(crate) fn synchronize_stream(&self, stream: &CudaStream) -> Result<()> {
        const WHAT: &str = "synchronizing a stream (the error may come from an earlier \
                            asynchronous kernel launch or copy)";
        self.faults.alive()?;
        self.faults.check(stream.synchronize(), WHAT, None)?;
        self.faults
            .check(self.stream.context().check_err(), WHAT, None)
    }

    /// An event recorded on `stream` now, with timing, so `elapsed` may measure it.
    pub(crate) fn record(&self, stream: &CudaStream) -> Result<CudaEvent> {
        self.faults.alive()?;
        let recorded = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT));
        self.faults.check(recorded, "recording an event", None)
    }

    /// `stream` waits for `event` (`cuStreamWaitEvent`) before its later work.
    pub(crate) fn wait(&self, stream: &CudaStream, event: &CudaEvent) -> Result<()> {
        self.faults.alive()?;
        self.faults.check(
            stream.wait(event),
            "making a stream wait for an event",
            None,
        )
    }

    /// Waits until the work before `event` is done.
    pub(crate) fn synchronize_event(&self, event: &CudaEvent) -> Result<()> {
        self.faults.alive()?;
        self.faults.check(
            event.synchronize(),
            "waiting for an event (the error may come from an earlier asynchronous kernel \
             launch or copy)",
            None,
        )
    }

    /// Milliseconds from `start` to `end`, after both are done.
    pub(crate) fn elapsed_ms(&self, start: &CudaEvent, end: &CudaEvent) -> Result<f32> {
        self.faults.alive()?;
        self.faults.check(
            start.elapsed_ms(end),
            "measuring the time between two events (cuEventElapsedTime)",
            None,
        )
    }

    /// `bytes` bytes of zeroed page-locked host memory (at least one: `cuMemHostAlloc`
    /// refuses 0).
    pub(crate) fn alloc_pinned(&self, bytes: usize) -> Result<PinnedHostSlice<u8>> {
        const WHAT: &str = "allocating page-locked host memory (cuMemHostAlloc)";
        self.faults.alive()?;
        // SAFETY: the memory is uninitialised, and zeroed below before anyone reads it.
        let allocated = unsafe {
            self.stream
                .context()
                .alloc_pinned_with_flags::<u8>(bytes.max(1), 0)
        };
        let mut pinned = self.faults.check(allocated, WHAT, None)?;
        let ptr = self.faults.check(pinned.as_mut_ptr(), WHAT, None)?;
        // SAFETY: `ptr` is the start of the `bytes.max(1)` bytes just allocated, which no
        // copy uses yet.
        unsafe { std::ptr::write_bytes(ptr, 0, bytes.max(1)) };
        Ok(pinned)
    }

    /// Queues a copy of the bytes `range` of `src` (pinned) to `dst` from byte `at` on, on
    /// `stream`; cudarc records it on both, so their later users wait for it. The caller
    /// skips empty copies (an empty pinned buffer holds one unused byte).
    pub(crate) fn upload_pinned(
        &self,
        stream: &Arc<CudaStream>,
        src: &PinnedHostSlice<u8>,
        range: Range<usize>,
        dst: &mut CudaBuffer,
        at: usize,
    ) -> Result<()> {
        self.faults.alive()?;
        let mut dst = dst.slice_mut(at..at + range.len());
        let src = PinnedBytes { pinned: src, range };
        let copied = stream.memcpy_htod(&src, &mut dst);
        self.faults.check(
            copied,
            "queuing an upload from pinned memory on a stream",
            None,
        )
    }

    /// Queues a copy of `range.len()` bytes of `src` from byte `at` on into the bytes
    /// `range` of `dst` (pinned), on `stream`. The caller skips empty copies.
    pub(crate) fn download_pinned(
        &self,
        stream: &Arc<CudaStream>,
        src: &CudaBuffer,
        at: usize,
        dst: &mut PinnedHostSlice<u8>,
        range: Range<usize>,
    ) -> Result<()> {
        self.faults.alive()?;
        let src = src.slice(at..at + range.len());
        let mut dst = PinnedBytesMut { pinned: dst, range };
        let copied = stream.memcpy_dtoh(&src, &mut dst);
        self.faults.check(
            copied,
            "queuing a download into pinned memory on a stream",
            None,
        )
    }

    /// The start of `pinned`, once the copies queued on it are done (cudarc's event of
    /// its last copy); a fault among them is reported.
    pub(crate) fn pinned_bytes(&self, pinned: &PinnedHostSlice<u8>) -> Result<*const u8> {
        self.faults.alive()?;
        self.faults.check(pinned.as_ptr(), PINNED_WAIT, None)
    }
}

/// The bytes `range` of a pinned allocation, which a stream copies from: cudarc's copies
/// take a whole `PinnedHostSlice`, so a view of one (`PinnedBuffer::slice`) is this. It
/// goes through the allocation's own `HostSlice` methods, so cudarc's one event per pinned
/// allocation still orders the copy after the allocation's earlier copies and the host's
/// accesses after it (docs/host-api.md, "Streams").
struct PinnedBytes<'a> {
    pinned: &'a PinnedHostSlice<u8>,
    range: Range<usize>,
}

/// [`PinnedBytes`] that a stream copies into.
struct PinnedBytesMut<'a> {
    pinned: &'a mut PinnedHostSlice<u8>,
    range: Range<usize>,
}

impl HostSlice<u8> for PinnedBytes<'_> {
    fn len(&self) -> usize {
        self.range.len()
    }

    unsafe fn stream_synced_slice<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (&'a [u8], SyncOnDrop<'a>) {
        // SAFETY: the caller's contract (used with `stream` only) is passed on; `range` is
        // within the allocation (checked when the view was made).
        let (all, record) = unsafe { self.pinned.stream_synced_slice(stream) };
        (&all[self.range.clone()], record)
    }

    unsafe fn stream_synced_mut_slice<'a>(
        &'a mut self,
        _stream: &'a CudaStream,
    ) -> (&'a mut [u8], SyncOnDrop<'a>) {
        unreachable!("an upload only reads its pinned source (memcpy_htod)")
    }
}

impl HostSlice<u8> for PinnedBytesMut<'_> {
    fn len(&self) -> usize {
        self.range.len()
    }

    unsafe fn stream_synced_slice<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (&'a [u8], SyncOnDrop<'a>) {
        // SAFETY: as in `PinnedBytes`.
        let (all, record) = unsafe { self.pinned.stream_synced_slice(stream) };
        (&all[self.range.clone()], record)
    }

    unsafe fn stream_synced_mut_slice<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (&'a mut [u8], SyncOnDrop<'a>) {
        // SAFETY: as in `PinnedBytes`; `&mut self` holds the allocation's `&mut`.
        let (all, record) = unsafe { self.pinned.stream_synced_mut_slice(stream) };
        (&mut all[self.range.clone()], record)
    }
}
