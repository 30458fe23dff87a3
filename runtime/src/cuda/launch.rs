//! A launch on the GPU: the kernel's function (from `module.rs`'s cache, else loaded
//! here), its dynamic shared memory opt-in, the co-resident check of a cooperative launch,
//! the parameter array, and `cuLaunchKernel` / `cuLaunchCooperativeKernel` on the device's stream or a `Stream`. The launch is
//! asynchronous: it is recorded as unsynchronised (`result.rs`), and its bounds record is
//! armed (`bounds.rs`), both settled at the next synchronisation. Also the block size of
//! highest occupancy, for `LaunchConfig::for_occupancy`.

use std::ffi::c_void;
use std::sync::{Arc, PoisonError};

use cudarc::driver::sys::{CUfunction, CUfunction_attribute as FuncAttr, CUstream};
use cudarc::driver::{CudaStream, DriverError};
use cudarc::nvrtc::Ptx;

use super::compile::{compile_cached, DiskCache};
use super::device::CudaDevice;
use super::module::{CudaKernel, LoadedKernel};
use crate::config::LaunchConfig;
use crate::error::Result;
use crate::scalar::Arg;

/// `cuLaunchKernel` or `cuLaunchCooperativeKernel` (the same parameters).
type LaunchFn = unsafe fn(
    CUfunction,
    (u32, u32, u32),
    (u32, u32, u32),
    u32,
    CUstream,
    &mut [*mut c_void],
) -> std::result::Result<(), DriverError>;

// Scalars are passed as a pointer to the low bytes of a u128.
#[cfg(target_endian = "big")]
compile_error!("warpspeed's kernel ABI assumes a little-endian host");

impl CudaDevice {
    /// The kernel's function in this context: memory cache, disk cache, or NVRTC.
    fn load(&self, kernel: CudaKernel) -> Result<Arc<LoadedKernel>> {
        self.functions.get(kernel, |source| {
            let compiled = compile_cached(
                kernel.name,
                source,
                self.compute_capability,
                kernel.options,
                DiskCache::from_env().as_ref(),
            )?;
            let ctx = self.stream.context();
            let module = self.faults.check(
                ctx.load_module(Ptx::from_binary(compiled.cubin)),
                "loading the CUBIN",
                Some(kernel.name),
            )?;
            let function = self.faults.check(
                module.load_function(kernel.entry),
                "finding the kernel entry in the CUBIN",
                Some(kernel.name),
            )?;
            let record = self
                .bounds
                .register(&module, &self.stream, &self.faults, kernel.name)?;
            Ok((function, record))
        })
    }

    /// Launches `kernel` on `stream` (the device's, or one of its `Stream`s) with `cfg` and
    /// the packed `args` (device pointers that the caller keeps borrowed, and cudarc's
    /// records ordering them on `stream`, until this returns), cooperatively when
    /// `cooperative`. The
    /// configuration was validated against the device's limits by the caller.
    pub(crate) fn launch(
        &self,
        stream: &CudaStream,
        kernel: CudaKernel,
        cfg: LaunchConfig,
        args: &[Arg],
        cooperative: bool,
    ) -> Result<()> {
        if cooperative && !self.limits.cooperative_launch {
            return Err(cfg.invalid(
                kernel.name,
                "the device does not support cooperative launches \
                 (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)"
                    .into(),
            ));
        }
        self.faults.alive()?;
        let loaded = self.load(kernel)?;
        let bound = self.stream.context().bind_to_thread();
        self.faults
            .check(bound, "binding the CUDA context", Some(kernel.name))?;
        self.prepare_shared_memory(kernel, &loaded, cfg)?;
        if cooperative {
            let per_sm = self.blocks_per_multiprocessor(kernel, &loaded, cfg)?;
            cfg.check_coresident(
                kernel.name,
                per_sm,
                self.limits.multiprocessor_count,
                "the device's",
            )?;
        }
        // Each parameter is a pointer to its value: a slice gives two (pointer, length).
        let mut params: Vec<*mut c_void> = Vec::with_capacity(args.len() * 2);
        for arg in args {
            match arg {
                Arg::Slice { addr, len } => {
                    params.push(addr as *const u64 as *mut c_void);
                    params.push(len as *const u64 as *mut c_void);
                }
                Arg::Scalar { bits, .. } => params.push(bits as *const u128 as *mut c_void),
                Arg::Bytes(words) => params.push(words.as_ptr() as *mut c_void),
                // The 128-byte `CUtensorMap` (a `__grid_constant__` struct parameter) and
                // the box word.
                Arg::TensorMap(t) => {
                    params.push(t.map.as_ptr() as *mut c_void);
                    params.push(&t.box_word as *const u64 as *mut c_void);
                }
                // Four C parameters: the texture object, width, height, mode.
                Arg::Texture(t) => {
                    params.push(&t.handle as *const u64 as *mut c_void);
                    params.push(&t.width as *const i32 as *mut c_void);
                    params.push(&t.height as *const i32 as *mut c_void);
                    params.push(&t.mode as *const i32 as *mut c_void);
                }
            }
        }
        let (g, b) = (cfg.grid, cfg.block);
        let function = loaded.function.cu_function();
        let (enqueue, what) = if cooperative {
            (
                cudarc::driver::result::launch_cooperative_kernel as LaunchFn,
                "launching the kernel cooperatively",
            )
        } else {
            (
                cudarc::driver::result::launch_kernel as LaunchFn,
                "launching the kernel",
            )
        };
        let queueing = self.queueing();
        // SAFETY: `function` comes from this context, which is bound to this thread;
        // `params` has one pointer per C parameter of the entry, in order and of the C type
        // the macro emitted (slices: device pointer and `unsigned long long` length;
        // scalars: the low `size` bytes of a little-endian u128), each pointing into
        // `args`, which outlives the call; device pointers are live allocations the caller
        // keeps borrowed for the launch; the configuration was validated against the
        // device's limits, the function opted in to its dynamic shared memory, and a
        // cooperative grid fits on the device (and `enqueue` is one of the two launch
        // calls, which take the same parameters).
        let launched = unsafe {
            enqueue(
                function,
                (g.x, g.y, g.z),
                (b.x, b.y, b.z),
                cfg.shared_mem_bytes,
                stream.cu_stream(),
                &mut params,
            )
        };
        // A launch the driver refused was not queued: it cannot be the one that faulted.
        self.faults.check(launched, what, Some(kernel.name))?;
        self.faults.launched(kernel.name, cfg);
        if let Some(record) = loaded.oob_record {
            self.bounds.arm(record, kernel.name);
        }
        drop(queueing);
        Ok(())
    }

    /// The block size that gives `kernel` the highest occupancy on this GPU, with no
    /// dynamic shared memory and at most `limit` threads per block:
    /// `cuOccupancyMaxPotentialBlockSize` (which weighs the kernel's registers and static
    /// shared memory against the multiprocessor's). Loads (compiles) the kernel if needed.
    pub(crate) fn max_potential_block_size(&self, kernel: CudaKernel, limit: u32) -> Result<u32> {
        extern "C" fn no_dynamic_shared(_block_size: std::ffi::c_int) -> usize {
            0
        }
        self.faults.alive()?;
        let loaded = self.load(kernel)?;
        let bound = self.stream.context().bind_to_thread();
        self.faults
            .check(bound, "binding the CUDA context", Some(kernel.name))?;
        let asked =
            loaded
                .function
                .occupancy_max_potential_block_size(no_dynamic_shared, 0, limit, None);
        let (_min_grid, block) = self.faults.check(
            asked,
            "computing the kernel's best block size (cuOccupancyMaxPotentialBlockSize)",
            Some(kernel.name),
        )?;
        Ok(block)
    }

    /// Checks the launch's dynamic shared memory against the device's opt-in limit less the
    /// kernel's static shared memory, and opts the kernel in where it needs more than the
    /// default (48 KiB in all): `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, set once
    /// per function and size (only ever raised). The context is bound.
    fn prepare_shared_memory(
        &self,
        kernel: CudaKernel,
        loaded: &LoadedKernel,
        cfg: LaunchConfig,
    ) -> Result<()> {
        let dynamic = cfg.shared_mem_bytes;
        if dynamic == 0 {
            return Ok(());
        }
        let static_bytes = match loaded.static_shared.get() {
            Some(&bytes) => bytes,
            None => {
                let read = loaded
                    .function
                    .get_attribute(FuncAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
                let bytes = self
                    .faults
                    .check(
                        read,
                        "reading the kernel's static shared memory size",
                        Some(kernel.name),
                    )?
                    .max(0) as u32;
                *loaded.static_shared.get_or_init(|| bytes)
            }
        };
        let limits = &self.limits;
        let total = u64::from(static_bytes) + u64::from(dynamic);
        if total > u64::from(limits.max_shared_mem_per_block_optin) {
            return Err(cfg.invalid(
                kernel.name,
                format!(
                    "{dynamic} bytes of dynamic shared memory plus the kernel's {static_bytes} \
                     bytes of static shared memory make {total} bytes per block, but the \
                     device allows at most {} bytes per block (its opt-in limit, \
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
            let opted = loaded.function.set_attribute(
                FuncAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            );
            self.faults.check(
                opted,
                "opting the kernel in to more than 48 KiB of dynamic shared memory \
                 (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                Some(kernel.name),
            )?;
            *set = dynamic;
        }
        Ok(())
    }

    /// How many blocks of `cfg` one multiprocessor holds at once for this kernel (cached
    /// per block size and dynamic shared memory). The context is bound.
    fn blocks_per_multiprocessor(
        &self,
        kernel: CudaKernel,
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
        let asked = loaded
            .function
            .occupancy_max_active_blocks_per_multiprocessor(
                threads,
                cfg.shared_mem_bytes as usize,
                None,
            );
        let per_sm = self.faults.check(
            asked,
            "computing the kernel's occupancy (cuOccupancyMaxActiveBlocksPerMultiprocessor)",
            Some(kernel.name),
        )?;
        cache.insert(key, per_sm);
        Ok(per_sm)
    }
}
