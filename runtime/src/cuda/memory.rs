//! Buffers on the GPU: allocations and copies of a [`CudaBuffer`] (bytes), each on the
//! device's stream and each driver result through [`Faults::check`](super::result::Faults::check),
//! so a fault of an earlier kernel that surfaces at a copy or an allocation names that
//! kernel.
//!
//! A buffer is `len * size_of::<T>()` bytes, because cudarc's `DeviceRepr` is not a bound
//! of [`KernelScalar`]; every type kernels use is plain data of its C size, converted here.

use std::any::TypeId;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{sys, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, SyncOnDrop};

use super::device::CudaDevice;
use crate::bf16_types::{bf16, bf16x2};
use crate::error::Result;
use crate::half_types::{f16, f16x2};
use crate::scalar::KernelScalar;
use crate::vector_types::{f32x2, f32x4, f64x2, i32x2, i32x4, u32x2, u32x4};

/// The memory of a buffer on the GPU: its bytes, allocated on the device's stream.
pub(crate) type CudaBuffer = CudaSlice<u8>;

impl CudaDevice {
    /// A new buffer holding a copy of `data`.
    pub(crate) fn upload<T: KernelScalar>(&self, data: &[T]) -> Result<CudaBuffer> {
        self.faults.alive()?;
        if data.is_empty() {
            return self.zeros::<T>(0);
        }
        let copied = self.stream.clone_htod(&*to_bytes(data));
        self.faults.check(copied, "uploading a buffer", None)
    }

    /// A new buffer of `len` elements of zero bits. `cuMemAlloc` refuses 0 bytes, so a
    /// buffer of no elements holds one unused byte (the address is still a valid,
    /// 256-byte-aligned allocation, as a kernel argument needs).
    pub(crate) fn zeros<T: KernelScalar>(&self, len: usize) -> Result<CudaBuffer> {
        self.faults.alive()?;
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        let allocated = self.stream.alloc_zeros::<u8>(bytes);
        self.faults.check(allocated, "allocating a buffer", None)
    }

    /// A new buffer holding a copy of the bytes `range` of `src` (device to device).
    pub(crate) fn copy(&self, src: &CudaBuffer, range: Range<usize>) -> Result<CudaBuffer> {
        self.faults.alive()?;
        if range.is_empty() {
            return self.zeros::<u8>(0);
        }
        let copied = self.stream.clone_dtod(&src.slice(range));
        self.faults
            .check(copied, "copying a buffer on the device", None)
    }

    /// Copies the bytes `from` of `src` to `dst` from byte `at` on (device to device), on
    /// `stream` (a `Stream`'s) or else the device's stream.
    pub(crate) fn copy_into(
        &self,
        stream: Option<&Arc<CudaStream>>,
        src: &CudaBuffer,
        from: Range<usize>,
        dst: &mut CudaBuffer,
        at: usize,
    ) -> Result<()> {
        self.faults.alive()?;
        if from.is_empty() {
            return Ok(());
        }
        let len = from.len();
        let (on, what) = match stream {
            Some(stream) => (stream, "queuing a copy between buffers on a stream"),
            None => (&self.stream, "copying between buffers on the device"),
        };
        let copied = on.memcpy_dtod(&src.slice(from), &mut dst.slice_mut(at..at + len));
        self.faults.check(copied, what, None)
    }

    /// Sets `count` elements of `size` bytes (1, 2, 4, 8 or 16) from byte `at` of `dst` to
    /// the low `size` bytes of `bits`: one `cuMemsetD8/D16/D32Async` for sizes up to 4;
    /// for 8 and 16 bytes one `cuMemsetD2D32Async` per 32-bit word of the element, as a
    /// column of `count` rows whose pitch is the element's size (the driver has no 64- or
    /// 128-bit memset). Asynchronous, on the device's stream.
    pub(crate) fn fill(
        &self,
        dst: &mut CudaBuffer,
        at: usize,
        count: usize,
        size: usize,
        bits: u128,
    ) -> Result<()> {
        const WHAT: &str = "filling a buffer (cuMemset)";
        self.faults.alive()?;
        if count == 0 {
            return Ok(());
        }
        let bound = self.stream.context().bind_to_thread();
        self.faults.check(bound, WHAT, None)?;
        let stream = self.stream.cu_stream();
        let (base, _record) = dst.device_ptr_mut(&self.stream);
        let ptr = base + at as u64;
        // SAFETY: `ptr .. ptr + count * size` lies inside `dst`'s allocation (the caller
        // checked the range), aligned to `size` (allocations are 256-byte aligned and `at`
        // is a multiple of `size`); the context is bound and the stream is `dst`'s.
        let set = unsafe {
            match size {
                1 => sys::cuMemsetD8Async(ptr, bits as u8, count, stream).result(),
                2 => sys::cuMemsetD16Async(ptr, bits as u16, count, stream).result(),
                4 => sys::cuMemsetD32Async(ptr, bits as u32, count, stream).result(),
                8 | 16 => (0..size / 4).try_for_each(|word| {
                    let value = (bits >> (32 * word)) as u32;
                    let column = ptr + 4 * word as u64;
                    sys::cuMemsetD2D32Async(column, size, value, 1, count, stream).result()
                }),
                _ => unreachable!("kernel scalars are 1, 2, 4, 8 or 16 bytes"),
            }
        };
        self.faults.check(set, WHAT, None)
    }

    /// Copies `src` from byte `at` on into `dst`, after every launch queued before; an
    /// error of such a launch is reported here.
    pub(crate) fn download<T: KernelScalar>(
        &self,
        src: &CudaBuffer,
        at: usize,
        dst: &mut [T],
    ) -> Result<()> {
        const WHAT: &str = "downloading a buffer";
        self.faults.alive()?;
        if dst.is_empty() {
            return self.synchronize(WHAT);
        }
        let src = src.slice(at..at + std::mem::size_of_val(dst));
        if is_plain::<T>() {
            // SAFETY: T is a primitive integer or float, or a half or vector type (checked
            // by TypeId): it has no padding and every bit pattern is a valid value.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    dst.as_mut_ptr().cast::<u8>(),
                    std::mem::size_of_val(dst),
                )
            };
            self.faults
                .check(self.stream.memcpy_dtoh(&src, bytes), WHAT, None)?;
        } else {
            let bytes = self
                .faults
                .check(self.stream.clone_dtoh(&src), WHAT, None)?;
            from_bytes(&bytes, dst);
        }
        self.synchronize(WHAT)
    }

    /// Overwrites `dst` from byte `at` on with `src`.
    pub(crate) fn upload_into<T: KernelScalar>(
        &self,
        src: &[T],
        dst: &mut CudaBuffer,
        at: usize,
    ) -> Result<()> {
        self.faults.alive()?;
        if src.is_empty() {
            return Ok(());
        }
        let mut dst = dst.slice_mut(at..at + std::mem::size_of_val(src));
        let copied = self.stream.memcpy_htod(&*to_bytes(src), &mut dst);
        self.faults.check(copied, "uploading into a buffer", None)
    }

    /// Adopts a cudarc allocation of this context as a buffer, without copying: owned from
    /// now on by the device's stream (freed on it), which first waits for the work queued
    /// on `slice`'s own stream.
    pub(crate) fn adopt<T>(&self, slice: CudaSlice<T>) -> Result<CudaBuffer> {
        self.faults.alive()?;
        let theirs = slice.stream().clone();
        let bytes = slice.num_bytes();
        // `leak` orders `theirs` after the slice's pending reads and writes (cudarc's
        // events), then gives up the allocation without freeing it.
        let ptr = slice.leak();
        // SAFETY: `ptr` is a live allocation of this context of `bytes` bytes, owned by
        // nobody since `leak`; the bytes were `T`s, which are valid `u8`s.
        let buf = unsafe { self.stream.upgrade_device_ptr::<u8>(ptr, bytes) };
        if theirs.cu_stream() != self.stream.cu_stream() {
            let joined = self.stream.join(&theirs);
            self.faults.check(
                joined,
                "ordering the device's stream after the cudarc slice's stream",
                None,
            )?;
        }
        Ok(buf)
    }

    /// Hands a buffer to cudarc as `len` elements of `T`, without copying, on the device's
    /// stream.
    pub(crate) fn hand_out<T: KernelScalar + DeviceRepr>(
        &self,
        buf: CudaBuffer,
        len: usize,
    ) -> CudaSlice<T> {
        // An empty buffer holds one unused byte (`zeros`).
        debug_assert!(buf.len() >= len * std::mem::size_of::<T>());
        let ptr = buf.leak();
        // SAFETY: `ptr` is a live allocation of `len * size_of::<T>()` bytes on this
        // device's stream, owned by nobody since `leak`; it holds `len` values of `T` that
        // warpspeed wrote (each a valid `T`: uploads and kernels write whole values, and
        // allocations start zeroed, a valid value of every kernel scalar).
        unsafe { self.stream.upgrade_device_ptr::<T>(ptr, len) }
    }

    /// The device address of `buf` for a kernel argument of a launch on `stream` (the
    /// device's when `None`), and cudarc's record that keeps other streams ordered after
    /// the launch (drop it once the launch is queued): `stream` first waits for the
    /// buffer's earlier writes on other streams.
    pub(crate) fn arg<'a>(
        &'a self,
        buf: &'a CudaBuffer,
        stream: Option<&'a Arc<CudaStream>>,
    ) -> (u64, SyncOnDrop<'a>) {
        buf.device_ptr(stream.unwrap_or(&self.stream))
    }

    /// [`CudaDevice::arg`] for a buffer the kernel writes (the stream also waits for the
    /// buffer's earlier reads).
    pub(crate) fn arg_mut<'a>(
        &'a self,
        buf: &'a mut CudaBuffer,
        stream: Option<&'a Arc<CudaStream>>,
    ) -> (u64, SyncOnDrop<'a>) {
        buf.device_ptr_mut(stream.unwrap_or(&self.stream))
    }
}

/// The device address of `buf` (for alignment checks).
pub(crate) fn address(buf: &CudaBuffer) -> u64 {
    let stream = buf.stream().clone();
    let (ptr, _sync) = buf.device_ptr(&stream);
    ptr
}

/// Whether `T` is a primitive integer or float, `f16`/`f16x2` (16-bit words) or a vector
/// type: no padding, every bit pattern valid, so its memory may be viewed as bytes both
/// ways.
/// (`bool` is not: not every byte is a valid `bool`.)
pub(super) fn is_plain<T: 'static>() -> bool {
    let id = TypeId::of::<T>();
    [
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<isize>(),
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<f16>(),
        TypeId::of::<f16x2>(),
        TypeId::of::<crate::e4m3>(),
        TypeId::of::<crate::e5m2>(),
        TypeId::of::<bf16>(),
        TypeId::of::<bf16x2>(),
        TypeId::of::<f32x2>(),
        TypeId::of::<f32x4>(),
        TypeId::of::<u32x2>(),
        TypeId::of::<u32x4>(),
        TypeId::of::<i32x2>(),
        TypeId::of::<i32x4>(),
        TypeId::of::<f64x2>(),
    ]
    .contains(&id)
}

/// `data` as the bytes the GPU sees: borrowed for plain types, packed through
/// `write_bytes` otherwise (`bool`: `to_bits`' low byte; a `#[gpu_struct]`: each field at
/// its offset, padding zero).
fn to_bytes<T: KernelScalar>(data: &[T]) -> Cow<'_, [u8]> {
    if is_plain::<T>() {
        // SAFETY: plain types have no padding, so every byte is initialized.
        Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
        })
    } else {
        let size = std::mem::size_of::<T>();
        let mut out = vec![0u8; std::mem::size_of_val(data)];
        for (v, chunk) in data.iter().zip(out.chunks_exact_mut(size.max(1))) {
            v.write_bytes(chunk);
        }
        Cow::Owned(out)
    }
}

/// The inverse of [`to_bytes`] for non-plain types: each element through `read_bytes`.
fn from_bytes<T: KernelScalar>(bytes: &[u8], dst: &mut [T]) {
    let size = std::mem::size_of::<T>();
    for (v, chunk) in dst.iter_mut().zip(bytes.chunks_exact(size.max(1))) {
        *v = T::read_bytes(chunk);
    }
}
