//! Buffers on the GPU: allocations and copies of a [`CudaBuffer`] (bytes), each on the
//! device's stream and each driver result through [`Faults::check`](super::result::Faults::check),
//! so a fault of an earlier kernel that surfaces at a copy or an allocation names that
//! kernel.
//!
//! A buffer is `len * size_of::<T>()` bytes, because cudarc's `DeviceRepr` is not a bound
//! of [`KernelScalar`]; every type kernels use is plain data of its C size, converted here.

use std::any::TypeId;
use std::borrow::Cow;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, SyncOnDrop};

use super::device::CudaDevice;
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
        let copied = self.stream.clone_htod(&*to_bytes(data));
        self.faults.check(copied, "uploading a buffer", None)
    }

    /// A new buffer of `len` elements of zero bits.
    pub(crate) fn zeros<T: KernelScalar>(&self, len: usize) -> Result<CudaBuffer> {
        self.faults.alive()?;
        let bytes = len * std::mem::size_of::<T>();
        let allocated = self.stream.alloc_zeros::<u8>(bytes);
        self.faults.check(allocated, "allocating a buffer", None)
    }

    /// A new buffer holding a copy of `src` (device to device).
    pub(crate) fn copy(&self, src: &CudaBuffer) -> Result<CudaBuffer> {
        self.faults.alive()?;
        let copied = self.stream.clone_dtod(src);
        self.faults
            .check(copied, "copying a buffer on the device", None)
    }

    /// Copies `src` into `dst` (the same number of bytes), after every launch queued
    /// before; an error of such a launch is reported here.
    pub(crate) fn download<T: KernelScalar>(&self, src: &CudaBuffer, dst: &mut [T]) -> Result<()> {
        const WHAT: &str = "downloading a buffer";
        self.faults.alive()?;
        if is_plain::<T>() {
            // SAFETY: T is a primitive integer or float, or a half or vector type (checked
            // by TypeId): it has no padding and every bit pattern is a valid value.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(
                    dst.as_mut_ptr().cast::<u8>(),
                    std::mem::size_of_val(dst),
                )
            };
            if !bytes.is_empty() {
                self.faults
                    .check(self.stream.memcpy_dtoh(src, bytes), WHAT, None)?;
            }
        } else {
            let bytes = self.faults.check(self.stream.clone_dtoh(src), WHAT, None)?;
            from_bytes(&bytes, dst);
        }
        self.synchronize(WHAT)
    }

    /// Overwrites `dst` with `src` (the same number of bytes).
    pub(crate) fn upload_into<T: KernelScalar>(
        &self,
        src: &[T],
        dst: &mut CudaBuffer,
    ) -> Result<()> {
        self.faults.alive()?;
        if src.is_empty() {
            return Ok(());
        }
        let copied = self.stream.memcpy_htod(&*to_bytes(src), dst);
        self.faults.check(copied, "uploading into a buffer", None)
    }

    /// The device address of `buf` for a kernel argument, and cudarc's record that keeps
    /// other streams ordered after the launch (drop it once the launch is queued).
    pub(crate) fn arg<'a>(&'a self, buf: &'a CudaBuffer) -> (u64, SyncOnDrop<'a>) {
        buf.device_ptr(&self.stream)
    }

    /// [`CudaDevice::arg`] for a buffer the kernel writes.
    pub(crate) fn arg_mut<'a>(&'a self, buf: &'a mut CudaBuffer) -> (u64, SyncOnDrop<'a>) {
        buf.device_ptr_mut(&self.stream)
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
fn is_plain<T: 'static>() -> bool {
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
/// `to_bits` otherwise (the low `size_of::<T>()` bytes, little endian).
fn to_bytes<T: KernelScalar>(data: &[T]) -> Cow<'_, [u8]> {
    if is_plain::<T>() {
        // SAFETY: plain types have no padding, so every byte is initialized.
        Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
        })
    } else {
        let size = std::mem::size_of::<T>();
        let mut out = Vec::with_capacity(std::mem::size_of_val(data));
        for v in data {
            let bits = v.to_bits128().to_le_bytes();
            out.extend((0..size).map(|i| bits.get(i).copied().unwrap_or(0)));
        }
        Cow::Owned(out)
    }
}

/// The inverse of [`to_bytes`] for non-plain types: each element through `from_bits`.
fn from_bytes<T: KernelScalar>(bytes: &[u8], dst: &mut [T]) {
    let size = std::mem::size_of::<T>();
    for (v, chunk) in dst.iter_mut().zip(bytes.chunks_exact(size.max(1))) {
        let mut bits = [0u8; 16];
        let n = chunk.len().min(16);
        bits[..n].copy_from_slice(&chunk[..n]);
        *v = T::from_bits128(u128::from_le_bytes(bits));
    }
}
