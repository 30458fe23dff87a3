//! Launching a kernel, the top of the launch path: validate the configuration, check the
//! buffers' devices, then hand the kernel to its backend: `CudaDevice::launch`
//! (`cuda/launch.rs`: compile cache, parameter array, `cuLaunchKernel` on the device's
//! stream) or `sim::run`. One of the three places that match on the backend (with
//! `device.rs` and `memory.rs`).
//!
//! A cooperative launch ([`launch_cooperative`], for kernels that call
//! `this_grid().sync()`) checks that the device supports it and that every block of the
//! grid fits on the device at once (the occupancy of the kernel times the number of
//! multiprocessors), then goes through `cuLaunchCooperativeKernel`; the simulator runs every
//! block of it at once. Dynamic shared memory above the default 48 KiB opts the kernel in
//! (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`) before the launch.
//!
//! GPU launches are asynchronous: an error inside the kernel surfaces at the next
//! [`Device::synchronize`] or download. Simulator launches finish before returning.

mod args;
pub(crate) mod len;

pub use args::KernelArgs;

use crate::config::LaunchConfig;
use crate::cuda::CudaKernel;
use crate::device::{Device, Inner};
use crate::error::{Error, Result};
use crate::kernel_abi::KernelDef;
use crate::sim::{coresident_blocks, SimKernel};

/// Launches `kernel` on `dev` with `cfg` and the packed `args`. Called by the `launch`
/// function `#[gpu_kernel]` generates. A kernel that calls `this_grid().sync()` is refused
/// ([`Error::InvalidLaunch`]): it needs [`launch_cooperative`].
pub fn launch(
    dev: &Device,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
) -> Result<()> {
    if kernel.grid_sync {
        return Err(cfg.invalid(
            kernel.rust_name,
            "the kernel calls this_grid().sync(): launch it with launch_cooperative".into(),
        ));
    }
    launch_with(dev, kernel, cfg, args, false)
}

/// Launches `kernel` cooperatively: every block of the grid runs at once, so
/// `this_grid().sync()` may wait for all of them. Called by the `launch_cooperative`
/// function `#[gpu_kernel]` generates. Refused ([`Error::InvalidLaunch`]) when the device
/// cannot launch cooperatively, or when the grid has more blocks than fit on the device at
/// once (on a GPU: `cuOccupancyMaxActiveBlocksPerMultiprocessor` for this kernel, block
/// size and dynamic shared memory, times the multiprocessors; on the simulator: the same
/// count with an H100 SM's limits per CPU worker, see docs/simulator.md).
pub fn launch_cooperative(
    dev: &Device,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
) -> Result<()> {
    launch_with(dev, kernel, cfg, args, true)
}

fn launch_with(
    dev: &Device,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
    cooperative: bool,
) -> Result<()> {
    cfg.validate(dev.limits(), kernel.rust_name)?;
    if let Some([x, y, z]) = kernel.block {
        let b = cfg.block;
        if (b.x, b.y, b.z) != (x, y, z) {
            // The kernel's bounds checks were removed on the strength of this shape.
            return Err(cfg.invalid(
                kernel.rust_name,
                format!("the kernel declares #[gpu_kernel(block = ({x}, {y}, {z}))], so every launch needs blocks of ({x}, {y}, {z}) threads"),
            ));
        }
    }
    for &(index, buf_dev) in &args.devices {
        if !dev.shares_memory_with(buf_dev) {
            return Err(Error::DeviceMismatch {
                what: format!("argument {index} of kernel `{}`", kernel.rust_name),
                buffer_device: buf_dev.describe(),
                device: dev.describe(),
            });
        }
    }
    match &*dev.inner {
        Inner::Cuda(cuda) => {
            let code = CudaKernel {
                name: kernel.rust_name,
                entry: kernel.entry,
                source: kernel.source,
                options: kernel.options,
            };
            // `args` keeps the buffers borrowed, and cudarc's stream records alive, until
            // the launch is queued.
            cuda.launch(code, cfg, &args.args, cooperative)
        }
        Inner::Simulator(sim) => {
            if cooperative {
                let (per_sm, sms) = coresident_blocks(&sim.limits, &cfg);
                cfg.check_coresident(kernel.rust_name, per_sm, sms, "the simulator's")?;
            }
            let code = SimKernel {
                name: kernel.rust_name,
                params: kernel.params,
                entry: kernel.sim,
            };
            crate::sim::run(sim, code, cfg, &args.args, cooperative)
        }
    }
}
