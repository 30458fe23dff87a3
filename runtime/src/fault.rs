//! Driver faults: after a kernel does something the GPU cannot survive (an illegal address
//! in `unchecked` code, a trap), CUDA's context is lost and every later call fails. The
//! first such error is reported as [`Error::KernelFault`] with the kernel and configuration
//! of the last launch; later calls on the device get [`Error::ContextLost`] at once, saying
//! what happened and how to recover, instead of unrelated driver messages.

use std::sync::{Mutex, OnceLock, PoisonError};

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

use crate::config::LaunchConfig;
use crate::error::{Error, Result};

#[derive(Default)]
pub(crate) struct FaultState {
    last_launch: Mutex<Option<(&'static str, LaunchConfig)>>,
    lost: OnceLock<String>,
}

impl FaultState {
    /// Before a launch of `kernel`: the kernel a later fault is blamed on.
    pub(crate) fn launching(&self, kernel: &'static str, cfg: LaunchConfig) {
        *self
            .last_launch
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some((kernel, cfg));
    }

    /// `Err(ContextLost)` once the context has faulted.
    pub(crate) fn check(&self) -> Result<()> {
        match self.lost.get() {
            Some(first) => Err(Error::ContextLost {
                first: first.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The error for a driver failure while `what`: a fault that loses the context becomes
    /// `KernelFault` (and the device is marked lost), anything else stays `Driver`.
    pub(crate) fn classify(&self, source: DriverError, what: &str) -> Error {
        if !loses_context(&source) {
            return Error::Driver {
                kernel: None,
                what: what.to_string(),
                source,
            };
        }
        let last = *self
            .last_launch
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (kernel, config) = match last {
            Some((k, cfg)) => (k.to_string(), cfg.to_string()),
            None => ("(no kernel launched)".to_string(), "-".to_string()),
        };
        let _ = self
            .lost
            .set(format!("kernel `{kernel}` ({config}) faulted: {source}"));
        Error::KernelFault {
            kernel,
            config,
            what: what.to_string(),
            source,
        }
    }
}

/// The errors after which CUDA's context cannot be used again (the "sticky" ones).
fn loses_context(e: &DriverError) -> bool {
    matches!(
        e.0,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
    )
}
