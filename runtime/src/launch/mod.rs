//! Launching a kernel: validate the configuration, check the buffers' devices, then run
//! it on the GPU (compile cache, parameter array, `cuLaunchKernel` on the device's stream)
//! or on the simulator.
//!
//! GPU launches are asynchronous: an error inside the kernel surfaces at the next
//! [`Device::synchronize`] or download. Simulator launches finish before returning.

mod args;
mod config;

pub use args::KernelArgs;
pub use config::LaunchConfig;

use std::ffi::c_void;

use cudarc::driver::CudaFunction;
use cudarc::nvrtc::Ptx;

use crate::compile::{compile_cached, DiskCache};
use crate::device::{CudaDevice, Device, Inner};
use crate::error::{Error, Result};
use crate::kernel_abi::{Arg, KernelDef};

// Scalars are passed as a pointer to the low bytes of a u64.
#[cfg(target_endian = "big")]
compile_error!("warpspeed's kernel ABI assumes a little-endian host");

/// Launches `kernel` on `dev` with `cfg` and the packed `args`. Called by the `launch`
/// function `#[gpu_kernel]` generates.
pub fn launch(
    dev: &Device,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
) -> Result<()> {
    cfg.validate(dev.limits(), kernel.rust_name)?;
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
        Inner::Cuda(cuda) => launch_cuda(cuda, kernel, cfg, args),
        Inner::Sim(sim) => crate::sim::run(sim, kernel, cfg, &args.args),
    }
}

fn launch_cuda(
    cuda: &CudaDevice,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: KernelArgs<'_>,
) -> Result<()> {
    let function = load_function(cuda, kernel)?;
    let driver = |what: &str| {
        let what = what.to_string();
        move |source| Error::Driver {
            kernel: Some(kernel.rust_name.to_string()),
            what,
            source,
        }
    };
    // Each parameter is a pointer to its value: a slice gives two (pointer, length).
    let mut params: Vec<*mut c_void> = Vec::with_capacity(args.args.len() * 2);
    for arg in &args.args {
        match arg {
            Arg::Slice { addr, len } => {
                params.push(addr as *const u64 as *mut c_void);
                params.push(len as *const u64 as *mut c_void);
            }
            Arg::Scalar { bits, .. } => params.push(bits as *const u64 as *mut c_void),
        }
    }
    let ctx = cuda.stream.context();
    ctx.bind_to_thread()
        .map_err(driver("binding the CUDA context"))?;
    let (g, b) = (cfg.grid, cfg.block);
    // SAFETY: `function` comes from this context; `params` has one pointer per C
    // parameter of the entry, in order and of the C type the macro emitted (slices: device
    // pointer and `unsigned long long` length; scalars: the low `size` bytes of a
    // little-endian u64), each pointing into `args`, which outlives the call; device
    // pointers are live allocations borrowed by `args` for the launch; the configuration
    // was validated against the device's limits.
    unsafe {
        cudarc::driver::result::launch_kernel(
            function.cu_function(),
            (g.x, g.y, g.z),
            (b.x, b.y, b.z),
            cfg.shared_mem_bytes,
            cuda.stream.cu_stream(),
            &mut params,
        )
    }
    .map_err(driver("launching the kernel"))?;
    drop(args);
    Ok(())
}

/// The kernel's function in this context: memory cache, disk cache, or NVRTC.
fn load_function(cuda: &CudaDevice, kernel: &'static KernelDef) -> Result<CudaFunction> {
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
        module
            .load_function(kernel.entry)
            .map_err(driver("finding the kernel entry in the CUBIN"))
    })
}
