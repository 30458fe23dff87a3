//! Device memory: [`DeviceBuffer<T>`], a typed array on a GPU or in simulated memory.
//!
//! On a GPU the buffer is a cudarc `CudaSlice<u8>` of `len * size_of::<T>()` bytes (bytes,
//! because cudarc's `DeviceRepr` is not a bound of [`KernelScalar`]; every scalar kernels
//! use is plain data of its C size). On the simulator it is a host allocation owned through
//! a raw pointer: simulated threads write it through raw pointers while the host holds a
//! `&DeviceBuffer`, so no Rust reference to its elements exists during a launch.

use std::any::TypeId;

use cudarc::driver::CudaSlice;

use crate::device::{Device, Inner};
use crate::error::{Error, Result};
use crate::scalar::KernelScalar;
use crate::sim::HostAlloc;
use crate::vector_types::{whole_vectors, Vector};

/// An array of `T` in a device's memory.
///
/// ```
/// # fn main() -> Result<(), warpspeed_runtime::Error> {
/// let dev = warpspeed_runtime::Device::simulator();
/// let mut buf = dev.zeros::<f32>(3)?;
/// buf.copy_from_host(&[1.0, 2.0, 3.0])?;
/// let copy = dev.copy(&buf)?;
/// assert_eq!(copy.download()?, vec![1.0, 2.0, 3.0]);
/// # Ok(()) }
/// ```
pub struct DeviceBuffer<T: KernelScalar> {
    pub(crate) device: Device,
    len: usize,
    pub(crate) storage: Storage<T>,
}

pub(crate) enum Storage<T> {
    Cuda(CudaSlice<u8>),
    Simulator(HostAlloc<T>),
}

impl Device {
    /// Copies `data` into a new buffer on this device.
    pub fn upload<T: KernelScalar>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let storage = match &*self.inner {
            Inner::Cuda(cuda) => {
                cuda.faults.check()?;
                let bytes = to_bytes(data);
                let slice = cuda
                    .stream
                    .clone_htod(&*bytes)
                    .map_err(driver("uploading a buffer"))?;
                Storage::Cuda(slice)
            }
            Inner::Simulator(_) => Storage::Simulator(HostAlloc::from_slice(data)),
        };
        Ok(DeviceBuffer {
            device: self.clone(),
            len: data.len(),
            storage,
        })
    }

    /// A new buffer of `len` zeros (`0`, `0.0`, `false`).
    pub fn zeros<T: KernelScalar>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let storage = match &*self.inner {
            Inner::Cuda(cuda) => {
                cuda.faults.check()?;
                let slice = cuda
                    .stream
                    .alloc_zeros::<u8>(byte_len::<T>(len))
                    .map_err(driver("allocating a buffer"))?;
                Storage::Cuda(slice)
            }
            Inner::Simulator(_) => Storage::Simulator(HostAlloc::zeroed(len)),
        };
        Ok(DeviceBuffer {
            device: self.clone(),
            len,
            storage,
        })
    }

    /// A new buffer on this device holding a copy of `buf` (device to device).
    pub fn copy<T: KernelScalar>(&self, buf: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        if !self.shares_memory_with(&buf.device) {
            return Err(Error::DeviceMismatch {
                what: "copying a buffer".into(),
                buffer_device: buf.device.describe(),
                device: self.describe(),
            });
        }
        let storage = match (&*self.inner, &buf.storage) {
            (Inner::Cuda(cuda), Storage::Cuda(src)) => Storage::Cuda(
                cuda.stream
                    .clone_dtod(src)
                    .map_err(driver("copying a buffer on the device"))?,
            ),
            (_, Storage::Simulator(src)) => {
                Storage::Simulator(HostAlloc::from_slice(src.as_slice()))
            }
            (Inner::Simulator(_), Storage::Cuda(_)) => {
                unreachable!("checked by shares_memory_with")
            }
        };
        Ok(DeviceBuffer {
            device: self.clone(),
            len: buf.len,
            storage,
        })
    }
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

    /// Copies the buffer to a new `Vec`, after every launch queued before it has finished;
    /// an error of such a launch is reported here.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::from_bits(0); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copies the buffer into `dst`, which must have the same length.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        check_len("copy_to_host", self.len, dst.len())?;
        match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(src), Inner::Cuda(cuda)) => {
                cuda.faults.check()?;
                // A fault of an earlier kernel may surface at this copy.
                let driver = |what: &'static str| move |e| cuda.faults.classify(e, what);
                if is_plain::<T>() {
                    // SAFETY: T is a primitive integer or float (checked by TypeId): it has
                    // no padding and every bit pattern is a valid value.
                    let bytes = unsafe {
                        std::slice::from_raw_parts_mut(
                            dst.as_mut_ptr().cast::<u8>(),
                            std::mem::size_of_val(dst),
                        )
                    };
                    if !bytes.is_empty() {
                        cuda.stream
                            .memcpy_dtoh(src, bytes)
                            .map_err(driver("downloading a buffer"))?;
                    }
                } else {
                    let bytes = cuda
                        .stream
                        .clone_dtoh(src)
                        .map_err(driver("downloading a buffer"))?;
                    from_bytes(&bytes, dst);
                }
                cuda.synchronize("downloading a buffer")
            }
            (Storage::Simulator(src), _) => {
                dst.copy_from_slice(src.as_slice());
                Ok(())
            }
            (Storage::Cuda(_), Inner::Simulator(_)) => {
                unreachable!("a CUDA buffer always has a CUDA device")
            }
        }
    }

    /// Overwrites the buffer with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_len("copy_from_host", self.len, src.len())?;
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda(dst), Inner::Cuda(cuda)) => {
                cuda.faults.check()?;
                if !src.is_empty() {
                    cuda.stream
                        .memcpy_htod(&*to_bytes(src), dst)
                        .map_err(driver("uploading into a buffer"))?;
                }
                Ok(())
            }
            (Storage::Simulator(dst), _) => {
                dst.as_mut_slice().copy_from_slice(src);
                Ok(())
            }
            (Storage::Cuda(_), Inner::Simulator(_)) => {
                unreachable!("a CUDA buffer always has a CUDA device")
            }
        }
    }

    /// The underlying cudarc allocation (bytes) of a GPU buffer; `None` on the simulator.
    pub fn cuda_bytes(&self) -> Option<&CudaSlice<u8>> {
        match &self.storage {
            Storage::Cuda(slice) => Some(slice),
            Storage::Simulator(_) => None,
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
    /// # fn main() -> Result<(), warpspeed_runtime::Error> {
    /// use warpspeed_runtime::{f32x4, Device, DeviceBuffer};
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
                let addr = {
                    let stream = bytes.stream().clone();
                    let (ptr, _sync) = cudarc::driver::DevicePtr::device_ptr(&bytes, &stream);
                    ptr
                };
                assert_eq!(
                    addr % std::mem::align_of::<V>() as u64,
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

fn check_len(what: &str, expected: usize, found: usize) -> Result<()> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what: what.into(),
            expected,
            found,
        })
    }
}

fn driver(what: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |source| Error::Driver {
        kernel: None,
        what: what.into(),
        source,
    }
}

fn byte_len<T>(len: usize) -> usize {
    len * std::mem::size_of::<T>()
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
        TypeId::of::<crate::f16>(),
        TypeId::of::<crate::f16x2>(),
        TypeId::of::<crate::f32x2>(),
        TypeId::of::<crate::f32x4>(),
        TypeId::of::<crate::u32x2>(),
        TypeId::of::<crate::u32x4>(),
        TypeId::of::<crate::i32x2>(),
        TypeId::of::<crate::i32x4>(),
        TypeId::of::<crate::f64x2>(),
    ]
    .contains(&id)
}

/// `data` as the bytes the GPU sees: borrowed for plain types, packed through
/// `to_bits` otherwise (the low `size_of::<T>()` bytes, little endian).
fn to_bytes<T: KernelScalar>(data: &[T]) -> std::borrow::Cow<'_, [u8]> {
    if is_plain::<T>() {
        // SAFETY: plain types have no padding, so every byte is initialized.
        std::borrow::Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data))
        })
    } else {
        let size = std::mem::size_of::<T>();
        let mut out = Vec::with_capacity(std::mem::size_of_val(data));
        for v in data {
            let bits = v.to_bits128().to_le_bytes();
            out.extend((0..size).map(|i| bits.get(i).copied().unwrap_or(0)));
        }
        std::borrow::Cow::Owned(out)
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
