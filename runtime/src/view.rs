//! Views of device memory: [`DeviceView`] (`&[T]`) and [`DeviceViewMut`] (`&mut [T]`), a
//! range of a [`DeviceBuffer`] that borrows it, as cudarc's `CudaView`/`CudaViewMut`
//! borrow a `CudaSlice`; and the host operations every one of them offers (download,
//! upload, fill, device-to-device copy), once for buffers and views alike; and the copies
//! a `Stream` queues on them (`Stream::upload`, `download`, `copy`).
//!
//! A kernel's `&[T]` parameter takes anything that is [`AsDeviceView`] (a buffer, a view,
//! a mutable view), its `&mut [T]` parameter anything that is [`AsDeviceViewMut`] (a
//! buffer or a mutable view): the generated `launch` is generic over these traits, and
//! the kernel sees the view's elements only (index 0 is the view's first element; its
//! length is the view's, and bounds checks use it).
//!
//! Ranges are checked when the view is made: `slice(a..b)` panics when the range is out
//! of bounds, as `&v[a..b]` and cudarc's `CudaSlice::slice` do, and `try_slice` returns
//! `None` instead, as `v.get(a..b)` and cudarc's `try_slice` do. A mutable view holds the
//! buffer's `&mut`, so nothing else can use the buffer while it lives (docs/host-api.md).
//!
//! This module does not match on the backend: it computes ranges and calls the range
//! operations of `memory.rs`.

use std::ops::{Range, RangeBounds};

use cudarc::driver::SyncOnDrop;

use crate::device::Device;
use crate::device::Stream;
use crate::error::{Error, Result};
use crate::memory::DeviceBuffer;
use crate::pinned_view::{AsPinnedView, AsPinnedViewMut};
use crate::range::{resolve, resolve_or_panic};
use crate::scalar::KernelScalar;
use crate::sim::{Access, StreamId};

/// `&[T]` in a device's memory: elements `offset .. offset + len` of a [`DeviceBuffer`],
/// borrowed. Made by [`DeviceBuffer::slice`]; cheap to copy. Pass `&view` to a kernel's
/// `&[T]` parameter.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let buf = dev.upload(&[0u32, 1, 2, 3, 4, 5])?;
/// let view = buf.slice(2..5);
/// assert_eq!((view.offset(), view.len()), (2, 3));
/// assert_eq!(view.download()?, vec![2, 3, 4]);
/// assert_eq!(view.slice(1..).download()?, vec![3, 4]);
/// assert!(buf.try_slice(4..7).is_none());
/// # Ok(()) }
/// ```
///
/// A view cannot outlive its buffer:
///
/// ```compile_fail,E0505
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let buf = dev.upload(&[1u8, 2, 3])?;
/// let view = buf.slice(1..);
/// drop(buf); // error: `buf` is borrowed by `view`
/// view.download()?;
/// # Ok(()) }
/// ```
pub struct DeviceView<'a, T: KernelScalar> {
    buf: &'a DeviceBuffer<T>,
    offset: usize,
    len: usize,
}

/// `&mut [T]` in a device's memory: elements `offset .. offset + len` of a
/// [`DeviceBuffer`], borrowed mutably (nothing else can use the buffer while the view
/// lives). Made by [`DeviceBuffer::slice_mut`]. Pass `&mut view` to a kernel's `&mut [T]`
/// parameter (or `&view` to a `&[T]` one).
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let mut buf = dev.zeros::<i32>(6)?;
/// let mut view = buf.slice_mut(1..4);
/// view.fill(7)?;
/// view.slice_mut(2..).copy_from_host(&[9])?;
/// assert_eq!(buf.download()?, vec![0, 7, 7, 9, 0, 0]);
/// let src = dev.upload(&[1, 2, 3, 4])?;
/// buf.slice_mut(4..).copy_from(&src.slice(1..3))?; // device to device
/// assert_eq!(buf.download()?, vec![0, 7, 7, 9, 2, 3]);
/// # Ok(()) }
/// ```
///
/// While the view lives, the buffer cannot be used otherwise, not even read:
///
/// ```compile_fail,E0502
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let mut buf = dev.zeros::<i32>(6)?;
/// let mut view = buf.slice_mut(1..4);
/// let read = buf.download()?; // error: `buf` is borrowed mutably by `view`
/// view.fill(7)?;
/// # Ok(()) }
/// ```
pub struct DeviceViewMut<'a, T: KernelScalar> {
    buf: &'a mut DeviceBuffer<T>,
    offset: usize,
    len: usize,
}

/// Device memory that a kernel's `&[T]` parameter takes: a [`DeviceBuffer`], a
/// [`DeviceView`] or a [`DeviceViewMut`]. The generated `launch` takes
/// `&impl AsDeviceView<Elem = T>`.
pub trait AsDeviceView {
    /// The element type.
    type Elem: KernelScalar;

    /// The memory as a view (a whole buffer: all of it).
    fn as_device_view(&self) -> DeviceView<'_, Self::Elem>;

    /// Number of elements.
    fn len(&self) -> usize {
        self.as_device_view().len
    }

    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Device memory that a kernel's `&mut [T]` parameter takes: a [`DeviceBuffer`] or a
/// [`DeviceViewMut`]. The generated `launch` takes `&mut impl AsDeviceViewMut<Elem = T>`.
pub trait AsDeviceViewMut: AsDeviceView {
    /// The memory as a mutable view (a whole buffer: all of it).
    fn as_device_view_mut(&mut self) -> DeviceViewMut<'_, Self::Elem>;
}

impl<T: KernelScalar> AsDeviceView for DeviceBuffer<T> {
    type Elem = T;
    fn as_device_view(&self) -> DeviceView<'_, T> {
        DeviceView {
            buf: self,
            offset: 0,
            len: DeviceBuffer::len(self),
        }
    }
}

impl<T: KernelScalar> AsDeviceViewMut for DeviceBuffer<T> {
    fn as_device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        let len = DeviceBuffer::len(self);
        DeviceViewMut {
            buf: self,
            offset: 0,
            len,
        }
    }
}

/// A whole buffer as a view: what lets a call that keeps a view for a while
/// ([`Group::send`](crate::Group::send)) take `&buf` as well as `buf.slice(..)`.
impl<'a, T: KernelScalar> From<&'a DeviceBuffer<T>> for DeviceView<'a, T> {
    fn from(buf: &'a DeviceBuffer<T>) -> Self {
        buf.as_device_view()
    }
}

impl<'a, 'b: 'a, T: KernelScalar> From<&'a DeviceView<'b, T>> for DeviceView<'a, T> {
    fn from(view: &'a DeviceView<'b, T>) -> Self {
        *view
    }
}

impl<'a, T: KernelScalar> From<&'a DeviceViewMut<'_, T>> for DeviceView<'a, T> {
    fn from(view: &'a DeviceViewMut<'_, T>) -> Self {
        view.as_device_view()
    }
}

/// A whole buffer as a writable view ([`Group::recv`](crate::Group::recv) takes `&mut buf`
/// as well as `buf.slice_mut(..)`).
impl<'a, T: KernelScalar> From<&'a mut DeviceBuffer<T>> for DeviceViewMut<'a, T> {
    fn from(buf: &'a mut DeviceBuffer<T>) -> Self {
        buf.as_device_view_mut()
    }
}

impl<'a, T: KernelScalar> From<&'a mut DeviceViewMut<'_, T>> for DeviceViewMut<'a, T> {
    fn from(view: &'a mut DeviceViewMut<'_, T>) -> Self {
        view.as_device_view_mut()
    }
}

impl<T: KernelScalar> AsDeviceView for DeviceView<'_, T> {
    type Elem = T;
    fn as_device_view(&self) -> DeviceView<'_, T> {
        *self
    }
}

impl<T: KernelScalar> AsDeviceView for DeviceViewMut<'_, T> {
    type Elem = T;
    fn as_device_view(&self) -> DeviceView<'_, T> {
        DeviceView {
            buf: self.buf,
            offset: self.offset,
            len: self.len,
        }
    }
}

impl<T: KernelScalar> AsDeviceViewMut for DeviceViewMut<'_, T> {
    fn as_device_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        DeviceViewMut {
            buf: self.buf,
            offset: self.offset,
            len: self.len,
        }
    }
}

impl<T: KernelScalar> Clone for DeviceView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: KernelScalar> Copy for DeviceView<'_, T> {}

/// `Err(LengthMismatch)` unless `expected == found`.
fn same_len(what: &str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        return Ok(());
    }
    Err(Error::LengthMismatch {
        what: what.into(),
        expected,
        found,
    })
}

impl<'a, T: KernelScalar> DeviceView<'a, T> {
    /// The device whose memory holds the view.
    pub fn device(&self) -> &'a Device {
        self.buf.device()
    }

    /// Whether the view's first element is at an address that is a multiple of `bytes` (a
    /// power of two up to 256): what a kernel's wide loads need (`load4`, the vector path
    /// of `warpspeed::algorithms::map!`). Device allocations are 256-byte aligned (CUDA's
    /// guarantee, and the simulator's), so this is the view's byte offset in its buffer
    /// modulo `bytes`, the same on both backends.
    ///
    /// ```
    /// # fn main() -> Result<(), warpspeed::Error> {
    /// let dev = warpspeed::Device::simulator();
    /// let buf = dev.zeros::<f32>(16)?;
    /// assert!(buf.slice(4..).is_aligned(16));
    /// assert!(!buf.slice(1..).is_aligned(16) && buf.slice(1..).is_aligned(4));
    /// # Ok(()) }
    /// ```
    ///
    /// # Panics
    /// When `bytes` is not a power of two from 1 to 256.
    pub fn is_aligned(&self, bytes: usize) -> bool {
        assert!(
            bytes.is_power_of_two() && bytes <= 256,
            "is_aligned({bytes}): a power of two from 1 to 256 (device allocations are 256-byte aligned)"
        );
        (self.offset * std::mem::size_of::<T>()).is_multiple_of(bytes)
    }

    /// The elements `range` of this view (relative to it), as a view of the same buffer.
    ///
    /// # Panics
    /// When `range` is out of bounds (as `&v[a..b]`); [`DeviceView::try_slice`] returns
    /// `None` instead.
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceView<'a, T> {
        self.sub(resolve_or_panic(range, self.len, "device memory"))
    }

    /// [`DeviceView::slice`], or `None` when `range` is out of bounds.
    pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<DeviceView<'a, T>> {
        resolve(&range, self.len).map(|r| self.sub(r))
    }

    /// Copies the view to a new `Vec`, after every launch queued before it has finished;
    /// an error of such a launch is reported here.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::from_bits(0); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copies the view into `dst`, which must have the same length
    /// ([`Error::LengthMismatch`] otherwise).
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        same_len("copy_to_host", self.len, dst.len())?;
        self.buf.read_at(self.offset, dst)
    }

    /// The same view typed as `S`, when `S` is `T` (`None` otherwise): how a function
    /// generic over every [`KernelScalar`] hands a view to a kernel generic over fewer
    /// types (`sort::gather` of warpspeed-algorithms). Not for users.
    #[doc(hidden)]
    pub fn downcast<S: KernelScalar>(self) -> Option<DeviceView<'a, S>> {
        let buf = (self.buf as &dyn std::any::Any).downcast_ref::<DeviceBuffer<S>>()?;
        Some(DeviceView {
            buf,
            offset: self.offset,
            len: self.len,
        })
    }

    /// The view as an argument of a launch on `stream` ([`DeviceBuffer::arg_at`]).
    pub(crate) fn arg(
        self,
        stream: Option<&'a Stream>,
    ) -> (u64, Option<SyncOnDrop<'a>>, &'a Device) {
        self.buf.arg_at(self.offset, stream)
    }

    /// The view's memory for the simulator's stream-order checks ([`DeviceBuffer::access`]).
    pub(crate) fn access(&self) -> Option<Access> {
        self.buf.access(self.range(), false)
    }

    /// The view's elements for a simulated collective on `queue`
    /// ([`DeviceBuffer::sim_read_on`]).
    pub(crate) fn sim_read_on(&self, queue: StreamId, op: &dyn Fn() -> String) -> Result<Vec<T>> {
        self.buf.sim_read_on(queue, self.range(), op)
    }

    fn sub(&self, r: Range<usize>) -> DeviceView<'a, T> {
        DeviceView {
            buf: self.buf,
            offset: self.offset + r.start,
            len: r.len(),
        }
    }
}

impl<'a, T: KernelScalar> DeviceViewMut<'a, T> {
    /// The device whose memory holds the view.
    pub fn device(&self) -> &Device {
        self.buf.device()
    }

    /// The same elements, read-only, for as long as this view is borrowed.
    pub fn as_view(&self) -> DeviceView<'_, T> {
        self.as_device_view()
    }

    /// The same view typed as `S`, when `S` is `T` (`Err(self)` otherwise), as
    /// [`DeviceView::downcast`]. Not for users.
    #[doc(hidden)]
    pub fn downcast<S: KernelScalar>(self) -> std::result::Result<DeviceViewMut<'a, S>, Self> {
        let (offset, len) = (self.offset, self.len);
        if std::any::TypeId::of::<S>() != std::any::TypeId::of::<T>() {
            return Err(self);
        }
        let buf = (self.buf as &mut dyn std::any::Any)
            .downcast_mut::<DeviceBuffer<S>>()
            .expect("the same type");
        Ok(DeviceViewMut { buf, offset, len })
    }

    /// The view's memory as `W`s (`len * size_of::<T>() / size_of::<W>()` of them, from
    /// the same first byte), lent to `f`: what lets a library kernel move elements of a
    /// type it cannot be generic over (a user's `#[gpu_struct]`) as `u32`, `u16` or `u8`
    /// words. The kernels `f` launches see a slice of `W`s with its own length, so bounds
    /// checks, the simulator's race checks and its stream-order checks keep their meaning.
    /// Not for users: `sort::sort_pairs` and `sort::gather` of warpspeed-algorithms call it.
    ///
    /// [`Error::InvalidArgument`] (and `f` is not called) unless `size_of::<T>()` is a
    /// multiple of `size_of::<W>()` and of `align_of::<W>()`: then, since device memory is
    /// 256-byte aligned (`cudaMalloc`'s, and the simulator's), every `W` is aligned.
    ///
    /// # Safety
    /// What `f` (and the work it queues) leaves in the memory must be, element by element,
    /// the bytes of valid `T`s: whole elements copied or permuted, say. `W` is then any
    /// type: a `#[gpu_struct]` with a `bool` field must not get arbitrary bytes.
    #[doc(hidden)]
    pub unsafe fn with_words<W: KernelScalar, R>(
        &mut self,
        f: impl FnOnce(&mut DeviceViewMut<'_, W>) -> R,
    ) -> Result<R> {
        let (size, word) = (std::mem::size_of::<T>(), std::mem::size_of::<W>());
        if word == 0 || size % word != 0 || size % std::mem::align_of::<W>() != 0 {
            return Err(Error::InvalidArgument {
                what: "DeviceViewMut::with_words".into(),
                reason: format!(
                    "{} ({size} bytes) is not a whole number of {} ({word} bytes, aligned to {})",
                    T::C_NAME,
                    W::C_NAME,
                    std::mem::align_of::<W>()
                ),
            });
        }
        let ratio = size / word;
        let range = self.offset * ratio..(self.offset + self.len) * ratio;
        // SAFETY: the sizes are checked above, the contents are the caller's promise.
        Ok(unsafe {
            self.buf
                .lend_as::<W, R>(|words| f(&mut words.slice_mut(range)))
        })
    }

    /// The view as an argument of a launch on `stream` ([`DeviceBuffer::arg_at_mut`]).
    pub(crate) fn into_arg(
        self,
        stream: Option<&'a Stream>,
    ) -> (u64, Option<SyncOnDrop<'a>>, &'a Device) {
        self.buf.arg_at_mut(self.offset, stream)
    }

    /// The view's memory for the simulator's stream-order checks, written.
    pub(crate) fn access(&self) -> Option<Access> {
        self.buf.access(self.range(), true)
    }

    /// Writes `src` (the view's length) for a simulated collective on `queue`
    /// ([`DeviceBuffer::sim_write_on`]).
    pub(crate) fn sim_write_on(
        &mut self,
        queue: StreamId,
        src: &[T],
        op: &dyn Fn() -> String,
    ) -> Result<()> {
        debug_assert_eq!(src.len(), self.len);
        self.buf.sim_write_on(queue, self.offset, src, op)
    }

    /// `r` of this view (relative to it), consuming it.
    fn sub_mut(self, r: Range<usize>) -> DeviceViewMut<'a, T> {
        DeviceViewMut {
            buf: self.buf,
            offset: self.offset + r.start,
            len: r.len(),
        }
    }

    // The writes, once for buffers and views (`writable_memory!` calls them).

    fn write_host(self, src: &[T]) -> Result<()> {
        same_len("copy_from_host", self.len, src.len())?;
        self.buf.write_at(self.offset, src)
    }

    fn fill_with(self, value: T) -> Result<()> {
        self.buf
            .fill_range(self.offset..self.offset + self.len, value)
    }

    fn copy_device(self, src: DeviceView<'_, T>) -> Result<()> {
        same_len("copy_from", self.len, src.len)?;
        self.buf.copy_in(self.offset, src.buf, src.range())
    }
}

/// The methods of writable device memory, the same on a [`DeviceBuffer`] (all of it) and a
/// [`DeviceViewMut`] (its range), so neither needs a trait in scope.
macro_rules! writable_memory {
    ($ty:ty, $what:literal) => {
        impl<T: KernelScalar> $ty {
            #[doc = concat!("Elements `range` of ", $what, " as a read-only view (`.slice(2..5)`, `.slice(..n)`, `.slice(k..)`), which borrows it. Pass `&view` to a kernel's `&[T]` parameter.")]
            ///
            /// # Panics
            /// When `range` is out of bounds, as `&v[a..b]` and cudarc's
            /// `CudaSlice::slice` do; `try_slice` returns `None` instead.
            #[track_caller]
            pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceView<'_, T> {
                self.as_device_view().slice(range)
            }

            /// `slice`, or `None` when `range` is out of bounds (as `v.get(a..b)`).
            pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<DeviceView<'_, T>> {
                self.as_device_view().try_slice(range)
            }

            #[doc = concat!("Elements `range` of ", $what, " as a writable view, which borrows it mutably: nothing else may use it while the view lives. Pass `&mut view` to a kernel's `&mut [T]` parameter.")]
            ///
            /// # Panics
            /// When `range` is out of bounds; `try_slice_mut` returns `None` instead.
            #[track_caller]
            pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceViewMut<'_, T> {
                let r = resolve_or_panic(range, AsDeviceView::len(self), "device memory");
                self.as_device_view_mut().sub_mut(r)
            }

            /// `slice_mut`, or `None` when `range` is out of bounds.
            pub fn try_slice_mut(
                &mut self,
                range: impl RangeBounds<usize>,
            ) -> Option<DeviceViewMut<'_, T>> {
                let r = resolve(&range, AsDeviceView::len(self))?;
                Some(self.as_device_view_mut().sub_mut(r))
            }

            #[doc = concat!("Copies ", $what, " to a new `Vec`, after every launch queued before has finished; an error of such a launch is reported here.")]
            pub fn download(&self) -> Result<Vec<T>> {
                self.as_device_view().download()
            }

            #[doc = concat!("Copies ", $what, " into `dst`, which must have the same length ([`Error::LengthMismatch`] otherwise).")]
            pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
                self.as_device_view().copy_to_host(dst)
            }

            #[doc = concat!("Overwrites ", $what, " with `src`, which must have the same length ([`Error::LengthMismatch`] otherwise).")]
            pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
                self.as_device_view_mut().write_host(src)
            }

            #[doc = concat!("Sets every element of ", $what, " to `value`: on a GPU `cuMemsetD8/D16/D32Async`, or `cuMemsetD2D32Async` per 32-bit word for 8- and 16-byte types, ordered on the device's stream like a launch.")]
            pub fn fill(&mut self, value: T) -> Result<()> {
                self.as_device_view_mut().fill_with(value)
            }

            #[doc = concat!("Copies `src` (a buffer or a view of the same length, on the same device) into ", $what, ", device to device: [`Error::LengthMismatch`] or [`Error::DeviceMismatch`] otherwise. Like cudarc's `memcpy_dtod`, ordered on the device's stream.")]
            pub fn copy_from(&mut self, src: &impl AsDeviceView<Elem = T>) -> Result<()> {
                self.as_device_view_mut().copy_device(src.as_device_view())
            }
        }
    };
}

writable_memory!(DeviceBuffer<T>, "the buffer");
writable_memory!(DeviceViewMut<'_, T>, "the view");

impl Device {
    /// A new buffer on this device holding a copy of `src` (device to device): a whole
    /// buffer (`dev.copy(&buf)`) or a view (`dev.copy(&buf.slice(2..5))`).
    /// [`Error::DeviceMismatch`] when this device cannot use `src`'s memory.
    pub fn copy<T: KernelScalar>(
        &self,
        src: &impl AsDeviceView<Elem = T>,
    ) -> Result<DeviceBuffer<T>> {
        let src = src.as_device_view();
        self.copy_range(src.buf, src.range())
    }
}

/// The copies a [`Stream`] queues: asynchronous, in the stream's order. They borrow their
/// arguments only for the call; the in-flight rule (docs/host-api.md) keeps the host from
/// reusing the memory before they are done.
impl Stream {
    /// Queues a copy of `src` (pinned host memory: a [`PinnedBuffer`](crate::PinnedBuffer) or a view
    /// of one, [`PinnedBuffer::slice`](crate::PinnedBuffer::slice)) into `dst` (a buffer or a view of the same length:
    /// [`Error::LengthMismatch`] naming both lengths otherwise), host to device. Returns
    /// once it is queued.
    pub fn upload<T: KernelScalar>(
        &self,
        src: &impl AsPinnedView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
    ) -> Result<()> {
        let (src, dst) = (src.as_pinned_view(), dst.as_device_view_mut());
        same_len(
            "Stream::upload (device destination vs pinned source)",
            dst.len,
            src.len,
        )?;
        dst.buf.upload_on(self, src, dst.offset)
    }

    /// Queues a copy of `src` (a buffer or a view) into `dst` (pinned host memory: a
    /// [`PinnedBuffer`](crate::PinnedBuffer) or a view of one,
    /// [`PinnedBuffer::slice_mut`](crate::PinnedBuffer::slice_mut), of the same length:
    /// [`Error::LengthMismatch`] naming both lengths otherwise), device to host. Returns
    /// once it is queued; [`PinnedBuffer::as_slice`](crate::PinnedBuffer::as_slice) waits for it.
    pub fn download<T: KernelScalar>(
        &self,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsPinnedViewMut<Elem = T>,
    ) -> Result<()> {
        let (src, dst) = (src.as_device_view(), dst.as_pinned_view_mut());
        same_len(
            "Stream::download (pinned destination vs device source)",
            dst.len,
            src.len,
        )?;
        src.buf.download_on(self, src.offset, dst)
    }

    /// Queues a copy of `src` into `dst` (buffers or views of the same length, on this
    /// stream's device), device to device.
    pub fn copy<T: KernelScalar>(
        &self,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
    ) -> Result<()> {
        let (src, dst) = (src.as_device_view(), dst.as_device_view_mut());
        same_len("Stream::copy", dst.len, src.len)?;
        dst.buf.copy_in_on(self, dst.offset, src.buf, src.range())
    }

    /// Queues a copy of `src`, on another device, into `dst` (of the same length, on this
    /// stream's device): peer to peer between the GPUs of this process (over NVLink or
    /// PCIe), or between simulated devices. The copy waits for the writes queued on
    /// `src` first, and writes to `src` queued after it wait for the copy (a kernel may
    /// overwrite `src` at once).
    ///
    /// ```
    /// # fn main() -> Result<(), warpspeed::Error> {
    /// let devices = warpspeed::Devices::simulated(2);
    /// let (a, b) = (devices.device(0).unwrap(), devices.device(1).unwrap());
    /// let on_a = a.upload(&[1u16, 2, 3])?;
    /// let mut on_b = b.zeros::<u16>(3)?;
    /// let s = b.create_stream()?;
    /// s.copy_peer(&on_a, &mut on_b)?;
    /// s.synchronize()?;
    /// assert_eq!(on_b.download()?, vec![1, 2, 3]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`]; [`Error::DeviceMismatch`] for a `dst` not on this
    /// stream's device, or a `src` of the other backend.
    pub fn copy_peer<T: KernelScalar>(
        &self,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
    ) -> Result<()> {
        let (src, dst) = (src.as_device_view(), dst.as_device_view_mut());
        same_len("Stream::copy_peer", dst.len, src.len)?;
        dst.buf.copy_peer_on(self, dst.offset, src.buf, src.range())
    }
}

impl<T: KernelScalar> DeviceBuffer<T> {
    /// The whole buffer as a read-only view.
    pub fn as_view(&self) -> DeviceView<'_, T> {
        self.as_device_view()
    }

    /// The whole buffer as a writable view.
    pub fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        self.as_device_view_mut()
    }
}

impl<T: KernelScalar> std::fmt::Debug for DeviceView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceView[{}..{}] of {:?}",
            self.offset,
            self.offset + self.len,
            self.buf
        )
    }
}

impl<T: KernelScalar> std::fmt::Debug for DeviceViewMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceViewMut[{}..{}] of {:?}",
            self.offset,
            self.offset + self.len,
            self.buf
        )
    }
}

crate::range::view_extent!(DeviceView, DeviceViewMut);
