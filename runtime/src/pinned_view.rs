//! Views of pinned host memory: [`PinnedView`] (`&[T]`) and [`PinnedViewMut`]
//! (`&mut [T]`), a range of a [`PinnedBuffer`] that borrows it, as [`DeviceView`] and
//! [`DeviceViewMut`](crate::DeviceViewMut) are of a `DeviceBuffer`. A stream copy
//! ([`Stream::upload`](crate::Stream::upload), [`Stream::download`](crate::Stream::download))
//! takes a view where it takes a pinned buffer ([`AsPinnedView`], [`AsPinnedViewMut`]), so a
//! chunked pipeline uses one pinned allocation and copies chunk `k` of it on stream `k`
//! (docs/host-api.md, "Streams").
//!
//! Ranges are checked when the view is made, as a device view's are (`slice` panics,
//! `try_slice` returns `None`). This module does not match on the backend: the copies are
//! `memory.rs`'s, the host access `PinnedBuffer::as_slice`'s.
//!
//! [`DeviceView`]: crate::DeviceView

use std::ops::{Range, RangeBounds};

use crate::device::Device;
use crate::error::Result;
use crate::pinned::PinnedBuffer;
use crate::range::{resolve, resolve_or_panic};
use crate::scalar::KernelScalar;

/// `&[T]` in pinned host memory: elements `offset .. offset + len` of a [`PinnedBuffer`],
/// borrowed. Made by [`PinnedBuffer::slice`]; cheap to copy. A stream's
/// [`upload`](crate::Stream::upload) copies from it.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let s = dev.create_stream()?;
/// let pinned = dev.pinned_from(&[0u32, 1, 2, 3, 4, 5])?;
/// let mut buf = dev.zeros::<u32>(6)?;
/// s.upload(&pinned.slice(3..), &mut buf.slice_mut(..3))?; // the last three, to the front
/// s.synchronize()?;
/// assert_eq!(buf.download()?, vec![3, 4, 5, 0, 0, 0]);
/// assert_eq!(pinned.slice(1..3).as_slice()?, &[1, 2]);
/// # Ok(()) }
/// ```
pub struct PinnedView<'a, T: KernelScalar> {
    pub(crate) buf: &'a PinnedBuffer<T>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

/// `&mut [T]` in pinned host memory: elements `offset .. offset + len` of a
/// [`PinnedBuffer`], borrowed mutably. Made by [`PinnedBuffer::slice_mut`]. A stream's
/// [`download`](crate::Stream::download) copies into it.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let s = dev.create_stream()?;
/// let buf = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let mut pinned = dev.alloc_pinned::<f32>(8)?;
/// s.download(&buf, &mut pinned.slice_mut(4..))?; // into the second half
/// pinned.slice_mut(..1).as_mut_slice()?[0] = 9.0;
/// assert_eq!(pinned.as_slice()?, &[9.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
/// // Lengths must agree: 4 elements do not go into 3.
/// let err = s.download(&buf, &mut pinned.slice_mut(..3)).unwrap_err();
/// assert!(err.to_string().contains("3") && err.to_string().contains("4"));
/// # Ok(()) }
/// ```
pub struct PinnedViewMut<'a, T: KernelScalar> {
    pub(crate) buf: &'a mut PinnedBuffer<T>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

/// Pinned memory a stream copies from: a [`PinnedBuffer`], a [`PinnedView`] or a
/// [`PinnedViewMut`]. [`Stream::upload`](crate::Stream::upload) takes
/// `&impl AsPinnedView<Elem = T>`.
pub trait AsPinnedView {
    /// The element type.
    type Elem: KernelScalar;

    /// The memory as a view (a whole buffer: all of it).
    fn as_pinned_view(&self) -> PinnedView<'_, Self::Elem>;
}

/// Pinned memory a stream copies into: a [`PinnedBuffer`] or a [`PinnedViewMut`].
/// [`Stream::download`](crate::Stream::download) takes
/// `&mut impl AsPinnedViewMut<Elem = T>`.
pub trait AsPinnedViewMut: AsPinnedView {
    /// The memory as a mutable view (a whole buffer: all of it).
    fn as_pinned_view_mut(&mut self) -> PinnedViewMut<'_, Self::Elem>;
}

impl<T: KernelScalar> AsPinnedView for PinnedBuffer<T> {
    type Elem = T;
    fn as_pinned_view(&self) -> PinnedView<'_, T> {
        PinnedView {
            buf: self,
            offset: 0,
            len: self.len,
        }
    }
}

impl<T: KernelScalar> AsPinnedViewMut for PinnedBuffer<T> {
    fn as_pinned_view_mut(&mut self) -> PinnedViewMut<'_, T> {
        let len = self.len;
        PinnedViewMut {
            buf: self,
            offset: 0,
            len,
        }
    }
}

impl<T: KernelScalar> AsPinnedView for PinnedView<'_, T> {
    type Elem = T;
    fn as_pinned_view(&self) -> PinnedView<'_, T> {
        *self
    }
}

impl<T: KernelScalar> AsPinnedView for PinnedViewMut<'_, T> {
    type Elem = T;
    fn as_pinned_view(&self) -> PinnedView<'_, T> {
        PinnedView {
            buf: self.buf,
            offset: self.offset,
            len: self.len,
        }
    }
}

impl<T: KernelScalar> AsPinnedViewMut for PinnedViewMut<'_, T> {
    fn as_pinned_view_mut(&mut self) -> PinnedViewMut<'_, T> {
        PinnedViewMut {
            buf: self.buf,
            offset: self.offset,
            len: self.len,
        }
    }
}

impl<T: KernelScalar> Clone for PinnedView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: KernelScalar> Copy for PinnedView<'_, T> {}

impl<T: KernelScalar> PinnedBuffer<T> {
    /// Elements `range` as a read-only view (`.slice(2..5)`, `.slice(..n)`,
    /// `.slice(k..)`), which borrows the buffer: what a stream uploads one chunk from.
    ///
    /// # Panics
    /// When `range` is out of bounds, as `&v[a..b]`; [`PinnedBuffer::try_slice`] returns
    /// `None` instead.
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> PinnedView<'_, T> {
        self.as_pinned_view().slice(range)
    }

    /// [`PinnedBuffer::slice`], or `None` when `range` is out of bounds (as `v.get(a..b)`).
    pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<PinnedView<'_, T>> {
        self.as_pinned_view().try_slice(range)
    }

    /// Elements `range` as a writable view, which borrows the buffer mutably: what a
    /// stream downloads one chunk into.
    ///
    /// # Panics
    /// When `range` is out of bounds; [`PinnedBuffer::try_slice_mut`] returns `None`
    /// instead.
    #[track_caller]
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> PinnedViewMut<'_, T> {
        let r = resolve_or_panic(range, self.len, "pinned memory");
        self.as_pinned_view_mut().sub_mut(r)
    }

    /// [`PinnedBuffer::slice_mut`], or `None` when `range` is out of bounds.
    pub fn try_slice_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Option<PinnedViewMut<'_, T>> {
        let r = resolve(&range, self.len)?;
        Some(self.as_pinned_view_mut().sub_mut(r))
    }
}

impl<'a, T: KernelScalar> PinnedView<'a, T> {
    /// The device whose streams copy from and to the memory.
    pub fn device(&self) -> &'a Device {
        self.buf.device()
    }

    /// The elements `range` of this view (relative to it), as a view of the same buffer.
    ///
    /// # Panics
    /// When `range` is out of bounds; [`PinnedView::try_slice`] returns `None` instead.
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> PinnedView<'a, T> {
        self.sub(resolve_or_panic(range, self.len, "pinned memory"))
    }

    /// [`PinnedView::slice`], or `None` when `range` is out of bounds.
    pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<PinnedView<'a, T>> {
        resolve(&range, self.len).map(|r| self.sub(r))
    }

    /// The view's elements, once no queued copy writes its buffer (as
    /// [`PinnedBuffer::as_slice`], which waits for the copies of the whole buffer).
    pub fn as_slice(&self) -> Result<&'a [T]> {
        Ok(&self.buf.as_slice()?[self.range()])
    }

    fn sub(&self, r: Range<usize>) -> PinnedView<'a, T> {
        PinnedView {
            buf: self.buf,
            offset: self.offset + r.start,
            len: r.len(),
        }
    }
}

impl<'a, T: KernelScalar> PinnedViewMut<'a, T> {
    /// The device whose streams copy from and to the memory.
    pub fn device(&self) -> &Device {
        self.buf.device()
    }

    /// The view, read-only.
    pub fn as_view(&self) -> PinnedView<'_, T> {
        self.as_pinned_view()
    }

    /// The elements `range` of this view (relative to it), as a writable view of the same
    /// buffer, which borrows this one mutably.
    ///
    /// # Panics
    /// When `range` is out of bounds; [`PinnedViewMut::try_slice_mut`] returns `None`
    /// instead.
    #[track_caller]
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> PinnedViewMut<'_, T> {
        let r = resolve_or_panic(range, self.len, "pinned memory");
        self.as_pinned_view_mut().sub_mut(r)
    }

    /// [`PinnedViewMut::slice_mut`], or `None` when `range` is out of bounds.
    pub fn try_slice_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Option<PinnedViewMut<'_, T>> {
        let r = resolve(&range, self.len)?;
        Some(self.as_pinned_view_mut().sub_mut(r))
    }

    /// The view's elements, once no queued copy reads or writes its buffer (as
    /// [`PinnedBuffer::as_mut_slice`]).
    pub fn as_slice(&self) -> Result<&[T]> {
        let range = self.range();
        Ok(&self.buf.as_slice()?[range])
    }

    /// The view's elements, writable, once no queued copy reads or writes its buffer (as
    /// [`PinnedBuffer::as_mut_slice`], which waits for the copies of the whole buffer).
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        let range = self.range();
        Ok(&mut self.buf.as_mut_slice()?[range])
    }

    fn sub_mut(self, r: Range<usize>) -> PinnedViewMut<'a, T> {
        PinnedViewMut {
            buf: self.buf,
            offset: self.offset + r.start,
            len: r.len(),
        }
    }
}

impl<T: KernelScalar> std::fmt::Debug for PinnedView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.range();
        write!(f, "PinnedView[{}..{}] of {:?}", r.start, r.end, self.buf)
    }
}

impl<T: KernelScalar> std::fmt::Debug for PinnedViewMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self.range();
        write!(f, "PinnedViewMut[{}..{}] of {:?}", r.start, r.end, self.buf)
    }
}

crate::range::view_extent!(PinnedView, PinnedViewMut);
