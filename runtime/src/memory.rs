//! Device memory: [`DeviceBuffer<T>`], a typed array on a GPU or in simulated memory.
//!
//! One of the three places that match on the backend (with `device.rs` and `launch/`):
//! each operation here picks the backend and hands the work to it. The host's reads and
//! writes work on an element range (`read_at`, `write_at`, `fill_range`, `copy_in`,
//! `arg_at`), which `view.rs` gives for a whole buffer or a view. Buffers also move to
//! and from cudarc's `CudaSlice` without copying (docs/host-api.md). Pinned host memory
//! ([`PinnedBuffer`], `stream.rs`) and the copies a `Stream` queues (`upload_on`,
//! `download_on`, `copy_in_on`) are here too. On a GPU the buffer is
//! a `cuda::CudaBuffer` (bytes, `cuda/memory.rs`); on the simulator a `sim::HostAlloc`
//! (`sim/memory.rs`). A buffer's storage always belongs to its device's backend.

use std::ops::Range;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, PinnedHostSlice, SyncOnDrop};

use crate::cuda::{self, CudaBuffer};
use crate::device::{Device, Inner, Stream, StreamInner};
use crate::error::{Error, Result};
use crate::scalar::KernelScalar;
use crate::sim::{Access, HostAlloc, StreamId};

use crate::pinned::{PinnedBuffer, PinnedStorage};
use crate::pinned_view::{PinnedView, PinnedViewMut};
use crate::vector_types::{whole_vectors, Vector};

/// An array of `T` in a device's memory.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let mut buf = dev.zeros::<f32>(3)?;
/// buf.copy_from_host(&[1.0, 2.0, 3.0])?;
/// let copy = dev.copy(&buf)?;
/// assert_eq!(copy.download()?, vec![1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
pub struct DeviceBuffer<T: KernelScalar> {
    device: Device,
    len: usize,
    storage: Storage<T>,
}

/// A buffer's memory, on its device's backend.
enum Storage<T> {
    Cuda(CudaBuffer),
    Simulator(HostAlloc<T>),
}

impl Device {
    /// Copies `data` into a new buffer on this device.
    pub fn upload<T: KernelScalar>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let storage = match &*self.inner {
            Inner::Cuda(cuda) => Storage::Cuda(cuda.upload(data)?),
            Inner::Simulator(_) => Storage::Simulator(HostAlloc::from_slice(data)),
        };
        Ok(self.buffer(data.len(), storage))
    }

    /// A new buffer of `len` zeros (`0`, `0.0`, `false`).
    pub fn zeros<T: KernelScalar>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let storage = match &*self.inner {
            Inner::Cuda(cuda) => Storage::Cuda(cuda.zeros::<T>(len)?),
            Inner::Simulator(_) => Storage::Simulator(HostAlloc::zeroed(len)),
        };
        Ok(self.buffer(len, storage))
    }

    /// A new buffer holding a copy of the elements `range` of `buf` (device to device);
    /// `Device::copy` (`view.rs`) gives it a buffer's or a view's range.
    pub(crate) fn copy_range<T: KernelScalar>(
        &self,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
    ) -> Result<DeviceBuffer<T>> {
        self.check_shares(buf, "copying a buffer")?;
        let storage = match (&*self.inner, &buf.storage) {
            (Inner::Cuda(cuda), Storage::Cuda(bytes)) => {
                Storage::Cuda(cuda.copy(bytes, byte_range::<T>(range.clone()))?)
            }
            (Inner::Simulator(sim), Storage::Simulator(host)) => {
                sim.order.barrier();
                Storage::Simulator(HostAlloc::from_slice(&host.as_slice()[range.clone()]))
            }
            _ => unreachable!("checked by check_shares"),
        };
        Ok(self.buffer(range.len(), storage))
    }

    fn buffer<T: KernelScalar>(&self, len: usize, storage: Storage<T>) -> DeviceBuffer<T> {
        DeviceBuffer {
            device: self.clone(),
            len,
            storage,
        }
    }

    /// `Err(DeviceMismatch)` unless this device may use `buf`'s memory.
    pub(crate) fn check_shares<T: KernelScalar>(
        &self,
        buf: &DeviceBuffer<T>,
        what: &str,
    ) -> Result<()> {
        if self.shares_memory_with(&buf.device) {
            return Ok(());
        }
        Err(Error::DeviceMismatch {
            what: what.into(),
            buffer_device: buf.device.describe(),
            device: self.describe(),
        })
    }
}

/// Element range `range` of a buffer of `T` as a byte range.
fn byte_range<T>(range: Range<usize>) -> Range<usize> {
    let size = std::mem::size_of::<T>();
    range.start * size..range.end * size
}

impl<T: KernelScalar> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device whose memory holds the buffer.
    pub fn device(&self) -> &Device {
        &self.device
    }

    // The operations below work on an element range of the buffer (the whole buffer, or
    // a view's range, `view.rs`); the range has been checked against the length. They are
    // the only code that reads or writes a buffer's memory from the host.

    /// Copies the elements from `at` on into `dst`, after every launch queued before has
    /// finished; an error of such a launch is reported here.
    pub(crate) fn read_at(&self, at: usize, dst: &mut [T]) -> Result<()> {
        debug_assert!(at + dst.len() <= self.len);
        match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(src), Inner::Cuda(cuda)) => {
                cuda.download(src, at * std::mem::size_of::<T>(), dst)
            }
            (Storage::Simulator(src), Inner::Simulator(sim)) => {
                sim.order.barrier();
                dst.copy_from_slice(&src.as_slice()[at..at + dst.len()]);
                Ok(())
            }
            _ => unreachable!("a buffer's storage is its device's backend"),
        }
    }

    /// Overwrites the elements from `at` on with `src`.
    pub(crate) fn write_at(&mut self, at: usize, src: &[T]) -> Result<()> {
        debug_assert!(at + src.len() <= self.len);
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda(dst), Inner::Cuda(cuda)) => {
                cuda.upload_into(src, dst, at * std::mem::size_of::<T>())
            }
            (Storage::Simulator(dst), Inner::Simulator(sim)) => {
                sim.order.barrier();
                dst.as_mut_slice()[at..at + src.len()].copy_from_slice(src);
                Ok(())
            }
            _ => unreachable!("a buffer's storage is its device's backend"),
        }
    }

    /// Sets the elements of `range` to `value`.
    pub(crate) fn fill_range(&mut self, range: Range<usize>, value: T) -> Result<()> {
        debug_assert!(range.end <= self.len);
        match (&mut self.storage, &*self.device.inner) {
            // A struct's memory has no one word to repeat: its copies are uploaded.
            (Storage::Cuda(_), Inner::Cuda(_)) if T::STRUCT.is_some() => {
                self.write_at(range.start, &vec![value; range.len()])
            }
            (Storage::Cuda(dst), Inner::Cuda(cuda)) => {
                let size = std::mem::size_of::<T>();
                cuda.fill(
                    dst,
                    range.start * size,
                    range.len(),
                    size,
                    value.to_bits128(),
                )
            }
            (Storage::Simulator(dst), Inner::Simulator(sim)) => {
                sim.order.barrier();
                dst.as_mut_slice()[range].fill(value);
                Ok(())
            }
            _ => unreachable!("a buffer's storage is its device's backend"),
        }
    }

    /// Copies the elements `range` of `buf` (device to device) to the elements from `at`
    /// on; they have been checked to fit.
    pub(crate) fn copy_in(
        &mut self,
        at: usize,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
    ) -> Result<()> {
        debug_assert!(at + range.len() <= self.len);
        self.device.check_shares(buf, "copying between buffers")?;
        match (&mut self.storage, &buf.storage, &*self.device.inner) {
            (Storage::Cuda(dst), Storage::Cuda(src), Inner::Cuda(cuda)) => {
                let at = at * std::mem::size_of::<T>();
                cuda.copy_into(None, src, byte_range::<T>(range), dst, at)
            }
            (Storage::Simulator(dst), Storage::Simulator(src), Inner::Simulator(sim)) => {
                sim.order.barrier();
                // Two buffers: `self` is borrowed mutably, `src` shared.
                let len = range.len();
                dst.as_mut_slice()[at..at + len].copy_from_slice(&src.as_slice()[range]);
                Ok(())
            }
            _ => unreachable!("checked by check_shares"),
        }
    }

    /// The elements from `at` on as an argument of a kernel launched on `stream` (the
    /// device's own queue when `None`): their address (device pointer or simulated host
    /// address), on a GPU cudarc's record that orders other streams after the launch (kept
    /// until the launch is queued; it covers the whole allocation), and the buffer's
    /// device.
    pub(crate) fn arg_at<'a>(
        &'a self,
        at: usize,
        stream: Option<&'a Stream>,
    ) -> (u64, Option<SyncOnDrop<'a>>, &'a Device) {
        let offset = (at * std::mem::size_of::<T>()) as u64;
        let (addr, guard) = match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(bytes), Inner::Cuda(cuda)) => {
                let (addr, guard) = cuda.arg(bytes, stream.and_then(Stream::cuda_stream));
                (addr, Some(guard))
            }
            (Storage::Simulator(host), Inner::Simulator(_)) => (host.addr(), None),
            _ => unreachable!("a buffer's storage is its device's backend"),
        };
        (addr + offset, guard, &self.device)
    }

    /// [`DeviceBuffer::arg_at`] for a kernel that writes the elements.
    pub(crate) fn arg_at_mut<'a>(
        &'a mut self,
        at: usize,
        stream: Option<&'a Stream>,
    ) -> (u64, Option<SyncOnDrop<'a>>, &'a Device) {
        let offset = (at * std::mem::size_of::<T>()) as u64;
        let DeviceBuffer {
            device, storage, ..
        } = self;
        let device: &Device = device;
        let (addr, guard) = match (storage, &*device.inner) {
            (Storage::Cuda(bytes), Inner::Cuda(cuda)) => {
                let (addr, guard) = cuda.arg_mut(bytes, stream.and_then(Stream::cuda_stream));
                (addr, Some(guard))
            }
            (Storage::Simulator(host), Inner::Simulator(_)) => (host.addr(), None),
            _ => unreachable!("a buffer's storage is its device's backend"),
        };
        (addr + offset, guard, device)
    }

    /// The memory of the elements `range` as the simulator's stream-order checks see it
    /// (`sim/order.rs`); `None` on a GPU, where cudarc's events order streams.
    pub(crate) fn access(&self, range: Range<usize>, write: bool) -> Option<Access> {
        match &self.storage {
            Storage::Simulator(host) => Some(elements(host, range, write)),
            Storage::Cuda(_) => None,
        }
    }

    /// The simulator's half of a collective queued on `queue` (`multi/communicator.rs`):
    /// the elements `range`, read once the stream-order checks (`sim/order.rs`) pass the
    /// read as `op`. The simulator runs work when it is queued, so they are the elements
    /// as the stream sees them.
    pub(crate) fn sim_read_on(
        &self,
        queue: StreamId,
        range: Range<usize>,
        op: &dyn Fn() -> String,
    ) -> Result<Vec<T>> {
        match (&self.storage, &*self.device.inner) {
            (Storage::Simulator(host), Inner::Simulator(sim)) => {
                sim.order
                    .enqueue(queue, op, &[elements(host, range.clone(), false)])?;
                Ok(host.as_slice()[range].to_vec())
            }
            _ => unreachable!("called for simulated devices only"),
        }
    }

    /// [`Self::sim_read_on`]'s write: `src` into the elements from `at` on.
    pub(crate) fn sim_write_on(
        &mut self,
        queue: StreamId,
        at: usize,
        src: &[T],
        op: &dyn Fn() -> String,
    ) -> Result<()> {
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Simulator(host), Inner::Simulator(sim)) => {
                let range = at..at + src.len();
                sim.order
                    .enqueue(queue, op, &[elements(host, range.clone(), true)])?;
                host.as_mut_slice()[range].copy_from_slice(src);
                Ok(())
            }
            _ => unreachable!("called for simulated devices only"),
        }
    }

    /// Queues on `stream` a copy of all of `src` (a view of pinned memory) to the elements
    /// from `at` on; they have been checked to fit.
    pub(crate) fn upload_on(
        &mut self,
        stream: &Stream,
        src: PinnedView<'_, T>,
        at: usize,
    ) -> Result<()> {
        debug_assert!(at + src.len <= self.len);
        stream.device.check_shares(self, "Stream::upload")?;
        check_pinned(stream, src.buf, "Stream::upload")?;
        let size = std::mem::size_of::<T>();
        let (n, from, total) = (src.len, src.range(), src.buf.len);
        match (
            &mut self.storage,
            &src.buf.storage,
            &stream.inner,
            &*self.device.inner,
        ) {
            _ if n == 0 => Ok(()),
            (
                Storage::Cuda(dst),
                PinnedStorage::Cuda(pinned),
                StreamInner::Cuda(s),
                Inner::Cuda(cuda),
            ) => cuda.upload_pinned(s, pinned, byte_range::<T>(from), dst, at * size),
            (
                Storage::Simulator(dst),
                PinnedStorage::Simulator(pinned),
                StreamInner::Simulator(id),
                Inner::Simulator(sim),
            ) => {
                let accesses = [
                    elements(pinned, from.clone(), false),
                    elements(dst, at..at + n, true),
                ];
                sim.order.enqueue(
                    *id,
                    || pinned_op("Stream::upload from", &from, total),
                    &accesses,
                )?;
                dst.as_mut_slice()[at..at + n].copy_from_slice(&pinned.as_slice()[from]);
                Ok(())
            }
            _ => unreachable!("checked by check_shares and check_pinned"),
        }
    }

    /// Queues on `stream` a copy of the elements from `at` on into all of `dst` (a view of
    /// pinned memory); they have been checked to fit.
    pub(crate) fn download_on(
        &self,
        stream: &Stream,
        at: usize,
        dst: PinnedViewMut<'_, T>,
    ) -> Result<()> {
        debug_assert!(at + dst.len <= self.len);
        stream.device.check_shares(self, "Stream::download")?;
        check_pinned(stream, dst.buf, "Stream::download")?;
        let size = std::mem::size_of::<T>();
        let (n, into, total) = (dst.len, dst.range(), dst.buf.len);
        match (
            &self.storage,
            &mut dst.buf.storage,
            &stream.inner,
            &*self.device.inner,
        ) {
            _ if n == 0 => Ok(()),
            (
                Storage::Cuda(src),
                PinnedStorage::Cuda(pinned),
                StreamInner::Cuda(s),
                Inner::Cuda(cuda),
            ) => cuda.download_pinned(s, src, at * size, pinned, byte_range::<T>(into)),
            (
                Storage::Simulator(src),
                PinnedStorage::Simulator(pinned),
                StreamInner::Simulator(id),
                Inner::Simulator(sim),
            ) => {
                let accesses = [
                    elements(src, at..at + n, false),
                    elements(pinned, into.clone(), true),
                ];
                sim.order.enqueue(
                    *id,
                    || pinned_op("Stream::download into", &into, total),
                    &accesses,
                )?;
                pinned.as_mut_slice()[into].copy_from_slice(&src.as_slice()[at..at + n]);
                Ok(())
            }
            _ => unreachable!("checked by check_shares and check_pinned"),
        }
    }

    /// Queues on `stream` a copy of the elements `range` of `buf` to the elements from
    /// `at` on (device to device); they have been checked to fit.
    pub(crate) fn copy_in_on(
        &mut self,
        stream: &Stream,
        at: usize,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
    ) -> Result<()> {
        debug_assert!(at + range.len() <= self.len);
        stream.device.check_shares(self, "Stream::copy")?;
        stream.device.check_shares(buf, "Stream::copy")?;
        let len = range.len();
        match (
            &mut self.storage,
            &buf.storage,
            &stream.inner,
            &*self.device.inner,
        ) {
            _ if len == 0 => Ok(()),
            (Storage::Cuda(dst), Storage::Cuda(src), StreamInner::Cuda(s), Inner::Cuda(cuda)) => {
                let at = at * std::mem::size_of::<T>();
                cuda.copy_into(Some(s), src, byte_range::<T>(range), dst, at)
            }
            (
                Storage::Simulator(dst),
                Storage::Simulator(src),
                StreamInner::Simulator(id),
                Inner::Simulator(sim),
            ) => {
                let accesses = [
                    elements(src, range.clone(), false),
                    elements(dst, at..at + len, true),
                ];
                sim.order
                    .enqueue(*id, || "Stream::copy between buffers".into(), &accesses)?;
                dst.as_mut_slice()[at..at + len].copy_from_slice(&src.as_slice()[range]);
                Ok(())
            }
            _ => unreachable!("checked by check_shares"),
        }
    }

    /// Queues on `stream` (of this buffer's device) a copy of the elements `range` of
    /// `buf`, a buffer of another device of the same backend, to the elements from `at`
    /// on (peer to peer: `cuMemcpyPeerAsync`, over NVLink or PCIe); they have been checked
    /// to fit. The stream first waits for the queued writes of `src`, on its own device.
    pub(crate) fn copy_peer_on(
        &mut self,
        stream: &Stream,
        at: usize,
        buf: &DeviceBuffer<T>,
        range: Range<usize>,
    ) -> Result<()> {
        debug_assert!(at + range.len() <= self.len);
        if !stream.device.is_same_device(&self.device) {
            return Err(Error::DeviceMismatch {
                what: "Stream::copy_peer (the destination)".into(),
                buffer_device: self.device.describe(),
                device: format!("the stream's, {}", stream.device.describe()),
            });
        }
        let len = range.len();
        match (&mut self.storage, &buf.storage, &stream.inner) {
            _ if len == 0 => Ok(()),
            (Storage::Cuda(dst), Storage::Cuda(src), StreamInner::Cuda(s)) => {
                let size = std::mem::size_of::<T>();
                let driver = |what: &str| {
                    let what = format!("queuing Stream::copy_peer ({what})");
                    move |source| Error::Driver {
                        kernel: None,
                        what,
                        source,
                    }
                };
                // A stream may wait for another context's event but not record one, so the
                // source's guards are taken on its own stream: that stream waits for the
                // source's queued writes, and `s` waits for it; after the copy, the source's
                // stream waits for `s`, so that its later writers wait for the copy too.
                let src_stream = src.stream().clone();
                let peer = src_stream.context() != s.context();
                let src_side: &CudaStream = if peer { &src_stream } else { s };
                let (src_ptr, read) = cudarc::driver::DevicePtr::device_ptr(src, src_side);
                let (dst_ptr, _write) = cudarc::driver::DevicePtrMut::device_ptr_mut(dst, s);
                if peer {
                    let ready = src_stream
                        .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                        .map_err(driver("the source's event"))?;
                    s.wait(&ready).map_err(driver("waiting for the source"))?;
                }
                let (src_ctx, dst_ctx) = (src_stream.context().cu_ctx(), s.context().cu_ctx());
                // SAFETY: both ranges lie inside their allocations (checked by the caller),
                // each context owns its pointer, and the waits order the copy after the
                // buffers' earlier work and their later users after the copy.
                unsafe {
                    cudarc::driver::result::memcpy_peer_async(
                        dst_ctx,
                        dst_ptr + (at * size) as u64,
                        src_ctx,
                        src_ptr + (range.start * size) as u64,
                        len * size,
                        s.cu_stream(),
                    )
                }
                .map_err(driver("cuMemcpyPeerAsync"))?;
                if peer {
                    let copied = s
                        .record_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
                        .map_err(driver("the copy's event"))?;
                    src_stream
                        .wait(&copied)
                        .map_err(driver("the source's stream waiting for the copy"))?;
                }
                // Records the source's read on its stream, after that wait.
                drop(read);
                Ok(())
            }
            (Storage::Simulator(dst), Storage::Simulator(src), StreamInner::Simulator(id)) => {
                if let Inner::Simulator(sim) = &*self.device.inner {
                    let accesses = [elements(dst, at..at + len, true)];
                    sim.order
                        .enqueue(*id, || "Stream::copy_peer".into(), &accesses)?;
                }
                // The source's device ran its work when it was queued (the simulator).
                dst.as_mut_slice()[at..at + len].copy_from_slice(&src.as_slice()[range]);
                Ok(())
            }
            _ => Err(Error::DeviceMismatch {
                what: "Stream::copy_peer (the source)".into(),
                buffer_device: buf.device.describe(),
                device: format!("a device of the same backend as {}", self.device.describe()),
            }),
        }
    }

    /// The underlying cudarc allocation (bytes) of a GPU buffer; `None` on the simulator.
    /// A buffer of no elements holds one unused byte (`cuMemAlloc` refuses 0 bytes).
    pub fn cuda_bytes(&self) -> Option<&CudaSlice<u8>> {
        match &self.storage {
            Storage::Cuda(slice) => Some(slice),
            Storage::Simulator(_) => None,
        }
    }
}

/// Moving buffers between warpspeed and cudarc, without copying (docs/host-api.md).
impl<T: KernelScalar + DeviceRepr> DeviceBuffer<T> {
    /// Adopts a cudarc `CudaSlice<T>` of `dev`'s CUDA context as a buffer, without copying.
    /// The buffer is ordered on `dev`'s stream (which first waits for the work queued on
    /// the slice's stream, when that is another one) and freed there.
    /// [`Error::NotCuda`] when `dev` is the simulator, [`Error::DeviceMismatch`] when the
    /// slice belongs to another context.
    pub fn from_cudarc(dev: &Device, slice: CudaSlice<T>) -> Result<DeviceBuffer<T>> {
        let Inner::Cuda(cuda) = &*dev.inner else {
            return Err(Error::NotCuda {
                what: "adopting a cudarc CudaSlice".into(),
            });
        };
        if !cuda.same_context(slice.context()) {
            return Err(Error::DeviceMismatch {
                what: "adopting a cudarc CudaSlice".into(),
                buffer_device: format!("CUDA device {} (another context)", slice.ordinal()),
                device: dev.describe(),
            });
        }
        let len = slice.len();
        Ok(dev.buffer(len, Storage::Cuda(cuda.adopt(slice)?)))
    }

    /// The buffer as a cudarc `CudaSlice<T>` on its device's stream
    /// ([`Device::cuda_stream`]), without copying: the inverse of
    /// [`DeviceBuffer::from_cudarc`]. [`Error::NotCuda`] on the simulator (where device
    /// memory is host memory: use [`DeviceBuffer::download`]).
    pub fn into_cudarc(self) -> Result<CudaSlice<T>> {
        let DeviceBuffer {
            device,
            len,
            storage,
        } = self;
        match (storage, &*device.inner) {
            (Storage::Cuda(bytes), Inner::Cuda(cuda)) => Ok(cuda.hand_out(bytes, len)),
            (Storage::Simulator(_), Inner::Simulator(_)) => Err(Error::NotCuda {
                what: "turning a buffer into a cudarc CudaSlice".into(),
            }),
            _ => unreachable!("a buffer's storage is its device's backend"),
        }
    }
}

impl<L: KernelScalar> DeviceBuffer<L> {
    /// The same device memory as a buffer of vectors of `V::LANES` scalars each, without
    /// copying: a `DeviceBuffer<f32>` of `4 * n` elements becomes a `DeviceBuffer<f32x4>`
    /// of `n`, for kernels that take `&[f32x4]`. [`DeviceBuffer::from_vectors`] turns it
    /// back. An [`Error::NotWholeVectors`] when the length is not a multiple of
    /// `V::LANES` (the buffer is dropped; pad it first).
    ///
    /// Device allocations are aligned to 256 bytes (`cudaMalloc`'s guarantee, and the
    /// simulator's), so the vectors are aligned for their 8- and 16-byte accesses.
    ///
    /// ```
    /// # fn main() -> Result<(), warpspeed::Error> {
    /// use warpspeed::{f32x4, Device, DeviceBuffer};
    /// let dev = Device::simulator();
    /// let v = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])?.into_vectors::<f32x4>()?;
    /// assert_eq!(v.download()?[1], f32x4::new(5.0, 6.0, 7.0, 8.0));
    /// assert_eq!(DeviceBuffer::from_vectors(v).len(), 8);
    /// # Ok(()) }
    /// ```
    pub fn into_vectors<V: Vector<Lane = L>>(self) -> Result<DeviceBuffer<V>> {
        whole_vectors::<V>(self.len, "into_vectors")?;
        let len = self.len / V::LANES;
        let DeviceBuffer {
            device, storage, ..
        } = self;
        let storage = match storage {
            Storage::Cuda(bytes) => {
                // cudarc's allocations are whole `cuMemAlloc`/`cuMemAllocAsync` blocks
                // (never views into another): 256-byte aligned, which this checks.
                assert_eq!(
                    cuda::address(&bytes) % std::mem::align_of::<V>() as u64,
                    0,
                    "a device allocation not aligned for {}",
                    V::C_NAME
                );
                Storage::Cuda(bytes)
            }
            Storage::Simulator(host) => Storage::Simulator(host.cast::<V>(len)),
        };
        Ok(DeviceBuffer {
            device,
            len,
            storage,
        })
    }

    /// The same device memory as a buffer of the vectors' scalars, without copying: the
    /// inverse of [`DeviceBuffer::into_vectors`] (a `DeviceBuffer<f32x4>` of `n` elements
    /// becomes a `DeviceBuffer<f32>` of `4 * n`).
    pub fn from_vectors<V: Vector<Lane = L>>(vectors: DeviceBuffer<V>) -> DeviceBuffer<L> {
        let len = vectors.len * V::LANES;
        let DeviceBuffer {
            device, storage, ..
        } = vectors;
        let storage = match storage {
            Storage::Cuda(bytes) => Storage::Cuda(bytes),
            Storage::Simulator(host) => Storage::Simulator(host.cast::<L>(len)),
        };
        DeviceBuffer {
            device,
            len,
            storage,
        }
    }
}

/// Lending a buffer's memory as another element type (`DeviceViewMut::with_words`, in
/// `view.rs`): what lets a library kernel move the elements of a type it cannot be generic
/// over (a user's `#[gpu_struct]`) as words.
impl<T: KernelScalar> DeviceBuffer<T> {
    /// The same memory as a buffer of `W` (`len * size_of::<T>() / size_of::<W>()`
    /// elements), lent to `f` and turned back into `T`s afterwards, also when `f`
    /// panics. The buffer is moved out of `self` for the call and written back by a guard,
    /// as [`DeviceBuffer::into_vectors`] moves one, so nothing can see the two types at
    /// once.
    ///
    /// On the simulator a `#[gpu_struct]`'s padding bytes are first set to zero: the host
    /// wrote its elements as values, which leaves the padding uninitialised to Rust, and
    /// `W` reads every byte.
    ///
    /// # Safety
    /// `size_of::<T>()` is a multiple of `size_of::<W>()` and of `align_of::<W>()` (checked
    /// by the caller), and whatever `f` leaves in the memory is, element by element, the
    /// bytes of valid `T`s (a permutation or copy of whole elements, say).
    pub(crate) unsafe fn lend_as<W: KernelScalar, R>(
        &mut self,
        f: impl FnOnce(&mut DeviceBuffer<W>) -> R,
    ) -> R {
        /// Writes the lent buffer back as `T`s when dropped.
        struct Lent<'h, T: KernelScalar, W: KernelScalar> {
            home: &'h mut DeviceBuffer<T>,
            len: usize,
            lent: std::mem::ManuallyDrop<DeviceBuffer<W>>,
        }
        impl<T: KernelScalar, W: KernelScalar> Drop for Lent<'_, T, W> {
            fn drop(&mut self) {
                // SAFETY: `lent` is taken once, here; `home`'s own bits were moved into
                // it (ptr::read below) and are overwritten without being dropped.
                let lent = unsafe { std::mem::ManuallyDrop::take(&mut self.lent) };
                let back = lent.recast::<T>(self.len);
                unsafe { std::ptr::write(self.home, back) };
            }
        }
        self.zero_padding();
        let len = self.len;
        let words = len * std::mem::size_of::<T>() / std::mem::size_of::<W>();
        // SAFETY: the buffer is moved out and the guard, made before anything can panic
        // (`recast` does not), moves it back: `self` is never used or dropped meanwhile.
        let moved = unsafe { std::ptr::read(self) };
        let mut guard = Lent {
            home: self,
            len,
            lent: std::mem::ManuallyDrop::new(moved.recast::<W>(words)),
        };
        f(&mut guard.lent)
    }

    /// The same storage as `len` elements of `U` (the caller has checked the sizes).
    fn recast<U: KernelScalar>(self, len: usize) -> DeviceBuffer<U> {
        let DeviceBuffer {
            device, storage, ..
        } = self;
        let storage = match storage {
            Storage::Cuda(bytes) => Storage::Cuda(bytes),
            Storage::Simulator(host) => Storage::Simulator(host.cast::<U>(len)),
        };
        DeviceBuffer {
            device,
            len,
            storage,
        }
    }

    /// On the simulator, rewrites each `#[gpu_struct]` element through
    /// [`KernelScalar::write_bytes`], which zeroes its padding (nothing else to do on a GPU,
    /// or for types without padding).
    fn zero_padding(&mut self) {
        if T::STRUCT.is_none() {
            return;
        }
        // No stream-order access is recorded (nor a barrier, which would hide a user's
        // missing synchronisation): padding is no value anyone reads, and simulated work
        // has finished when its call returns, so nothing runs on this memory now.
        if let (Storage::Simulator(host), Inner::Simulator(_)) =
            (&mut self.storage, &*self.device.inner)
        {
            let size = std::mem::size_of::<T>();
            let mut bytes = vec![0u8; size];
            let base = host.as_ptr().cast::<u8>();
            for (i, value) in host.as_mut_slice().to_vec().into_iter().enumerate() {
                bytes.fill(0);
                value.write_bytes(&mut bytes);
                // SAFETY: element `i` of the allocation, `size` bytes, written through
                // `&mut self` (no other reference to the memory) while no kernel runs
                // (simulated launches and copies finish before they return).
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), base.add(i * size), size) };
            }
        }
    }
}

/// The elements `range` of a simulated allocation, as the simulator's order checks see
/// them.
fn elements<T>(host: &HostAlloc<T>, range: Range<usize>, write: bool) -> Access {
    Access {
        alloc: host.id(),
        bytes: byte_range::<T>(range),
        write,
    }
}

/// A copy of pinned memory as the simulator's order errors name it: with the range when
/// it is a view (`Stream::upload from pinned memory [5..15] of 100 elements`).
fn pinned_op(what: &str, range: &Range<usize>, total: usize) -> String {
    if range.len() == total {
        format!("{what} pinned memory")
    } else {
        format!(
            "{what} pinned memory [{}..{}] of {total} elements",
            range.start, range.end
        )
    }
}

/// `Err(DeviceMismatch)` unless `stream` may copy from and to `pinned`.
fn check_pinned<T: KernelScalar>(
    stream: &Stream,
    pinned: &PinnedBuffer<T>,
    what: &str,
) -> Result<()> {
    if stream.device.shares_memory_with(&pinned.device) {
        return Ok(());
    }
    Err(Error::DeviceMismatch {
        what: format!("{what} (the pinned buffer)"),
        buffer_device: pinned.device.describe(),
        device: stream.device.describe(),
    })
}

/// Pinned host memory (`stream.rs` has the type and docs/host-api.md the rules).
impl Device {
    /// `len` zeroed elements of page-locked host memory, which this device's streams copy
    /// from and to asynchronously (on a GPU `cuMemHostAlloc`; on the simulator host memory).
    pub fn alloc_pinned<T: KernelScalar>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let storage = match &*self.inner {
            Inner::Cuda(cuda) => {
                PinnedStorage::Cuda(cuda.alloc_pinned(len * std::mem::size_of::<T>())?)
            }
            Inner::Simulator(_) => PinnedStorage::Simulator(HostAlloc::zeroed(len)),
        };
        Ok(PinnedBuffer {
            device: self.clone(),
            len,
            storage,
        })
    }

    /// Page-locked host memory holding a copy of `data` ([`Device::alloc_pinned`], then
    /// the copy).
    pub fn pinned_from<T: KernelScalar>(&self, data: &[T]) -> Result<PinnedBuffer<T>> {
        let mut pinned = self.alloc_pinned(data.len())?;
        pinned.as_mut_slice()?.copy_from_slice(data);
        Ok(pinned)
    }
}

impl<T: KernelScalar> PinnedBuffer<T> {
    /// The elements, once no queued copy writes them: waits for the stream copies that use
    /// this memory (the in-flight rule, docs/host-api.md), and reports a fault among
    /// them.
    pub fn as_slice(&self) -> Result<&[T]> {
        let ptr = self.settled()?;
        // SAFETY: `ptr` holds `len` elements of `T`, each valid (`settled`); no copy
        // writes them now (waited for), and none can start while `&self` is borrowed.
        Ok(unsafe { std::slice::from_raw_parts(ptr, self.len) })
    }

    /// The elements, writable, once no queued copy uses them (as [`PinnedBuffer::as_slice`],
    /// also waiting for the copies that read them).
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        let ptr = self.settled()?;
        // SAFETY: as in `as_slice`, and `&mut self` excludes every other access from the
        // host and every new copy while the slice lives.
        Ok(unsafe { std::slice::from_raw_parts_mut(ptr, self.len) })
    }

    /// The first element, once every copy queued on the memory is done.
    fn settled(&self) -> Result<*mut T> {
        match (&self.storage, &*self.device.inner) {
            // `bytes` holds `len` elements of `T` (`len * size_of::<T>()` bytes,
            // page-aligned), each valid: zeroed when allocated (zero bits are a valid value
            // of every kernel scalar), then written whole by the host or by copies of
            // device memory, which holds whole `T`s.
            (PinnedStorage::Cuda(bytes), Inner::Cuda(cuda)) => {
                Ok(cuda.pinned_bytes(bytes)?.cast_mut().cast::<T>())
            }
            (PinnedStorage::Simulator(host), Inner::Simulator(sim)) => {
                sim.order.host_waits_for(host.id());
                Ok(host.as_ptr())
            }
            _ => unreachable!("pinned memory is its device's backend"),
        }
    }

    /// The cudarc pinned allocation (bytes) on a GPU; `None` on the simulator. An empty
    /// buffer holds one unused byte.
    pub fn cuda_pinned(&self) -> Option<&PinnedHostSlice<u8>> {
        match &self.storage {
            PinnedStorage::Cuda(bytes) => Some(bytes),
            PinnedStorage::Simulator(_) => None,
        }
    }
}

impl<T: KernelScalar> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] on {}",
            T::C_NAME,
            self.len,
            self.device.describe()
        )
    }
}
