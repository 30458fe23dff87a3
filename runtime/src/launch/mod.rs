//! Launching a kernel: validate the configuration, check the buffers' devices, then run
//! it on the GPU (compile cache, parameter array, `cuLaunchKernel` on the device's stream)
//! or on the simulator.
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
pub(crate) mod bounds;
pub(crate) mod len;

pub use args::KernelArgs;

use std::ffi::c_void;
use std::sync::{Arc, PoisonError};

use cudarc::driver::sys::CUfunction_attribute as FuncAttr;
use cudarc::nvrtc::Ptx;

use crate::compile::{compile_cached, DiskCache, LoadedKernel};
use crate::config::LaunchConfig;
use crate::device::{CudaDevice, Device, Inner};
use crate::error::{Error, Result};
use crate::kernel_abi::KernelDef;
use crate::scalar::Arg;
use crate::sim::SimKernel;

// Scalars are passed as a pointer to the low bytes of a u128.
#[cfg(target_endian = "big")]
compile_error!("warpspeed's kernel ABI assumes a little-endian host");

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
        return Err(invalid(
            kernel,
            cfg,
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
            return Err(invalid(
                kernel,
                cfg,
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
        Inner::Cuda(cuda) => launch_cuda(cuda, kernel, cfg, args, cooperative),
        Inner::Simulator(sim) => {
            if cooperative {
                let (per_sm, sms) = crate::sim::coresident_blocks(&sim.limits, &cfg);
                check_coresident(kernel, cfg, per_sm, sms, "the simulator's")?;
            }
            let sim_kernel = SimKernel {
                name: kernel.rust_name,
                params: kernel.params,
                entry: kernel.sim,
            };
            crate::sim::run(sim, sim_kernel, cfg, &args.args, cooperative)
        }
    }
}

/// An [`Error::InvalidLaunch`] of `kernel` with `cfg`.
fn invalid(kernel: &KernelDef, cfg: LaunchConfig, reason: String) -> Error {
    Error::InvalidLaunch {
        kernel: kernel.rust_name.to_string(),
        config: cfg,
        reason,
    }
}

/// Refuses a cooperative launch with more blocks than `per_sm * sms`.
fn check_coresident(
    kernel: &KernelDef,
    cfg: LaunchConfig,
    per_sm: u32,
    sms: u32,
    whose: &str,
) -> Result<()> {
    let blocks = cfg.grid.count();
    let max = u64::from(per_sm) * u64::from(sms);
    if blocks <= max {
        return Ok(());
    }
    Err(invalid(
        kernel,
        cfg,
        format!(
            "a cooperative launch needs every block on the device at once, but the grid has \
             {blocks} blocks and at most {max} fit ({per_sm} per multiprocessor for this \
             kernel with {} threads and {} bytes of dynamic shared memory per block, times \
             {whose} {sms} multiprocessors)",
            cfg.block.count(),
            cfg.shared_mem_bytes
        ),
    ))
}

fn launch_cuda(
    cuda: &CudaDevice,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
    cooperative: bool,
) -> Result<()> {
    if cooperative && !cuda.limits.cooperative_launch {
        return Err(invalid(
            kernel,
            cfg,
            "the device does not support cooperative launches \
             (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)"
                .into(),
        ));
    }
    cuda.faults.check()?;
    let loaded = load_function(cuda, kernel)?;
    let driver = |what: &str| {
        let what = what.to_string();
        move |source| Error::Driver {
            kernel: Some(kernel.rust_name.to_string()),
            what,
            source,
        }
    };
    let ctx = cuda.stream.context();
    ctx.bind_to_thread()
        .map_err(driver("binding the CUDA context"))?;
    prepare_shared_memory(cuda, kernel, &loaded, cfg)?;
    if cooperative {
        let per_sm = blocks_per_multiprocessor(kernel, &loaded, cfg)?;
        check_coresident(
            kernel,
            cfg,
            per_sm,
            cuda.limits.multiprocessor_count,
            "the device's",
        )?;
    }
    // Each parameter is a pointer to its value: a slice gives two (pointer, length).
    let mut params: Vec<*mut c_void> = Vec::with_capacity(args.args.len() * 2);
    for arg in &args.args {
        match arg {
            Arg::Slice { addr, len } => {
                params.push(addr as *const u64 as *mut c_void);
                params.push(len as *const u64 as *mut c_void);
            }
            Arg::Scalar { bits, .. } => params.push(bits as *const u128 as *mut c_void),
        }
    }
    let (g, b) = (cfg.grid, cfg.block);
    let function = loaded.function.cu_function();
    cuda.faults.launching(kernel.rust_name, cfg);
    // SAFETY: `function` comes from this context, which is bound to this thread; `params`
    // has one pointer per C parameter of the entry, in order and of the C type the macro
    // emitted (slices: device pointer and `unsigned long long` length; scalars: the low
    // `size` bytes of a little-endian u128), each pointing into `args`, which outlives the
    // call; device pointers are live allocations borrowed by `args` for the launch; the
    // configuration was validated against the device's limits, the function opted in to
    // its dynamic shared memory, and a cooperative grid fits on the device.
    let launched = unsafe {
        if cooperative {
            cudarc::driver::result::launch_cooperative_kernel(
                function,
                (g.x, g.y, g.z),
                (b.x, b.y, b.z),
                cfg.shared_mem_bytes,
                cuda.stream.cu_stream(),
                &mut params,
            )
        } else {
            cudarc::driver::result::launch_kernel(
                function,
                (g.x, g.y, g.z),
                (b.x, b.y, b.z),
                cfg.shared_mem_bytes,
                cuda.stream.cu_stream(),
                &mut params,
            )
        }
    };
    launched.map_err(driver(if cooperative {
        "launching the kernel cooperatively"
    } else {
        "launching the kernel"
    }))?;
    if let Some(record) = loaded.oob_record {
        cuda.bounds.arm(record, kernel.rust_name);
    }
    drop(args);
    Ok(())
}

/// Checks the launch's dynamic shared memory against the device's opt-in limit less the
/// kernel's static shared memory, and opts the kernel in where it needs more than the
/// default (48 KiB in all): `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, set once per
/// function and size (only ever raised). The context is bound.
fn prepare_shared_memory(
    cuda: &CudaDevice,
    kernel: &'static KernelDef,
    loaded: &LoadedKernel,
    cfg: LaunchConfig,
) -> Result<()> {
    let dynamic = cfg.shared_mem_bytes;
    if dynamic == 0 {
        return Ok(());
    }
    let driver = |what: &'static str| {
        move |source| Error::Driver {
            kernel: Some(kernel.rust_name.to_string()),
            what: what.to_string(),
            source,
        }
    };
    let static_bytes = match loaded.static_shared.get() {
        Some(&bytes) => bytes,
        None => {
            let bytes = loaded
                .function
                .get_attribute(FuncAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                .map_err(driver("reading the kernel's static shared memory size"))?
                .max(0) as u32;
            *loaded.static_shared.get_or_init(|| bytes)
        }
    };
    let limits = &cuda.limits;
    let total = u64::from(static_bytes) + u64::from(dynamic);
    if total > u64::from(limits.max_shared_mem_per_block_optin) {
        return Err(invalid(
            kernel,
            cfg,
            format!(
                "{dynamic} bytes of dynamic shared memory plus the kernel's {static_bytes} \
                 bytes of static shared memory make {total} bytes per block, but the device \
                 allows at most {} bytes per block (its opt-in limit, \
                 max_shared_mem_per_block_optin)",
                limits.max_shared_mem_per_block_optin
            ),
        ));
    }
    if total <= u64::from(limits.max_shared_mem_per_block) {
        return Ok(());
    }
    let mut set = loaded
        .max_dynamic_shared
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if *set < dynamic {
        loaded
            .function
            .set_attribute(
                FuncAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )
            .map_err(driver(
                "opting the kernel in to more than 48 KiB of dynamic shared memory \
                 (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
            ))?;
        *set = dynamic;
    }
    Ok(())
}

/// How many blocks of `cfg` one multiprocessor holds at once for this kernel (cached per
/// block size and dynamic shared memory). The context is bound.
fn blocks_per_multiprocessor(
    kernel: &'static KernelDef,
    loaded: &LoadedKernel,
    cfg: LaunchConfig,
) -> Result<u32> {
    let threads = cfg.block.count() as u32;
    let key = (threads, cfg.shared_mem_bytes);
    let mut cache = loaded
        .occupancy
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(&per_sm) = cache.get(&key) {
        return Ok(per_sm);
    }
    let per_sm = loaded
        .function
        .occupancy_max_active_blocks_per_multiprocessor(
            threads,
            cfg.shared_mem_bytes as usize,
            None,
        )
        .map_err(|source| Error::Driver {
            kernel: Some(kernel.rust_name.to_string()),
            what: "computing the kernel's occupancy (cuOccupancyMaxActiveBlocksPerMultiprocessor)"
                .into(),
            source,
        })?;
    cache.insert(key, per_sm);
    Ok(per_sm)
}

/// The kernel's function in this context: memory cache, disk cache, or NVRTC.
fn load_function(cuda: &CudaDevice, kernel: &'static KernelDef) -> Result<Arc<LoadedKernel>> {
    cuda.functions.get(kernel, |source| {
        let compiled = compile_cached(
            kernel.rust_name,
            source,
            cuda.compute_capability,
            kernel.options,
            DiskCache::from_env().as_ref(),
        )?;
        let driver = |what: &str| {
            let what = what.to_string();
            move |source| Error::Driver {
                kernel: Some(kernel.rust_name.to_string()),
                what,
                source,
            }
        };
        let module = cuda
            .stream
            .context()
            .load_module(Ptx::from_binary(compiled.cubin))
            .map_err(driver("loading the CUBIN"))?;
        let function = module
            .load_function(kernel.entry)
            .map_err(driver("finding the kernel entry in the CUBIN"))?;
        Ok((function, bounds::record_address(&module, &cuda.stream)))
    })
}
