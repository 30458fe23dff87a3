//! The kernels loaded into a GPU's context: the in-memory cache (`launch.rs` loads a
//! kernel on a miss: CUBIN from the disk cache or NVRTC, `compile/`, then the module and
//! its entry).
//!
//! A launch looks its kernel up by the address of its `'static` source (a read lock and a
//! hash of a pointer). On a miss the kernel is loaded under a per-kernel lock keyed by
//! (entry, source hash, options), so concurrent first launches compile and load it once,
//! and two definitions with the same source share one module.
//!
//! Next to each function the cache keeps what launches learn about it once: its static
//! shared memory, the dynamic shared memory it has been opted in to, its occupancy.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError, RwLock};

use cudarc::driver::CudaFunction;

use super::compile::hash::fnv128;
use super::compile::KernelOptions;
use crate::error::Result;

/// What the CUDA backend needs of a kernel (the launch path takes it from the kernel's
/// `KernelDef`).
#[derive(Clone, Copy)]
pub(crate) struct CudaKernel {
    /// The kernel's Rust name, for messages.
    pub(crate) name: &'static str,
    /// The `extern "C" __global__` entry's name in `source`.
    pub(crate) entry: &'static str,
    /// The complete CUDA C of the kernel and the device functions it calls.
    pub(crate) source: &'static LazyLock<String>,
    /// What NVRTC is asked for.
    pub(crate) options: KernelOptions,
    /// The bounds checks the launch proved (`launch/proven.rs`): bit `n` compiles check
    /// site `n` out (`WS_PROVEN`, prelude.cuh). Each mask is its own program.
    pub(crate) proven: u64,
}

impl CudaKernel {
    /// The program NVRTC compiles for this launch ([`program`]).
    pub(crate) fn program(&self) -> Cow<'static, str> {
        program(self.source, self.proven)
    }
}

/// The program NVRTC compiles for a kernel of `source` whose launch proved the check sites
/// of `proven`: the source, after `#define WS_PROVEN` when any is proven (prelude.cuh).
pub(crate) fn program(source: &'static LazyLock<String>, proven: u64) -> Cow<'static, str> {
    let source: &'static str = source;
    match proven {
        0 => Cow::Borrowed(source),
        mask => Cow::Owned(format!("#define WS_PROVEN {mask:#x}ull\n{source}")),
    }
}

type SlotKey = (&'static str, u128, KernelOptions);
/// One kernel's place in the cache: loaded once, under its lock.
type Slot = Arc<Mutex<Option<Arc<LoadedKernel>>>>;

/// A kernel loaded into a context, and what launches learned about it.
pub(crate) struct LoadedKernel {
    pub(crate) function: CudaFunction,
    /// The device address of the module's bounds-check record (`ws_oob`).
    pub(crate) oob_record: Option<u64>,
    /// `CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`, once read.
    pub(crate) static_shared: OnceLock<u32>,
    /// The largest `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` set so far (0: never
    /// set, the driver's default of 48 KiB less the static shared memory holds).
    pub(crate) max_dynamic_shared: Mutex<u32>,
    /// Blocks per multiprocessor (`cuOccupancyMaxActiveBlocksPerMultiprocessor`) by
    /// (threads per block, dynamic shared bytes).
    pub(crate) occupancy: Mutex<HashMap<(u32, u32), u32>>,
}

impl LoadedKernel {
    fn new((function, oob_record): (CudaFunction, Option<u64>)) -> LoadedKernel {
        LoadedKernel {
            function,
            oob_record,
            static_shared: OnceLock::new(),
            max_dynamic_shared: Mutex::new(0),
            occupancy: Mutex::new(HashMap::new()),
        }
    }
}

/// Loaded kernels of one device.
#[derive(Default)]
pub(crate) struct FunctionCache {
    by_def: RwLock<HashMap<(usize, usize, u64), Arc<LoadedKernel>>>,
    slots: Mutex<HashMap<SlotKey, Slot>>,
}

impl FunctionCache {
    /// The loaded function of `kernel`, calling `load(source)` once if it is not loaded yet.
    pub(super) fn get(
        &self,
        kernel: CudaKernel,
        load: impl FnOnce(&str) -> Result<(CudaFunction, Option<u64>)>,
    ) -> Result<Arc<LoadedKernel>> {
        // A kernel's source and entry are `'static`: their addresses (and the checks
        // proven) name it.
        let def_key = (
            kernel.source as *const LazyLock<String> as usize,
            kernel.entry.as_ptr() as usize,
            kernel.proven,
        );
        if let Some(f) = self
            .by_def
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&def_key)
        {
            return Ok(f.clone());
        }
        let program = kernel.program();
        let source: &str = &program;
        let slot_key = (kernel.entry, fnv128(source.as_bytes()), kernel.options);
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(slot_key)
            .or_default()
            .clone();
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        let function = match &*slot {
            Some(f) => f.clone(),
            None => {
                let f = Arc::new(LoadedKernel::new(load(source)?));
                *slot = Some(f.clone());
                f
            }
        };
        self.by_def
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(def_key, function.clone());
        Ok(function)
    }
}
