//! Launching a kernel, the top of the launch path: validate the configuration, check the
//! buffers' devices, then hand the kernel to its backend: `CudaDevice::launch`
//! (`cuda/launch.rs`: compile cache, parameter array, `cuLaunchKernel` on the device's
//! stream, or the `Stream` launched on) or `sim::run` (after the simulator's stream-order
//! check, `sim/order.rs`). One of the three places that match on the backend (with
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
//!
//! [`LaunchConfig::for_occupancy`] lives here too: the block size of highest occupancy is
//! the backend's to say (`cuOccupancyMaxPotentialBlockSize`, or the simulator's model).

mod args;
pub(crate) mod len;
mod proven;
mod target;

pub use args::KernelArgs;
pub use target::LaunchTarget;

use crate::config::LaunchConfig;
use crate::cuda::CudaKernel;
use crate::device::Stream;
use crate::device::{Device, Inner};
use crate::dim::{Dim3, DimInt};
use crate::error::{Error, Result};
use crate::kernel_abi::KernelDef;
use crate::sim::{coresident_blocks, max_potential_block_size, SimKernel, DEVICE_QUEUE};

/// Launches `kernel` on `target` (a device's own queue or a stream) with `cfg` and the
/// packed `args` (made by [`KernelArgs::on`] the same target). Called by the `launch`
/// function `#[gpu_kernel]` generates. A kernel that calls `this_grid().sync()` is refused
/// ([`Error::InvalidLaunch`]): it needs [`launch_cooperative`].
pub fn launch(
    target: &(impl LaunchTarget + ?Sized),
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
    launch_with(target.device(), target.stream(), kernel, cfg, args, false)
}

/// Launches `kernel` cooperatively: every block of the grid runs at once, so
/// `this_grid().sync()` may wait for all of them. Called by the `launch_cooperative`
/// function `#[gpu_kernel]` generates. Refused ([`Error::InvalidLaunch`]) when the device
/// cannot launch cooperatively, or when the grid has more blocks than fit on the device at
/// once (on a GPU: `cuOccupancyMaxActiveBlocksPerMultiprocessor` for this kernel, block
/// size and dynamic shared memory, times the multiprocessors; on the simulator: the same
/// count with an H100 SM's limits per CPU worker, see docs/simulator.md).
pub fn launch_cooperative(
    target: &(impl LaunchTarget + ?Sized),
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
) -> Result<()> {
    launch_with(target.device(), target.stream(), kernel, cfg, args, true)
}

fn launch_with(
    dev: &Device,
    stream: Option<&Stream>,
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
            let proven = proven::proven_mask(kernel.provable, &cfg, &args.args);
            let code = cuda_kernel(kernel, proven);
            let on = stream.and_then(Stream::cuda_stream).unwrap_or(&cuda.stream);
            // `args` keeps the buffers borrowed, and cudarc's stream records alive, until
            // the launch is queued.
            cuda.launch(on, code, cfg, &args.args, cooperative)
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
            // Checked (and refused) before it runs: the simulator runs it now, in the
            // order the host queued it, which a GPU's streams need not keep.
            let op = || format!("kernel `{}` ({cfg})", kernel.rust_name);
            let queue = stream.map_or(DEVICE_QUEUE, Stream::sim_id);
            sim.order.enqueue(queue, op, &args.accesses)?;
            crate::sim::run(sim, code, cfg, &args.args, cooperative)
        }
    }
}

/// The check sites of `kernel` (`KernelDef::provable`) that a launch with `cfg` and
/// `args` proves: bit `n` for site `n`, as the GPU launch computes it (docs/bounds.md,
/// "Proven at launch"). For tests and the curious; a launch computes it itself.
pub fn proven_sites(kernel: &KernelDef, cfg: &LaunchConfig, args: &KernelArgs<'_>) -> u64 {
    proven::proven_mask(kernel.provable, cfg, &args.args)
}

/// What the CUDA backend needs of `kernel`, its checks of `proven` removed.
fn cuda_kernel(kernel: &'static KernelDef, proven: u64) -> CudaKernel {
    CudaKernel {
        name: kernel.rust_name,
        entry: kernel.entry,
        source: kernel.source,
        options: kernel.options,
        proven,
    }
}

impl LaunchConfig {
    /// One thread per element for `n` elements (any [`DimInt`]: `u32`, `usize`, ...), in blocks of the size that gives `kernel`
    /// the highest occupancy on `dev` (as Numba's `forall` does), with no dynamic shared
    /// memory: `grid = ceil(n / block)` blocks (at least one; the kernel checks its index
    /// against `n`).
    ///
    /// On a GPU the block size is `cuOccupancyMaxPotentialBlockSize`'s for the kernel
    /// (compiling and loading it first if needed, as a launch would). On the simulator,
    /// which has no registers to count, it is the same search over the simulator's
    /// multiprocessor model (docs/host-api.md): 1024 threads. A kernel that declares its
    /// block (`#[gpu_kernel(block = (256, 1, 1))]`) gets that block; one whose declared
    /// block has more than one dimension is an [`Error::InvalidLaunch`] (build its
    /// configuration with [`LaunchConfig::new`]).
    ///
    /// ```
    /// use warpspeed::prelude::*;
    ///
    /// #[gpu_kernel]
    /// fn scale(out: &mut [f32], by: f32) {
    ///     let i = grid_1d();
    ///     if i < out.len() {
    ///         out[i] *= by;
    ///     }
    /// }
    ///
    /// # fn main() -> Result<(), Error> {
    /// let dev = Device::simulator();
    /// let mut out = dev.upload(&vec![1.0f32; 5000])?;
    /// let cfg = LaunchConfig::for_occupancy(&dev, &scale::KERNEL, out.len())?;
    /// assert_eq!(cfg.grid.x * cfg.block.x >= 5000, true);
    /// scale::launch(&dev, cfg, &mut out, 2.0)?;
    /// assert!(out.download()?.iter().all(|&x| x == 2.0));
    /// # Ok(()) }
    /// ```
    pub fn for_occupancy(dev: &Device, kernel: &'static KernelDef, n: impl DimInt) -> Result<Self> {
        let n = n.to_i128();
        let block = match kernel.block {
            Some([x, 1, 1]) => x,
            Some([x, y, z]) => {
                let mut cfg = LaunchConfig::for_elems_in_blocks(n, x);
                cfg.block = Dim3::new(x, y, z);
                return Err(cfg.invalid(
                    kernel.rust_name,
                    format!("the kernel declares a {x}x{y}x{z} block, so one thread per element of a 1-D range does not fit it: build the configuration with LaunchConfig::new"),
                ));
            }
            None => match &*dev.inner {
                // The variant a well-formed launch gets (every check proven at launch), so the
                // launch that follows finds it compiled.
                Inner::Cuda(cuda) => cuda.max_potential_block_size(
                    cuda_kernel(kernel, proven::all(kernel.provable)),
                    dev.limits().max_block_dim.x,
                )?,
                Inner::Simulator(sim) => max_potential_block_size(&sim.limits, 0),
            },
        };
        let cfg = LaunchConfig::for_elems_in_blocks(n, block);
        // A count that does not fit is reported here, as the launch would.
        cfg.validate(dev.limits(), kernel.rust_name)?;
        Ok(cfg)
    }
}
