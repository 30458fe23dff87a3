//! Simulated device memory: [`HostAlloc`], a host allocation aligned as `cudaMalloc`'s and
//! owned through a raw pointer. Simulated threads write it through raw pointers while the
//! host holds a `&DeviceBuffer`, so no Rust reference to its elements exists during a
//! launch.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::scalar::KernelScalar;

/// `len` elements of `T` in a host allocation aligned as `cudaMalloc`'s (256 bytes), held
/// as a raw pointer. The alignment lets [`DeviceBuffer::into_vectors`](crate::DeviceBuffer::into_vectors) view the memory of
/// a buffer of `f32` as `f32x4` on the simulator as on a GPU.
pub(crate) struct HostAlloc<T> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
    /// Unique in the process (an address may be reused after a free): the key of the
    /// stream-order checks (`order.rs`).
    id: u64,
}

/// The next [`HostAlloc`]'s id.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The alignment of simulated device memory: `cudaMalloc`'s.
const HOST_ALIGN: usize = 256;

// SAFETY: HostAlloc owns its elements like a `Box<[T]>`; T is Send + Sync (KernelScalar).
unsafe impl<T: Send> Send for HostAlloc<T> {}
// SAFETY: shared access only reads, except from simulated kernels, which the launch API
// lets write only through a `&mut DeviceBuffer` (directly or held by a `DeviceViewMut`),
// and launches finish before they return; so `&DeviceBuffer`s on several host threads
// only ever read at once (docs/host-api.md, "Host threads").
unsafe impl<T: Sync> Sync for HostAlloc<T> {}

impl<T: KernelScalar> HostAlloc<T> {
    /// `len` elements of zero bits (`0`, `0.0`, `false`: a valid value of every kernel
    /// scalar).
    pub(crate) fn zeroed(len: usize) -> Self {
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        let layout = Layout::from_size_align(bytes, HOST_ALIGN.max(std::mem::align_of::<T>()))
            .expect("buffer size overflows isize");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<T>()) else {
            std::alloc::handle_alloc_error(layout)
        };
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        HostAlloc {
            ptr,
            len,
            layout,
            id,
        }
    }

    /// A copy of `data`.
    pub(crate) fn from_slice(data: &[T]) -> Self {
        let mut a = Self::zeroed(data.len());
        a.as_mut_slice().copy_from_slice(data);
        a
    }

    /// The same memory as `len` elements of `U` (same bytes, alignment checked by the
    /// caller).
    pub(crate) fn cast<U>(self, len: usize) -> HostAlloc<U> {
        let this = std::mem::ManuallyDrop::new(self);
        HostAlloc {
            ptr: this.ptr.cast(),
            len,
            layout: this.layout,
            id: this.id,
        }
    }
}

impl<T> HostAlloc<T> {
    /// The address simulated kernels use.
    pub(crate) fn addr(&self) -> u64 {
        self.ptr.as_ptr() as usize as u64
    }

    /// The allocation's identity for the stream-order checks (`order.rs`); kept by `cast`.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The first element, for a caller that makes a slice of the elements under the
    /// rules of `as_slice` and `as_mut_slice`.
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// The elements. Only while no simulated kernel runs: launches are synchronous and
    /// kernels write only buffers borrowed mutably, so a `&self` caller cannot overlap one.
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: ptr/len describe initialised elements of a live allocation; no writer
        // exists while `&self` is held outside a launch (see above).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above, and `&mut self` excludes every other access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for HostAlloc<T> {
    fn drop(&mut self) {
        // Kernel scalars are `Copy`: nothing to drop but the memory.
        // SAFETY: allocated in `zeroed` with this layout, freed once, here.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}
