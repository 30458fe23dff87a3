//! [`KernelArgs`]: a kernel's arguments packed in ABI order by the generated `launch`.
//!
//! Each slice becomes one [`Arg::Slice`] (device pointer or simulated host address, and
//! length: two C parameters), each scalar one [`Arg::Scalar`] (its bits in the low bytes).
//! The buffers stay borrowed for the launch, so the memory cannot be freed under it, and
//! the device each buffer belongs to is remembered for the launch to check.

use cudarc::driver::SyncOnDrop;

use crate::device::Device;
use crate::memory::DeviceBuffer;
use crate::scalar::{Arg, KernelScalar};

/// The arguments of one launch, in the kernel's parameter order.
#[derive(Default)]
pub struct KernelArgs<'a> {
    pub(crate) args: Vec<Arg>,
    /// The device of every slice argument, with its position in `args`.
    pub(crate) devices: Vec<(usize, &'a Device)>,
    /// cudarc's stream-ordering records for the buffers; dropped after the launch is
    /// queued, so another stream waits for this kernel.
    pub(crate) _guards: Vec<SyncOnDrop<'a>>,
}

impl<'a> KernelArgs<'a> {
    /// No arguments yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A read-only slice parameter (`&[T]`).
    pub fn slice<T: KernelScalar>(&mut self, buf: &'a DeviceBuffer<T>) -> &mut Self {
        let (addr, guard, device) = buf.arg();
        self._guards.extend(guard);
        self.push_slice(addr, buf.len(), device)
    }

    /// A writable slice parameter (`&mut [T]`).
    pub fn slice_mut<T: KernelScalar>(&mut self, buf: &'a mut DeviceBuffer<T>) -> &mut Self {
        let len = buf.len();
        let (addr, guard, device) = buf.arg_mut();
        self._guards.extend(guard);
        self.push_slice(addr, len, device)
    }

    /// A scalar parameter, passed by value.
    pub fn scalar<T: KernelScalar>(&mut self, value: T) -> &mut Self {
        self.args.push(Arg::Scalar {
            bits: value.to_bits128(),
            size: std::mem::size_of::<T>() as u8,
        });
        self
    }

    /// The packed arguments.
    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    fn push_slice(&mut self, addr: u64, len: usize, device: &'a Device) -> &mut Self {
        self.devices.push((self.args.len(), device));
        self.args.push(Arg::Slice {
            addr,
            len: len as u64,
        });
        self
    }
}
