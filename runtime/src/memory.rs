//! Device memory: [`DeviceBuffer<T>`], a typed array on a GPU or in simulated memory.
//!
//! One of the three places that match on the backend (with `device.rs` and `launch/`):
//! each operation here picks the backend and hands the work to it. On a GPU the buffer is
//! a `cuda::CudaBuffer` (bytes, `cuda/memory.rs`); on the simulator a `sim::HostAlloc`
//! (`sim/memory.rs`). A buffer's storage always belongs to its device's backend.

use cudarc::driver::{CudaSlice, SyncOnDrop};

use crate::cuda::{self, CudaBuffer};
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
            (Inner::Cuda(cuda), Storage::Cuda(src)) => Storage::Cuda(cuda.copy(src)?),
            (Inner::Simulator(_), Storage::Simulator(src)) => {
                Storage::Simulator(HostAlloc::from_slice(src.as_slice()))
            }
            _ => unreachable!("checked by shares_memory_with"),
        };
        Ok(self.buffer(buf.len, storage))
    }

    fn buffer<T: KernelScalar>(&self, len: usize, storage: Storage<T>) -> DeviceBuffer<T> {
        DeviceBuffer {
            device: self.clone(),
            len,
            storage,
        }
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
            (Storage::Cuda(src), Inner::Cuda(cuda)) => cuda.download(src, dst),
            (Storage::Simulator(src), Inner::Simulator(_)) => {
                dst.copy_from_slice(src.as_slice());
                Ok(())
            }
            _ => unreachable!("a buffer's storage is its device's backend"),
        }
    }

    /// Overwrites the buffer with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_len("copy_from_host", self.len, src.len())?;
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda(dst), Inner::Cuda(cuda)) => cuda.upload_into(src, dst),
            (Storage::Simulator(dst), Inner::Simulator(_)) => {
                dst.as_mut_slice().copy_from_slice(src);
                Ok(())
            }
            _ => unreachable!("a buffer's storage is its device's backend"),
        }
    }

    /// The buffer as a kernel argument: its address (device pointer or simulated host
    /// address), on a GPU cudarc's record that orders other streams after the launch
    /// (kept until the launch is queued), and its device.
    pub(crate) fn arg(&self) -> (u64, Option<SyncOnDrop<'_>>, &Device) {
        let (addr, guard) = match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(bytes), Inner::Cuda(cuda)) => {
                let (addr, guard) = cuda.arg(bytes);
                (addr, Some(guard))
            }
            (Storage::Simulator(host), Inner::Simulator(_)) => (host.addr(), None),
            _ => unreachable!("a buffer's storage is its device's backend"),
        };
        (addr, guard, &self.device)
    }

    /// [`DeviceBuffer::arg`] for a kernel that writes the buffer.
    pub(crate) fn arg_mut(&mut self) -> (u64, Option<SyncOnDrop<'_>>, &Device) {
        let DeviceBuffer {
            device, storage, ..
        } = self;
        let device: &Device = device;
        let (addr, guard) = match (storage, &*device.inner) {
            (Storage::Cuda(bytes), Inner::Cuda(cuda)) => {
                let (addr, guard) = cuda.arg_mut(bytes);
                (addr, Some(guard))
            }
            (Storage::Simulator(host), Inner::Simulator(_)) => (host.addr(), None),
            _ => unreachable!("a buffer's storage is its device's backend"),
        };
        (addr, guard, device)
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
