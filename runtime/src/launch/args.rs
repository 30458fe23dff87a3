//! [`KernelArgs`]: a kernel's arguments packed in ABI order by the generated `launch`.
//!
//! Each slice (a buffer or a view of one, `view.rs`) becomes one [`Arg::Slice`] (device
//! pointer or simulated host address of its first element, and its length: two C
//! parameters), each scalar one [`Arg::Scalar`] (its bits in the low bytes).
//! The buffers stay borrowed for the launch, so the memory cannot be freed under it, and
//! the device each buffer belongs to is remembered for the launch to check. On a GPU each
//! buffer's cudarc record is taken on the launch's stream (`KernelArgs::on`), so the
//! stream waits for the buffer's earlier uses on other streams and their later users wait
//! for the launch; on the simulator the memory each slice touches is kept for the
//! stream-order checks.

use cudarc::driver::SyncOnDrop;

use super::target::LaunchTarget;
use crate::device::Device;
use crate::device::Stream;
use crate::scalar::{Arg, KernelScalar};
use crate::sim::Access;
use crate::tensor_map::TensorMap;
use crate::texel::Texel;
use crate::texture::Texture2D;
use crate::view::{AsDeviceView, AsDeviceViewMut};

/// The arguments of one launch, in the kernel's parameter order.
#[derive(Default)]
pub struct KernelArgs<'a> {
    pub(crate) args: Vec<Arg>,
    /// The stream the launch goes on (`None`: the device's own queue): cudarc's records
    /// order each buffer on it.
    stream: Option<&'a Stream>,
    /// The memory each slice argument touches, for the simulator's stream-order checks.
    pub(crate) accesses: Vec<Access>,
    /// The device of every slice argument, with its position in `args`.
    pub(crate) devices: Vec<(usize, &'a Device)>,
    /// cudarc's stream-ordering records for the buffers; dropped after the launch is
    /// queued, so another stream waits for this kernel.
    pub(crate) _guards: Vec<SyncOnDrop<'a>>,
}

impl<'a> KernelArgs<'a> {
    /// No arguments yet, for a launch on a device's own queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// No arguments yet, for a launch on `target` (a `Device` or a `Stream`).
    pub fn on(target: &'a (impl LaunchTarget + ?Sized)) -> Self {
        KernelArgs {
            stream: target.stream(),
            ..Self::default()
        }
    }

    /// A read-only slice parameter (`&[T]`): a buffer or a view of one.
    pub fn slice<T: KernelScalar>(
        &mut self,
        buf: &'a (impl AsDeviceView<Elem = T> + ?Sized),
    ) -> &mut Self {
        let view = buf.as_device_view();
        let len = view.len();
        self.accesses.extend(view.access());
        let (addr, guard, device) = view.arg(self.stream);
        self._guards.extend(guard);
        self.push_slice(addr, len, device)
    }

    /// A writable slice parameter (`&mut [T]`): a buffer or a mutable view of one.
    pub fn slice_mut<T: KernelScalar>(
        &mut self,
        buf: &'a mut (impl AsDeviceViewMut<Elem = T> + ?Sized),
    ) -> &mut Self {
        let view = buf.as_device_view_mut();
        let len = view.len();
        self.accesses.extend(view.access());
        let (addr, guard, device) = view.into_arg(self.stream);
        self._guards.extend(guard);
        self.push_slice(addr, len, device)
    }

    /// A scalar (or `#[gpu_struct]`) parameter, passed by value.
    pub fn scalar<T: KernelScalar>(&mut self, value: T) -> &mut Self {
        self.args.push(Arg::of(value));
        self
    }

    /// A texture parameter (`Texture2D<T>`): the texture stays borrowed for the launch,
    /// so its memory can be neither written nor freed under it.
    pub fn texture<T: Texel>(&mut self, tex: &'a Texture2D<T>) -> &mut Self {
        self.accesses.extend(tex.access());
        let (arg, guard, device) = tex.arg(self.stream);
        self._guards.extend(guard);
        self.devices.push((self.args.len(), device));
        self.args.push(Arg::Texture(arg));
        self
    }

    /// A tensor-map parameter (`TensorMap<T>`): its memory stays borrowed for the launch.
    pub fn tensor_map<T: KernelScalar>(&mut self, map: &'a TensorMap<'_, T>) -> &mut Self {
        let view = map.view();
        self.accesses.extend(view.access());
        let (addr, guard, device) = view.arg(self.stream);
        self._guards.extend(guard);
        self.devices.push((self.args.len(), device));
        self.args.push(Arg::TensorMap(Box::new(map.arg(addr))));
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
