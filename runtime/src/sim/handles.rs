//! The memory handles simulated kernels use: [`Slice`] (`&[T]`), [`SliceMut`]
//! (`&mut [T]`, shared arrays) and [`AtomicSlice`] (`&[AtomicU32]`, shared atomic arrays).
//!
//! They are `Copy` addresses with a length, no lifetime: many simulated threads use the
//! same memory at once, so no Rust reference to it is ever formed. Every access is
//! bounds-checked, race-checked where the memory is tracked, and done as an atomic access
//! of the element's width (see `atomic.rs`).

use std::marker::PhantomData;

use super::atomic::{
    atomic_dec, atomic_inc, load_elem, store_elem, AtomicArith, AtomicInt, AtomicScalar,
};
use super::ctx::ThreadCtx;
use super::shadow::AccessKind;
use super::site::SrcLoc;
use super::track::Track;
use crate::scalar::KernelScalar;

/// The handles a thread gets from its context: its slice arguments and the block's shared
/// memory (`ctx.rs` keeps the arguments and shared memory themselves).
impl ThreadCtx<'_> {
    /// Read-only slice argument `i` (`&[T]`). Never written during the launch, so its
    /// reads need no race checks.
    pub fn arg_slice<T: KernelScalar>(&self, i: usize) -> Slice<T> {
        let (addr, len) = self.arg_buffer(i);
        Slice::new(addr as usize as *const T, len, Track::NONE)
    }

    /// Writable slice argument `i` (`&mut [T]`).
    pub fn arg_slice_mut<T: KernelScalar>(&self, i: usize) -> SliceMut<T> {
        let (addr, len) = self.arg_buffer(i);
        SliceMut::new(addr as usize as *mut T, len, self.arg_track(i))
    }

    /// Atomic slice argument `i` (`&[AtomicU32]` gives `T = u32`, `&[AtomicF32]` `f32`).
    pub fn arg_atomic<T: AtomicScalar>(&self, i: usize) -> AtomicSlice<T> {
        let (addr, len) = self.arg_buffer(i);
        AtomicSlice::new(addr as usize as *mut T, len, self.arg_track(i))
    }

    /// The block's shared array at `at` (`SharedArray::<T, N>::new()`), `len` elements:
    /// the same memory for every thread of the block; it starts as garbage (0xFF bytes).
    pub fn shared_array<T: KernelScalar>(&self, len: usize, at: &'static SrcLoc) -> SliceMut<T> {
        let (ptr, len, track) = self.shared_static::<T>(len, at);
        SliceMut::new(ptr, len, track)
    }

    /// The block's shared array of atomics at `at`.
    pub fn shared_atomic_array<T: AtomicScalar>(
        &self,
        len: usize,
        at: &'static SrcLoc,
    ) -> AtomicSlice<T> {
        let (ptr, len, track) = self.shared_static::<T>(len, at);
        AtomicSlice::new(ptr, len, track)
    }

    /// The launch's dynamic shared memory as `T`s: `cfg.shared_mem_bytes / size_of::<T>()`
    /// elements, one allocation per block whatever `T`.
    pub fn dynamic_shared<T: KernelScalar>(&self, at: &'static SrcLoc) -> SliceMut<T> {
        let (ptr, len, track) = self.shared_dynamic::<T>(at);
        SliceMut::new(ptr, len, track)
    }
}

/// A read-only slice inside a simulated kernel (`&[T]` in the kernel's signature).
pub struct Slice<T> {
    ptr: *const T,
    len: usize,
    /// Index of element 0 in the tracked memory (rows of a 2-D view start later).
    base: usize,
    track: Track,
}

/// A writable slice inside a simulated kernel (`&mut [T]`, a shared array).
pub struct SliceMut<T> {
    ptr: *mut T,
    len: usize,
    base: usize,
    track: Track,
}

/// Elements updated atomically (`&[AtomicU32]` and friends, shared atomic arrays);
/// `T` is the plain scalar.
pub struct AtomicSlice<T> {
    ptr: *mut T,
    len: usize,
    base: usize,
    track: Track,
    _t: PhantomData<T>,
}

macro_rules! copy_debug {
    ($($h:ident),*) => {$(
        impl<T> Clone for $h<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $h<T> {}
        impl<T> std::fmt::Debug for $h<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($h))
                    .field("ptr", &self.ptr)
                    .field("len", &self.len)
                    .finish()
            }
        }
    )*};
}

copy_debug!(Slice, SliceMut, AtomicSlice);

/// The number of rows of `width` elements in `len`, for `row` (0 rows when `width` is 0).
fn rows(len: usize, width: usize) -> usize {
    len.checked_div(width).unwrap_or(0)
}

impl<T: KernelScalar> Slice<T> {
    pub(crate) fn new(ptr: *const T, len: usize, track: Track) -> Slice<T> {
        Slice {
            ptr,
            len,
            base: 0,
            track,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `slice[index]` at `at`.
    #[inline]
    pub fn load(&self, ctx: &ThreadCtx<'_>, index: usize, at: &'static SrcLoc) -> T {
        if index >= self.len {
            out_of_bounds(index, self.len, at);
        }
        ctx.check(self.track, self.base + index, AccessKind::Read, at);
        // SAFETY: index < len of a live, aligned allocation (arguments outlive the launch,
        // shared memory the block).
        unsafe { load_elem(self.ptr.add(index)) }
    }

    /// Where element `index` is tracked: its shadow and its index there (`wgmma` marks the
    /// elements it reads pending).
    pub(crate) fn tracked(&self, index: usize) -> (Track, usize) {
        (self.track, self.base + index)
    }

    /// Where element 0 is in the tracked memory (`ldmatrix` checks its rows' alignment).
    pub(crate) fn offset(&self) -> usize {
        self.base
    }

    /// The sub-slice `&s[start..end]` (`end` `None`: to the length) at `at`, checked as
    /// Rust checks it: a start past the end is reported as index `start` of length `end`,
    /// an end past the length as index `end` of length `len` (the C's `ws_range_ok`).
    pub fn sub(&self, start: usize, end: Option<usize>, at: &'static SrcLoc) -> Slice<T> {
        let end = end.unwrap_or(self.len);
        if start > end {
            out_of_bounds(start, end, at);
        }
        if end > self.len {
            out_of_bounds(end, self.len, at);
        }
        Slice {
            // SAFETY: start <= end <= len.
            ptr: unsafe { self.ptr.add(start) },
            len: end - start,
            base: self.base + start,
            track: self.track,
        }
    }

    /// Row `index` of a 2-D view with rows of `width` elements: elements
    /// `[index * width, (index + 1) * width)`, checked against `len / width` rows.
    pub fn row(&self, index: usize, width: usize, at: &'static SrcLoc) -> Slice<T> {
        let n = rows(self.len, width);
        if index >= n {
            out_of_bounds(index, n, at);
        }
        Slice {
            // SAFETY: (index + 1) * width <= len.
            ptr: unsafe { self.ptr.add(index * width) },
            len: width,
            base: self.base + index * width,
            track: self.track,
        }
    }
}

impl<T: KernelScalar> SliceMut<T> {
    pub(crate) fn new(ptr: *mut T, len: usize, track: Track) -> SliceMut<T> {
        SliceMut {
            ptr,
            len,
            base: 0,
            track,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `slice[index]` at `at`.
    #[inline]
    pub fn load(&self, ctx: &ThreadCtx<'_>, index: usize, at: &'static SrcLoc) -> T {
        self.as_slice().load(ctx, index, at)
    }

    /// `slice[index] = value` at `at`.
    #[inline]
    pub fn store(&self, ctx: &ThreadCtx<'_>, index: usize, value: T, at: &'static SrcLoc) {
        if index >= self.len {
            out_of_bounds(index, self.len, at);
        }
        ctx.check(self.track, self.base + index, AccessKind::Write, at);
        // SAFETY: index < len of a live, aligned, writable allocation.
        unsafe { store_elem(self.ptr.add(index), value) }
    }

    /// The sub-slice `&mut s[start..end]` (see [`Slice::sub`]).
    pub fn sub(&self, start: usize, end: Option<usize>, at: &'static SrcLoc) -> SliceMut<T> {
        let r = self.as_slice().sub(start, end, at);
        SliceMut {
            ptr: r.ptr.cast_mut(),
            len: r.len,
            base: r.base,
            track: r.track,
        }
    }

    /// Row `index` of a 2-D view (see [`Slice::row`]).
    pub fn row(&self, index: usize, width: usize, at: &'static SrcLoc) -> SliceMut<T> {
        let r = self.as_slice().row(index, width, at);
        SliceMut {
            ptr: r.ptr.cast_mut(),
            len: r.len,
            base: r.base,
            track: r.track,
        }
    }

    /// `slice[index] = value` without a race-check record: a `tma_load_2d` landing, whose
    /// writes its issue recorded. `index` must be in bounds.
    pub(crate) fn store_untracked(&self, index: usize, value: T) {
        assert!(index < self.len, "a landing inside its tile");
        // SAFETY: index < len of a live, aligned, writable allocation.
        unsafe { store_elem(self.ptr.add(index), value) }
    }

    /// Where element `index` is tracked: its shadow and its index there (`cp_async` marks
    /// its destination pending).
    pub(crate) fn tracked(&self, index: usize) -> (Track, usize) {
        (self.track, self.base + index)
    }

    /// The read-only view, for passing a `&mut [T]` where a `&[T]` is expected.
    pub fn as_slice(&self) -> Slice<T> {
        Slice {
            ptr: self.ptr,
            len: self.len,
            base: self.base,
            track: self.track,
        }
    }
}

/// A `&mut [T]` passed where a device function takes `&[T]` (Rust's reborrow coercion).
impl<T: KernelScalar> From<SliceMut<T>> for Slice<T> {
    fn from(s: SliceMut<T>) -> Slice<T> {
        s.as_slice()
    }
}

impl<T: AtomicScalar> AtomicSlice<T> {
    pub(crate) fn new(ptr: *mut T, len: usize, track: Track) -> AtomicSlice<T> {
        AtomicSlice {
            ptr,
            len,
            base: 0,
            track,
            _t: PhantomData,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `index` of a 2-D view (see [`Slice::row`]).
    pub fn row(&self, index: usize, width: usize, at: &'static SrcLoc) -> AtomicSlice<T> {
        let n = rows(self.len, width);
        if index >= n {
            out_of_bounds(index, n, at);
        }
        AtomicSlice {
            // SAFETY: (index + 1) * width <= len.
            ptr: unsafe { self.ptr.add(index * width) },
            len: width,
            base: self.base + index * width,
            track: self.track,
            _t: PhantomData,
        }
    }

    /// The element's address after the bounds and race checks.
    #[inline]
    fn element(
        &self,
        ctx: &ThreadCtx<'_>,
        index: usize,
        kind: AccessKind,
        at: &'static SrcLoc,
    ) -> *mut T {
        if index >= self.len {
            out_of_bounds(index, self.len, at);
        }
        ctx.check(self.track, self.base + index, kind, at);
        // SAFETY: index < len of a live allocation.
        unsafe { self.ptr.add(index) }
    }

    /// An atomic load. Yields once, so a spin-wait on a flag set by another thread of
    /// the block lets that thread run.
    pub async fn load(self, ctx: &ThreadCtx<'_>, index: usize, at: &'static SrcLoc) -> T {
        let p = self.element(ctx, index, AccessKind::AtomicRead, at);
        ctx.yield_now().await;
        // SAFETY: `element` checked the index; the memory outlives the kernel's threads.
        unsafe { T::atomic_load(p) }
    }

    /// An atomic store.
    pub async fn store(self, ctx: &ThreadCtx<'_>, index: usize, value: T, at: &'static SrcLoc) {
        let p = self.element(ctx, index, AccessKind::AtomicWrite, at);
        // SAFETY: as in `load`.
        unsafe { T::atomic_store(p, value) }
    }

    /// Exchanges the element with `value`; yields once (see [`AtomicSlice::load`]).
    pub async fn swap(self, ctx: &ThreadCtx<'_>, index: usize, value: T, at: &'static SrcLoc) -> T {
        let p = self.element(ctx, index, AccessKind::AtomicWrite, at);
        ctx.yield_now().await;
        // SAFETY: as in `load`.
        unsafe { T::atomic_swap(p, value) }
    }

    /// Compares the bits with `current` and writes `new` where equal: `Ok(old)`, else
    /// `Err(actual)`. Yields once (see [`AtomicSlice::load`]).
    pub async fn compare_exchange(
        self,
        ctx: &ThreadCtx<'_>,
        index: usize,
        current: T,
        new: T,
        at: &'static SrcLoc,
    ) -> Result<T, T> {
        let p = self.element(ctx, index, AccessKind::AtomicRmw, at);
        ctx.yield_now().await;
        // SAFETY: as in `load`.
        unsafe { T::atomic_compare_exchange(p, current, new) }
    }
}

macro_rules! rmw {
    ($bound:ident: $($name:ident => $op:ident, $doc:literal;)*) => {
        impl<T: $bound> AtomicSlice<T> {$(
            #[doc = $doc]
            pub async fn $name(
                self,
                ctx: &ThreadCtx<'_>,
                index: usize,
                value: T,
                at: &'static SrcLoc,
            ) -> T {
                let p = self.element(ctx, index, AccessKind::AtomicRmw, at);
                // SAFETY: `element` checked the index; the memory outlives the threads.
                unsafe { T::$op(p, value) }
            }
        )*}
    };
}

rmw! { AtomicScalar:
    fetch_add => atomic_add, "Adds (integers wrap; `f16x2` adds each half); returns the old value.";
}

rmw! { AtomicArith:
    fetch_sub => atomic_sub, "Subtracts (integers wrap); returns the old value.";
    fetch_min => atomic_min, "Minimum (floats: `f32::min`); returns the old value.";
    fetch_max => atomic_max, "Maximum (floats: `f32::max`); returns the old value.";
}

rmw! { AtomicInt:
    fetch_and => atomic_and, "Bitwise and; returns the old value.";
    fetch_or => atomic_or, "Bitwise or; returns the old value.";
    fetch_xor => atomic_xor, "Bitwise xor; returns the old value.";
}

impl AtomicSlice<u32> {
    /// CUDA's `atomicInc`: `old >= limit ? 0 : old + 1`; returns the old value.
    pub async fn atomic_inc(
        self,
        ctx: &ThreadCtx<'_>,
        index: usize,
        limit: u32,
        at: &'static SrcLoc,
    ) -> u32 {
        let p = self.element(ctx, index, AccessKind::AtomicRmw, at);
        // SAFETY: as in `load`.
        unsafe { atomic_inc(p, limit) }
    }

    /// CUDA's `atomicDec`: `(old == 0 || old > limit) ? limit : old - 1`; returns the old
    /// value.
    pub async fn atomic_dec(
        self,
        ctx: &ThreadCtx<'_>,
        index: usize,
        limit: u32,
        at: &'static SrcLoc,
    ) -> u32 {
        let p = self.element(ctx, index, AccessKind::AtomicRmw, at);
        // SAFETY: as in `load`.
        unsafe { atomic_dec(p, limit) }
    }
}

/// Stops the simulated thread with an out-of-bounds report (the executor adds the
/// kernel, block and thread).
#[cold]
#[inline(never)]
fn out_of_bounds(index: usize, len: usize, at: &'static SrcLoc) -> ! {
    super::check::raise(super::check::Failure::OutOfBounds {
        at,
        index: index as u64,
        len: len as u64,
    })
}
