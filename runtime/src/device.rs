//! Devices: a CUDA GPU (`cuda/`) or the CPU simulator (`sim/`), behind one [`Device`]
//! handle.
//!
//! One of the three places that match on the backend (with `memory.rs` and `launch/`):
//! [`Device`] holds either backend's state and hands each call to it; so do the
//! device's [`Stream`]s and their [`Event`]s, defined here too (a `Stream` holds its
//! `Device`, and `Device::create_stream` makes one: one file, so no two files import each
//! other). [`Device::new`]
//! reads `WARPSPEED_BACKEND` (`cuda`, `sim`, or unset for "GPU 0 when there is one, else
//! the simulator"). Opening the GPU never panics (`cuda/device.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaEvent, CudaStream};

use crate::config::DeviceLimits;
use crate::cuda::CudaDevice;
use crate::error::{Error, Result};
use crate::sim::{EventClock, SimDevice, SimOptions, StreamId, DEVICE_QUEUE};

/// Which machine runs a [`Device`]'s kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// A CUDA GPU, through the driver API (cudarc).
    Cuda,
    /// The CPU simulator: the kernel's Rust body, run with CUDA's thread indices.
    Simulator,
}

/// A device that runs kernels: a CUDA GPU or the CPU simulator. Cheap to clone (an `Arc`).
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// let dev = warpspeed::Device::simulator();
/// let buf = dev.upload(&[1u32, 2, 3])?;
/// assert_eq!(buf.download()?, vec![1, 2, 3]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
}

/// A device's backend and its state; the variants are named as [`Backend`]'s.
// Behind the `Arc` of `Device`: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Inner {
    Cuda(CudaDevice),
    Simulator(SimDevice),
}

/// A queue of work on a device: kernels launched and copies queued on one stream run in
/// order, and concurrently with the device's other streams. Created by
/// [`Device::create_stream`]; cheap to clone (the clones are the same stream).
///
/// Launch on it through a kernel's `launch`, which takes a `&Stream` as it takes a
/// `&Device` (`scale::launch(&s, cfg, &mut buf, 2.0)?`); copy with
/// [`Stream::upload`]/[`Stream::download`] (from and to [`PinnedBuffer`](crate::PinnedBuffer)s) and
/// [`Stream::copy`]; order it after another stream with [`Stream::wait`] on an
/// [`Event`] that stream recorded.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// use warpspeed::Device;
/// let dev = Device::simulator();
/// let (s, t) = (dev.create_stream()?, dev.create_stream()?);
/// let mut buf = dev.zeros::<f32>(4)?;
/// let mut pinned = dev.alloc_pinned::<f32>(4)?;
/// pinned.as_mut_slice()?.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
/// s.upload(&pinned, &mut buf)?;
/// let uploaded = s.record()?;
/// t.wait(&uploaded)?; // without it, t's download would be refused on the simulator
/// let mut back = dev.alloc_pinned::<f32>(4)?;
/// t.download(&buf, &mut back)?;
/// assert_eq!(back.as_slice()?, &[1.0, 2.0, 3.0, 4.0]); // waits for the download
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) inner: StreamInner,
}

/// A stream on its device's backend (the variants are named as `Backend`'s).
#[derive(Clone)]
pub(crate) enum StreamInner {
    Cuda(Arc<CudaStream>),
    /// Its number among the simulated device's streams (from 1).
    Simulator(StreamId),
}

/// A point in a stream's work, recorded by [`Stream::record`]: another stream may wait for
/// it ([`Stream::wait`]), the host may wait for it ([`Event::synchronize`]), and two of
/// them measure the time between ([`Event::elapsed_since`]).
pub struct Event {
    pub(crate) device: Device,
    pub(crate) inner: EventInner,
}

/// An event on its device's backend.
pub(crate) enum EventInner {
    /// A CUDA event with timing.
    Cuda(CudaEvent),
    /// The simulator runs work when it is queued: the host's time then, and the stream's
    /// order at the record (`sim/order.rs`).
    Simulator { at: Instant, clock: EventClock },
}

impl Device {
    /// The device to use: `WARPSPEED_BACKEND=cuda` forces GPU 0 (an error if there is
    /// none), `WARPSPEED_BACKEND=sim` forces the simulator, and unset means GPU 0 when one
    /// is present, else the simulator. Never panics, even without a CUDA driver.
    pub fn new() -> Result<Device> {
        Self::select(std::env::var("WARPSPEED_BACKEND").ok().as_deref())
    }

    /// [`Device::new`] with the value of `WARPSPEED_BACKEND` given.
    pub(crate) fn select(backend: Option<&str>) -> Result<Device> {
        match backend.map(|b| b.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("auto") => Device::cuda(0).or_else(|_| Ok(Device::simulator())),
            Some("cuda" | "gpu") => Device::cuda(0),
            Some("sim" | "simulator" | "cpu") => Ok(Device::simulator()),
            Some(_) => Err(Error::UnknownBackend {
                value: backend.unwrap_or_default().to_string(),
            }),
        }
    }

    /// The CUDA GPU with index `ordinal`, on its primary context and default stream.
    /// [`Error::NoDevice`] when there is no driver, no such GPU, or the driver fails.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Ok(Device::from(Inner::Cuda(CudaDevice::open(ordinal)?)))
    }

    /// The CPU simulator, running blocks on every available core, with the options the
    /// environment asks for ([`SimOptions::from_env`]: `WARPSPEED_SIM_RACES`,
    /// `WARPSPEED_SIM_SEED`).
    pub fn simulator() -> Device {
        Device::simulator_with(SimOptions::from_env())
    }

    /// The CPU simulator with `options`, whatever the environment says.
    pub fn simulator_with(options: SimOptions) -> Device {
        Device::from(Inner::Simulator(SimDevice::new(options)))
    }

    /// Adopts a cudarc stream: kernels, copies and allocations of this `Device` are ordered
    /// on `stream`, so a cudarc program can move to warpspeed one kernel at a time.
    pub fn from_cudarc_stream(stream: Arc<CudaStream>) -> Result<Device> {
        Ok(Device::from(Inner::Cuda(CudaDevice::from_stream(stream)?)))
    }

    /// Adopts a cudarc context: [`Device::from_cudarc_stream`] on its default stream.
    pub fn from_cudarc_context(ctx: &Arc<CudaContext>) -> Result<Device> {
        Device::from_cudarc_stream(ctx.default_stream())
    }

    /// Which backend runs this device's kernels.
    pub fn backend(&self) -> Backend {
        match &*self.inner {
            Inner::Cuda(_) => Backend::Cuda,
            Inner::Simulator(_) => Backend::Simulator,
        }
    }

    /// The GPU's name as the driver reports it, or the simulator's.
    pub fn name(&self) -> &str {
        match &*self.inner {
            Inner::Cuda(cuda) => &cuda.name,
            Inner::Simulator(sim) => &sim.name,
        }
    }

    /// `(major, minor)` of the GPU (`(9, 0)` for an H100); `None` on the simulator.
    pub fn compute_capability(&self) -> Option<(u32, u32)> {
        match &*self.inner {
            Inner::Cuda(cuda) => Some(cuda.compute_capability),
            Inner::Simulator(_) => None,
        }
    }

    /// The limits launches are validated against.
    pub fn limits(&self) -> &DeviceLimits {
        match &*self.inner {
            Inner::Cuda(cuda) => &cuda.limits,
            Inner::Simulator(sim) => &sim.limits,
        }
    }

    /// Waits until every launch and copy queued on this device, on its own queue and on
    /// its [`Stream`]s, is done, and reports the first asynchronous error among them.
    pub fn synchronize(&self) -> Result<()> {
        match &*self.inner {
            Inner::Cuda(cuda) => cuda.synchronize("synchronizing the device"),
            Inner::Simulator(sim) => {
                sim.order.barrier();
                Ok(())
            }
        }
    }

    /// A new [`Stream`] of this device: work queued on it runs in order, and
    /// concurrently with the device's other streams (on a GPU, a non-blocking CUDA stream).
    pub fn create_stream(&self) -> Result<Stream> {
        let inner = match &*self.inner {
            Inner::Cuda(cuda) => StreamInner::Cuda(cuda.create_stream()?),
            Inner::Simulator(sim) => StreamInner::Simulator(sim.order.new_stream()),
        };
        Ok(Stream {
            device: self.clone(),
            inner,
        })
    }

    /// `Err(DeviceMismatch)` (naming `what`) unless `other` is this device (its handle, or
    /// a clone of it) or a `Device` of the same CUDA context: the devices whose events
    /// and streams may be used together.
    fn check_same(&self, other: &Device, what: &str) -> Result<()> {
        let same = match (&*self.inner, &*other.inner) {
            (Inner::Cuda(a), Inner::Cuda(b)) => a.same_context(b.stream.context()),
            _ => Arc::ptr_eq(&self.inner, &other.inner),
        };
        if same {
            return Ok(());
        }
        Err(Error::DeviceMismatch {
            what: what.into(),
            buffer_device: other.describe(),
            device: self.describe(),
        })
    }

    /// The cudarc stream this device orders its work on; `None` on the simulator.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &*self.inner {
            Inner::Cuda(cuda) => Some(&cuda.stream),
            Inner::Simulator(_) => None,
        }
    }

    /// The cudarc context of this device's GPU; `None` on the simulator.
    pub fn cuda_context(&self) -> Option<&Arc<CudaContext>> {
        self.cuda_stream().map(|stream| stream.context())
    }

    /// Whether a buffer of `other` may be used by a kernel of `self`: the same GPU
    /// context and stream, or both simulators (simulated memory is host memory).
    /// Whether `other` is this very device (not only one whose memory it shares): the
    /// ranks of a world of simulated devices each have their own.
    pub(crate) fn is_same_device(&self, other: &Device) -> bool {
        match (&*self.inner, &*other.inner) {
            (Inner::Cuda(a), Inner::Cuda(b)) => a.same_memory(b),
            (Inner::Simulator(_), Inner::Simulator(_)) => Arc::ptr_eq(&self.inner, &other.inner),
            _ => false,
        }
    }

    pub(crate) fn shares_memory_with(&self, other: &Device) -> bool {
        match (&*self.inner, &*other.inner) {
            (Inner::Cuda(a), Inner::Cuda(b)) => a.same_memory(b),
            (Inner::Simulator(_), Inner::Simulator(_)) => true,
            _ => false,
        }
    }

    /// An [`Event`] recorded now on the device's own queue (what [`Stream::record`] is for a
    /// stream): the autotuner times launches on a `&Device` between two of them.
    pub(crate) fn record_queue(&self) -> Result<Event> {
        let inner = match &*self.inner {
            Inner::Cuda(cuda) => EventInner::Cuda(cuda.record(&cuda.stream)?),
            Inner::Simulator(sim) => EventInner::Simulator {
                at: Instant::now(),
                clock: sim.order.record(DEVICE_QUEUE),
            },
        };
        Ok(Event {
            device: self.clone(),
            inner,
        })
    }

    /// Says which device this is, for error messages.
    pub(crate) fn describe(&self) -> String {
        match &*self.inner {
            Inner::Cuda(cuda) => cuda.describe(),
            Inner::Simulator(_) => "the simulator".into(),
        }
    }
}

impl Stream {
    /// The device whose work this stream queues.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits until everything queued on this stream is done, and reports a fault among it
    /// (`KernelFault`). Out-of-bounds records of kernels on streams are read at the next
    /// [`Device::synchronize`] or download (docs/host-api.md).
    pub fn synchronize(&self) -> Result<()> {
        match (&self.inner, &*self.device.inner) {
            (StreamInner::Cuda(stream), Inner::Cuda(cuda)) => cuda.synchronize_stream(stream),
            (StreamInner::Simulator(id), Inner::Simulator(sim)) => {
                sim.order.host_waits(&sim.order.record(*id));
                Ok(())
            }
            _ => unreachable!("a stream is its device's backend"),
        }
    }

    /// An [`Event`] recorded now: it completes when everything queued on this stream so far
    /// is done.
    pub fn record(&self) -> Result<Event> {
        let inner = match (&self.inner, &*self.device.inner) {
            (StreamInner::Cuda(stream), Inner::Cuda(cuda)) => {
                EventInner::Cuda(cuda.record(stream)?)
            }
            (StreamInner::Simulator(id), Inner::Simulator(sim)) => EventInner::Simulator {
                at: Instant::now(),
                clock: sim.order.record(*id),
            },
            _ => unreachable!("a stream is its device's backend"),
        };
        Ok(Event {
            device: self.device.clone(),
            inner,
        })
    }

    /// Makes the work queued on this stream from now on wait until `event` completes
    /// (`cuStreamWaitEvent`); the host does not wait. [`Error::DeviceMismatch`] when the
    /// event belongs to another device.
    pub fn wait(&self, event: &Event) -> Result<()> {
        self.device
            .check_same(&event.device, "a stream waiting for an event")?;
        match (&self.inner, &event.inner, &*self.device.inner) {
            (StreamInner::Cuda(stream), EventInner::Cuda(ev), Inner::Cuda(cuda)) => {
                cuda.wait(stream, ev)
            }
            (
                StreamInner::Simulator(id),
                EventInner::Simulator { clock, .. },
                Inner::Simulator(sim),
            ) => {
                sim.order.wait(*id, clock);
                Ok(())
            }
            _ => unreachable!("checked by check_same"),
        }
    }

    /// The cudarc stream; `None` on the simulator.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &self.inner {
            StreamInner::Cuda(stream) => Some(stream),
            StreamInner::Simulator(_) => None,
        }
    }

    /// The stream's number among its device's, for the simulator's order checks.
    pub(crate) fn sim_id(&self) -> StreamId {
        match &self.inner {
            StreamInner::Simulator(id) => *id,
            StreamInner::Cuda(_) => DEVICE_QUEUE,
        }
    }
}

impl Event {
    /// Waits until the work recorded before this event is done, and reports a fault among
    /// it.
    pub fn synchronize(&self) -> Result<()> {
        match (&self.inner, &*self.device.inner) {
            (EventInner::Cuda(ev), Inner::Cuda(cuda)) => cuda.synchronize_event(ev),
            (EventInner::Simulator { clock, .. }, Inner::Simulator(sim)) => {
                sim.order.host_waits(clock);
                Ok(())
            }
            _ => unreachable!("an event is its device's backend"),
        }
    }

    /// The time from `start` to this event, once both are done (it waits for them): on a
    /// GPU the device's clock between the two records (`cuEventElapsedTime`, about half a
    /// microsecond of resolution), on the simulator, which runs work when it is queued, the
    /// host's time between the two records. [`Error::DeviceMismatch`] when `start` belongs
    /// to another device.
    pub fn elapsed_since(&self, start: &Event) -> Result<Duration> {
        self.device
            .check_same(&start.device, "measuring the time between two events")?;
        match (&start.inner, &self.inner, &*self.device.inner) {
            (EventInner::Cuda(a), EventInner::Cuda(b), Inner::Cuda(cuda)) => {
                let ms = cuda.elapsed_ms(a, b)?;
                Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
            }
            (
                EventInner::Simulator { at: a, .. },
                EventInner::Simulator { at: b, .. },
                Inner::Simulator(_),
            ) => Ok(b.saturating_duration_since(*a)),
            _ => unreachable!("checked by check_same"),
        }
    }
}

impl From<Inner> for Device {
    fn from(inner: Inner) -> Device {
        Device {
            inner: Arc::new(inner),
        }
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("backend", &self.backend())
            .field("name", &self.name())
            .field("compute_capability", &self.compute_capability())
            .finish()
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream on {}", self.device.describe())
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event on {}", self.device.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim::Dim3;

    fn gpu_required() -> bool {
        std::env::var("WARPSPEED_REQUIRE_GPU").is_ok_and(|v| v == "1")
    }

    #[test]
    fn auto_never_fails() {
        let dev = Device::select(None).expect("auto selection falls back to the simulator");
        if gpu_required() {
            assert_eq!(dev.backend(), Backend::Cuda);
        }
        eprintln!("auto-selected {dev:?}");
    }

    #[test]
    fn forced_cuda_is_gpu_or_no_device() {
        match Device::select(Some("cuda")) {
            Ok(dev) => {
                assert_eq!(dev.backend(), Backend::Cuda);
                assert!(dev.compute_capability().is_some());
                assert!(dev.limits().max_threads_per_block >= 1024);
            }
            Err(Error::NoDevice { reason }) => {
                assert!(
                    !gpu_required(),
                    "WARPSPEED_REQUIRE_GPU=1 but no GPU: {reason}"
                );
                let text = Error::NoDevice { reason }.to_string();
                assert!(text.contains("WARPSPEED_BACKEND=sim"), "{text}");
                eprintln!("skipped GPU checks: {text}");
            }
            Err(other) => panic!("unexpected error: {other}"),
        }
    }

    #[test]
    fn forced_sim_and_unknown() {
        let dev = Device::select(Some("sim")).unwrap();
        assert_eq!(dev.backend(), Backend::Simulator);
        assert_eq!(dev.compute_capability(), None);
        assert!(dev.cuda_stream().is_none());
        dev.synchronize().unwrap();
        assert!(matches!(
            Device::select(Some("tpu")),
            Err(Error::UnknownBackend { .. })
        ));
    }

    #[test]
    fn simulator_limits_are_cudas() {
        let dev = Device::simulator();
        assert_eq!(dev.limits().max_threads_per_block, 1024);
        assert_eq!(
            dev.limits().max_grid_dim,
            Dim3::new(2147483647, 65535, 65535)
        );
        assert!(Device::simulator().shares_memory_with(&dev));
    }
}
