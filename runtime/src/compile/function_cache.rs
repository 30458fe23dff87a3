//! The in-memory cache of loaded kernels, one per GPU device.
//!
//! A launch looks its kernel up by the address of its `'static` [`KernelDef`] (a read lock
//! and a hash of a pointer). On a miss the kernel is loaded under a per-kernel lock keyed by
//! (entry, source hash, options), so concurrent first launches compile and load it once,
//! and two definitions with the same source share one module.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use cudarc::driver::CudaFunction;

use super::hash::fnv128;
use crate::error::Result;
use crate::kernel_abi::{KernelDef, KernelOptions};

type SlotKey = (&'static str, u128, KernelOptions);

/// Loaded kernels of one device.
#[derive(Default)]
pub(crate) struct FunctionCache {
    by_def: RwLock<HashMap<usize, CudaFunction>>,
    slots: Mutex<HashMap<SlotKey, Arc<Mutex<Option<CudaFunction>>>>>,
}

impl FunctionCache {
    /// The loaded function of `kernel`, calling `load(source)` once if it is not loaded yet.
    pub(crate) fn get(
        &self,
        kernel: &'static KernelDef,
        load: impl FnOnce(&str) -> Result<CudaFunction>,
    ) -> Result<CudaFunction> {
        let def_key = kernel as *const KernelDef as usize;
        if let Some(f) = self
            .by_def
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&def_key)
        {
            return Ok(f.clone());
        }
        let source: &str = kernel.source;
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
                let f = load(source)?;
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
