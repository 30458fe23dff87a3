//! [`CudaDevice`]: a GPU opened by ordinal or adopted from a cudarc stream, its limits
//! (read once), and synchronisation. Opening never panics, even without a CUDA driver.
//!
//! Host threads: a `CudaDevice` is shared by every clone of its `Device`, on any thread
//! (cudarc's context, stream and functions are `Send + Sync`, and each driver call binds
//! the context to the calling thread). Launches from several threads go on the one stream
//! in the order they are queued; a synchronisation waits for all of them, and for the
//! device's other streams (`stream.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard};

use cudarc::driver::{sys::CUdevice_attribute as Attr, CudaContext, CudaStream};

use super::bounds::ArmedRecords;
use super::module::FunctionCache;
use super::result::Faults;
use crate::config::DeviceLimits;
use crate::dim::Dim3;
use crate::error::{panic_message, Error, Result};

/// A GPU: the stream every operation of its `Device` is ordered on, what was read from the
/// driver once, and the state of the context (kernels loaded, bounds records armed,
/// unsynchronised launches and faults).
///
/// `Stream`s of the device (`stream.rs`) share the rest: loaded kernels, bounds records
/// and faults belong to the context, not to one stream.
pub(crate) struct CudaDevice {
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) name: String,
    pub(crate) compute_capability: (u32, u32),
    pub(crate) limits: DeviceLimits,
    /// Kernels compiled and loaded into this context.
    pub(super) functions: FunctionCache,
    /// Bounds-check records of the kernels launched since the last synchronisation.
    pub(super) bounds: ArmedRecords,
    /// Launches since the last synchronisation, and whether a fault has lost the context.
    pub(super) faults: Faults,
    /// Shared while a launch is queued and recorded (in `faults`, `bounds`), exclusive
    /// while a synchronisation waits for the stream and settles those records. Without it
    /// a launch that another host thread queues during the wait would be forgotten as if
    /// it had finished, and its bounds record read (and disarmed) while it runs.
    settling: RwLock<()>,
    /// Whether a `Stream` of this device was created: synchronisations then wait for the
    /// whole context.
    pub(super) has_streams: AtomicBool,
}

impl CudaDevice {
    /// The GPU with index `ordinal`, on its primary context and default stream.
    /// [`Error::NoDevice`] when there is no driver, no such GPU, or the driver fails.
    /// Never panics, even without a CUDA driver.
    pub(crate) fn open(ordinal: usize) -> Result<CudaDevice> {
        if !driver_library_present() {
            return Err(Error::NoDevice {
                reason: "the CUDA driver library (libcuda.so / nvcuda.dll) was not found".into(),
            });
        }
        // cudarc panics where a driver symbol is missing (an older driver); a device that
        // cannot be opened must be an `Err`, never a crash.
        std::panic::catch_unwind(|| open_primary(ordinal)).unwrap_or_else(|payload| {
            Err(Error::NoDevice {
                reason: format!(
                    "the CUDA driver could not be used: {}",
                    panic_message(&*payload)
                ),
            })
        })
    }

    /// Adopts a cudarc stream: kernels, copies and allocations are ordered on `stream`.
    pub(crate) fn from_stream(stream: Arc<CudaStream>) -> Result<CudaDevice> {
        let faults = Faults::default();
        let ctx = stream.context().clone();
        let name = faults.check(ctx.name(), "reading the device name", None)?;
        let (major, minor) = faults.check(
            ctx.compute_capability(),
            "reading the compute capability",
            None,
        )?;
        let limits = read_limits(&ctx, &faults)?;
        Ok(CudaDevice {
            stream,
            name,
            compute_capability: (major as u32, minor as u32),
            limits,
            functions: FunctionCache::default(),
            bounds: ArmedRecords::default(),
            faults,
            settling: RwLock::new(()),
            has_streams: AtomicBool::new(false),
        })
    }

    /// Waits until everything queued on the device's stream and its other streams is done
    /// (`cuCtxSynchronize` once a `Stream` exists), and reports the first
    /// asynchronous error among it: a fault (`KernelFault`, naming the launch), an error
    /// cudarc recorded along the way, or a written bounds record (`OutOfBounds`).
    pub(crate) fn synchronize(&self, what: &str) -> Result<()> {
        self.faults.alive()?;
        let _settling = self
            .settling
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let what = format!(
            "{what} (the error may come from an earlier asynchronous kernel launch or copy)"
        );
        self.faults.check(self.wait_all(), &what, None)?;
        self.faults
            .check(self.stream.context().check_err(), &what, None)?;
        self.faults.synchronised();
        // The records are read with the raw driver API, which needs the context current.
        self.faults
            .check(self.stream.context().bind_to_thread(), &what, None)?;
        self.bounds.check(&self.faults)
    }

    /// Waits for everything queued on the device: once a `Stream` was created
    /// (`stream.rs`), the whole context (the device's stream and every `Stream`), so every
    /// unsynchronised launch and armed bounds record is settled; before, the device's
    /// stream alone, as a program without streams always waited.
    pub(super) fn wait_all(&self) -> std::result::Result<(), cudarc::driver::DriverError> {
        if self.has_streams.load(Ordering::Acquire) {
            self.stream.context().synchronize()
        } else {
            self.stream.synchronize()
        }
    }

    /// Held while a launch is queued and recorded: a synchronisation on another host
    /// thread waits until the launch is recorded, then settles it with the rest.
    pub(super) fn queueing(&self) -> RwLockReadGuard<'_, ()> {
        self.settling.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a buffer of `other` may be used here: the same context and stream.
    pub(crate) fn same_memory(&self, other: &CudaDevice) -> bool {
        self.stream.context().cu_ctx() == other.stream.context().cu_ctx()
            && self.stream.cu_stream() == other.stream.cu_stream()
    }

    /// Whether `ctx` is this device's context.
    pub(crate) fn same_context(&self, ctx: &CudaContext) -> bool {
        self.stream.context().cu_ctx() == ctx.cu_ctx()
    }

    /// "CUDA device 0 (NVIDIA H100, sm_90)", for messages.
    pub(crate) fn describe(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!(
            "CUDA device {} ({}, sm_{major}{minor})",
            self.stream.context().ordinal(),
            self.name
        )
    }
}

/// Whether libcuda can be loaded; asked once per process (loading it is not free).
fn driver_library_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the driver library by its usual
    // names and drops it again; it has no preconditions.
    *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() })
}

/// Opens GPU `ordinal`: init, count, primary context, default stream. Before a device
/// exists every failure means "no device" ([`Error::NoDevice`]), not a driver error of one.
/// The number of GPUs the driver sees; [`Error::NoDevice`] without a driver (never a
/// panic).
pub(crate) fn gpu_count() -> Result<usize> {
    if !driver_library_present() {
        return Err(Error::NoDevice {
            reason: "the CUDA driver library (libcuda.so / nvcuda.dll) was not found".into(),
        });
    }
    std::panic::catch_unwind(count_gpus).unwrap_or_else(|payload| {
        Err(Error::NoDevice {
            reason: format!(
                "the CUDA driver could not be used: {}",
                panic_message(&*payload)
            ),
        })
    })
}

/// `Error::NoDevice` for a driver call `what` that failed.
fn no_device(what: &str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    let what = what.to_string();
    move |e| Error::NoDevice {
        reason: format!("{what} failed: {e}"),
    }
}

fn count_gpus() -> Result<usize> {
    cudarc::driver::result::init().map_err(no_device("initializing the CUDA driver (cuInit)"))?;
    let count = CudaContext::device_count().map_err(no_device("counting GPUs"))?;
    Ok(count.max(0) as usize)
}

fn open_primary(ordinal: usize) -> Result<CudaDevice> {
    let count = count_gpus()?;
    if count == 0 {
        return Err(Error::NoDevice {
            reason: "the CUDA driver is installed but found no GPU".into(),
        });
    }
    if ordinal >= count {
        return Err(Error::NoDevice {
            reason: format!("GPU {ordinal} was asked for, but the driver found only {count}"),
        });
    }
    let ctx = CudaContext::new(ordinal).map_err(no_device("creating a CUDA context"))?;
    CudaDevice::from_stream(ctx.default_stream())
}

/// Reads the launch limits from the driver.
fn read_limits(ctx: &Arc<CudaContext>, faults: &Faults) -> Result<DeviceLimits> {
    let get = |attr: Attr| -> Result<u32> {
        let what = format!("reading device attribute {attr:?}");
        faults
            .check(ctx.attribute(attr), &what, None)
            .map(|v| v.max(0) as u32)
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
