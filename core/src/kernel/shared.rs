//! Shared memory: block-wide arrays, declared with a `let` in a kernel.

use super::outside_kernel;

/// `N` elements of `T` in the block's shared memory (CUDA's `__shared__ T a[N]`), made by
/// `let tile = SharedArray::<f32, 256>::new();` in a kernel. Every thread of the block
/// sees the same array; it starts uninitialised, as on the GPU (the simulator reports a
/// read before any write), so fill it, then `sync_threads()`, then read. `T` is a scalar,
/// an atomic (`SharedArray::<AtomicU32, 256>`: `tile[i].fetch_add(..)`) or a row `[T; W]`
/// for a 2-D tile (`SharedArray::<[f32; 33], 32>`: `tile[y][x]`). `N` is a literal, a
/// constant or a constant expression (docs/language.md).
pub struct SharedArray<T, const N: usize> {
    _elems: core::marker::PhantomData<[T; N]>,
}

// No `Default`: a shared array is declared with `new()` in a kernel, nowhere else.
#[allow(clippy::new_without_default)]
impl<T, const N: usize> SharedArray<T, N> {
    /// The block's array (one per `let` in the kernel, shared by its threads).
    pub fn new() -> Self {
        outside_kernel("SharedArray::new")
    }
    /// `N`.
    pub fn len(&self) -> usize {
        N
    }
    /// `N == 0`.
    pub fn is_empty(&self) -> bool {
        N == 0
    }
}

impl<T, const N: usize> core::ops::Index<usize> for SharedArray<T, N> {
    type Output = T;
    /// Element `i`, bounds-checked as every index in a kernel is.
    fn index(&self, i: usize) -> &T {
        let _ = i;
        outside_kernel("SharedArray indexing")
    }
}

impl<T, const N: usize> core::ops::IndexMut<usize> for SharedArray<T, N> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        let _ = i;
        outside_kernel("SharedArray indexing")
    }
}

/// The block's dynamic shared memory as a slice of `T`, its length the launch's
/// `LaunchConfig::shared_mem_bytes` divided by `size_of::<T>()` (CUDA's
/// `extern __shared__ T a[]`).
pub fn dynamic_shared<T>() -> &'static mut [T] {
    outside_kernel("dynamic_shared")
}
