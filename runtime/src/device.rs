//! Devices: a CUDA GPU (through cudarc) or the CPU simulator, behind one [`Device`] handle.
//!
//! [`Device::new`] reads `WARPSPEED_BACKEND` (`cuda`, `sim`, or unset for "GPU 0 when there
//! is one, else the simulator"). Opening the GPU never panics: the driver library is looked
//! for first, and every driver call on the way is turned into [`Error::NoDevice`]. The
//! device's limits are read once, here, and every launch is validated against them.

use std::sync::{Arc, OnceLock};

use cudarc::driver::{sys::CUdevice_attribute as Attr, CudaContext, CudaStream};

use crate::compile::FunctionCache;
use crate::config::DeviceLimits;
use crate::dim::Dim3;
use crate::error::{panic_message, Error, Result};
use crate::sim::{SimDevice, SimOptions};

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
/// # fn main() -> Result<(), warpspeed_runtime::Error> {
/// let dev = warpspeed_runtime::Device::simulator();
/// let buf = dev.upload(&[1u32, 2, 3])?;
/// assert_eq!(buf.download()?, vec![1, 2, 3]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
}

// Behind the `Arc` of `Device`: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Inner {
    Cuda(CudaDevice),
    Simulator(SimDevice),
}

/// A GPU: its context, the stream every operation of this `Device` is ordered on, and
/// what was read from the driver once.
pub(crate) struct CudaDevice {
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) name: String,
    pub(crate) compute_capability: (u32, u32),
    pub(crate) limits: DeviceLimits,
    /// Kernels compiled and loaded into this context.
    pub(crate) functions: FunctionCache,
    /// Bounds-check records of the kernels launched since the last synchronisation.
    pub(crate) bounds: crate::launch::bounds::ArmedRecords,
    /// The last launch, and whether a fault has lost the context.
    pub(crate) faults: crate::fault::FaultState,
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
        if !driver_library_present() {
            return Err(Error::NoDevice {
                reason: "the CUDA driver library (libcuda.so / nvcuda.dll) was not found".into(),
            });
        }
        // cudarc panics where a driver symbol is missing (an older driver); a device that
        // cannot be opened must be an `Err`, never a crash.
        std::panic::catch_unwind(|| open_cuda(ordinal)).unwrap_or_else(|payload| {
            Err(Error::NoDevice {
                reason: format!(
                    "the CUDA driver could not be used: {}",
                    panic_message(&*payload)
                ),
            })
        })
    }

    /// The CPU simulator, running blocks on every available core, with the options the
    /// environment asks for ([`SimOptions::from_env`]: `WARPSPEED_SIM_RACES`,
    /// `WARPSPEED_SIM_SEED`).
    pub fn simulator() -> Device {
        Device::simulator_with(SimOptions::from_env())
    }

    /// The CPU simulator with `options`, whatever the environment says.
    pub fn simulator_with(options: SimOptions) -> Device {
        Device {
            inner: Arc::new(Inner::Simulator(SimDevice::new(options))),
        }
    }

    /// Adopts a cudarc stream: kernels, copies and allocations of this `Device` are ordered
    /// on `stream`, so a cudarc program can move to warpspeed one kernel at a time.
    pub fn from_cudarc_stream(stream: Arc<CudaStream>) -> Result<Device> {
        let ctx = stream.context().clone();
        let driver = |what: &str| {
            let what = what.to_string();
            move |source| Error::Driver {
                kernel: None,
                what,
                source,
            }
        };
        let name = ctx.name().map_err(driver("reading the device name"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(driver("reading the compute capability"))?;
        let limits = read_limits(&ctx)?;
        Ok(Device {
            inner: Arc::new(Inner::Cuda(CudaDevice {
                stream,
                name,
                compute_capability: (major as u32, minor as u32),
                limits,
                functions: FunctionCache::default(),
                bounds: Default::default(),
                faults: Default::default(),
            })),
        })
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

    /// Waits until every launch and copy queued on this device is done, and reports the
    /// first asynchronous error among them.
    pub fn synchronize(&self) -> Result<()> {
        match &*self.inner {
            Inner::Cuda(cuda) => cuda.synchronize("synchronizing the device"),
            Inner::Simulator(_) => Ok(()),
        }
    }

    /// The cudarc stream this device orders its work on; `None` on the simulator.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &*self.inner {
            Inner::Cuda(cuda) => Some(&cuda.stream),
            Inner::Simulator(_) => None,
        }
    }

    /// Whether a buffer of `other` may be used by a kernel of `self`: the same GPU
    /// context and stream, or both simulators (simulated memory is host memory).
    pub(crate) fn shares_memory_with(&self, other: &Device) -> bool {
        match (&*self.inner, &*other.inner) {
            (Inner::Cuda(a), Inner::Cuda(b)) => {
                a.stream.context().cu_ctx() == b.stream.context().cu_ctx()
                    && a.stream.cu_stream() == b.stream.cu_stream()
            }
            (Inner::Simulator(_), Inner::Simulator(_)) => true,
            _ => false,
        }
    }

    /// Says which device this is, for error messages.
    pub(crate) fn describe(&self) -> String {
        match &*self.inner {
            Inner::Cuda(cuda) => {
                let (major, minor) = cuda.compute_capability;
                format!(
                    "CUDA device {} ({}, sm_{major}{minor})",
                    cuda.stream.context().ordinal(),
                    cuda.name
                )
            }
            Inner::Simulator(_) => "the simulator".into(),
        }
    }
}

impl CudaDevice {
    /// Synchronizes the stream and surfaces errors cudarc recorded along the way.
    pub(crate) fn synchronize(&self, what: &str) -> Result<()> {
        self.faults.check()?;
        let wrap = |source| {
            self.faults.classify(
                source,
                &format!(
                    "{what} (the error may come from an earlier asynchronous kernel launch or copy)"
                ),
            )
        };
        self.stream.synchronize().map_err(wrap)?;
        self.stream.context().check_err().map_err(wrap)?;
        // The records are read with the raw driver API, which needs the context current.
        self.stream.context().bind_to_thread().map_err(wrap)?;
        self.bounds.check()
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

/// Whether libcuda can be loaded; asked once per process (loading it is not free).
fn driver_library_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the driver library by its usual
    // names and drops it again; it has no preconditions.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// Opens GPU `ordinal`: init, count, primary context, default stream.
fn open_cuda(ordinal: usize) -> Result<Device> {
    let no_device = |what: &str| {
        let what = what.to_string();
        move |e: cudarc::driver::DriverError| Error::NoDevice {
            reason: format!("{what} failed: {e}"),
        }
    };
    cudarc::driver::result::init().map_err(no_device("initializing the CUDA driver (cuInit)"))?;
    let count = CudaContext::device_count().map_err(no_device("counting GPUs"))?;
    if count <= 0 {
        return Err(Error::NoDevice {
            reason: "the CUDA driver is installed but found no GPU".into(),
        });
    }
    if ordinal >= count as usize {
        return Err(Error::NoDevice {
            reason: format!("GPU {ordinal} was asked for, but the driver found only {count}"),
        });
    }
    let ctx = CudaContext::new(ordinal).map_err(no_device("creating a CUDA context"))?;
    Device::from_cudarc_stream(ctx.default_stream())
}

/// Reads the launch limits from the driver.
fn read_limits(ctx: &Arc<CudaContext>) -> Result<DeviceLimits> {
    let get = |attr: Attr| -> Result<u32> {
        ctx.attribute(attr)
            .map(|v| v.max(0) as u32)
            .map_err(|source| Error::Driver {
                kernel: None,
                what: format!("reading device attribute {attr:?}"),
                source,
            })
    };
    Ok(DeviceLimits {
        max_threads_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_block_dim: Dim3::new(
            get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            get(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ),
        max_grid_dim: Dim3::new(
            get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            get(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ),
        max_shared_mem_per_block: get(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        max_shared_mem_per_block_optin: get(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        warp_size: get(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        multiprocessor_count: get(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        cooperative_launch: get(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
