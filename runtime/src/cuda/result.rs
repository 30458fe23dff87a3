//! Where every driver result becomes a warpspeed [`Result`] (cudarc's `result` layer is
//! the model): [`Faults::check`] is the one function that turns a `DriverError` into an
//! [`Error`], and the only one that knows which errors lose the context.
//!
//! After a kernel does something the GPU cannot survive (an illegal address in
//! `unchecked` code, a trap), CUDA's context is lost and every later call fails with the
//! same "sticky" error, whichever call it is: a module load, a launch, an allocation, a
//! copy, a synchronisation. The first call that sees it gets [`Error::KernelFault`] naming
//! the launch that faulted; every later call on the device gets [`Error::ContextLost`] at
//! once, instead of driver messages about the wrong kernel and the wrong step.
//!
//! Which launch faulted: launches are asynchronous, so the driver only says that one of the
//! launches queued since the last successful synchronisation faulted. [`Faults`] records
//! them (a launch is recorded once it is queued; one the driver refused never ran) and
//! forgets them at each successful synchronisation. The fault is named after the first of
//! them, and the others are listed as later candidates ([`Error::KernelFault`]'s `later`):
//! a stream runs its launches in order and stops at a fault, so every launch before the
//! first unsynchronised one is proven innocent, and when only one launch is unsynchronised
//! (the common case) the name is certain. No synchronisation is added per launch: that
//! would cost every launch its asynchrony. docs/runtime.md says the same.

use std::sync::{Mutex, OnceLock, PoisonError};

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;

use crate::config::LaunchConfig;
use crate::error::{Error, Result};

/// How many later candidates a [`Error::KernelFault`] names; the rest are counted.
const LATER_NAMED: usize = 8;

/// The launches not yet proven to have finished, and whether a fault has lost the context.
/// One per device (a stream's context).
#[derive(Default)]
pub(crate) struct Faults {
    unsynchronised: Mutex<Unsynchronised>,
    lost: OnceLock<String>,
}

/// The launches queued since the last successful synchronisation: the first, up to
/// [`LATER_NAMED`] after it, and how many in all (a loop without a synchronisation must not
/// grow this without bound).
#[derive(Default)]
struct Unsynchronised {
    first: Option<Launched>,
    later: Vec<Launched>,
    count: usize,
}

#[derive(Clone, Copy)]
struct Launched {
    kernel: &'static str,
    cfg: LaunchConfig,
}

impl Faults {
    /// `Err(ContextLost)` once the context has faulted; every operation asks first.
    pub(crate) fn alive(&self) -> Result<()> {
        match self.lost.get() {
            Some(first) => Err(Error::ContextLost {
                first: first.clone(),
            }),
            None => Ok(()),
        }
    }

    /// After a launch of `kernel` with `cfg` was queued: a candidate for a later fault.
    pub(crate) fn launched(&self, kernel: &'static str, cfg: LaunchConfig) {
        let mut pending = self.lock();
        let launch = Launched { kernel, cfg };
        pending.count += 1;
        if pending.first.is_none() {
            pending.first = Some(launch);
        } else if pending.later.len() < LATER_NAMED {
            pending.later.push(launch);
        }
    }

    /// After a successful synchronisation: every launch queued so far has finished.
    pub(crate) fn synchronised(&self) {
        *self.lock() = Unsynchronised::default();
    }

    /// The driver's answer to a call made while `what` (for `kernel`, when there is one),
    /// as a warpspeed `Result`: an error that loses the context becomes
    /// [`Error::KernelFault`] naming the unsynchronised launches (and marks the device
    /// lost; a second caller that sees it gets [`Error::ContextLost`]); any other error is
    /// [`Error::Driver`].
    pub(crate) fn check<T>(
        &self,
        result: std::result::Result<T, DriverError>,
        what: &str,
        kernel: Option<&str>,
    ) -> Result<T> {
        let source = match result {
            Ok(value) => return Ok(value),
            Err(source) => source,
        };
        if !loses_context(&source) {
            return Err(Error::Driver {
                kernel: kernel.map(str::to_string),
                what: what.to_string(),
                source,
            });
        }
        let pending = std::mem::take(&mut *self.lock());
        let (kernel, config) = match pending.first {
            Some(first) => (first.kernel.to_string(), first.cfg.to_string()),
            None => (
                "(no warpspeed launch since the last synchronisation)".to_string(),
                "-".to_string(),
            ),
        };
        let mut later: Vec<String> = pending
            .later
            .iter()
            .map(|l| format!("{} ({})", l.kernel, l.cfg))
            .collect();
        let unnamed = pending.count.saturating_sub(1 + later.len());
        if unnamed > 0 {
            later.push(format!("{unnamed} more"));
        }
        // The code's name (`CUDA_ERROR_ILLEGAL_ADDRESS`), not the driver's sentence: the
        // driver may not be asked anything more.
        let first = format!("kernel `{kernel}` ({config}) faulted: {:?}", source.0);
        if self.lost.set(first).is_err() {
            // Another thread saw the fault first and reported it.
            return Err(self.alive().expect_err("the context is marked lost"));
        }
        Err(Error::KernelFault {
            kernel,
            config,
            what: what.to_string(),
            source,
            later,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Unsynchronised> {
        self.unsynchronised
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
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

#[cfg(test)]
mod tests {
    use super::*;

    // No `{:?}` or `{}` of an error here: formatting a driver error asks the driver for its
    // text, and these tests run without one. The messages are checked on a GPU
    // (tests/fault_unsynchronised.rs).

    fn illegal() -> std::result::Result<(), DriverError> {
        Err(DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS))
    }

    /// The fault `result` must be: (kernel, config, what, later).
    fn fault(result: Result<()>) -> (String, String, String, Vec<String>) {
        match result {
            Err(Error::KernelFault {
                kernel,
                config,
                what,
                later,
                ..
            }) => (kernel, config, what, later),
            _ => panic!("expected KernelFault"),
        }
    }

    #[test]
    fn other_errors_stay_driver_errors() {
        let faults = Faults::default();
        let oom = Err::<(), _>(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        let err = faults.check(oom, "allocating a buffer", None);
        assert!(matches!(err, Err(Error::Driver { .. })));
        assert!(faults.alive().is_ok());
    }

    #[test]
    fn a_fault_names_the_one_unsynchronised_launch_then_the_context_is_lost() {
        let faults = Faults::default();
        faults.launched("before", LaunchConfig::new(1, 1));
        faults.synchronised();
        let cfg = LaunchConfig::new(2, 64);
        faults.launched("wild", cfg);
        // The next kernel's module load is where the sticky error shows up.
        let (kernel, config, what, later) =
            fault(faults.check(illegal(), "loading the CUBIN", Some("fill")));
        assert_eq!(kernel, "wild");
        assert_eq!(config, cfg.to_string());
        assert_eq!(what, "loading the CUBIN");
        assert!(later.is_empty(), "{later:?}");
        for result in [
            faults.alive(),
            faults.check(illegal(), "synchronizing", None),
        ] {
            match result {
                Err(Error::ContextLost { first }) => {
                    assert_eq!(
                        first,
                        format!("kernel `wild` ({cfg}) faulted: CUDA_ERROR_ILLEGAL_ADDRESS")
                    )
                }
                _ => panic!("expected ContextLost"),
            }
        }
    }

    #[test]
    fn several_unsynchronised_launches_name_the_first_and_list_the_rest() {
        let faults = Faults::default();
        faults.launched("first", LaunchConfig::new(1, 32));
        for _ in 0..20 {
            faults.launched("next", LaunchConfig::new(3, 32));
        }
        let (kernel, _, _, later) = fault(faults.check(illegal(), "downloading a buffer", None));
        assert_eq!(kernel, "first");
        assert_eq!(later.len(), LATER_NAMED + 1);
        assert_eq!(later[0], format!("next ({})", LaunchConfig::new(3, 32)));
        assert_eq!(later[LATER_NAMED], format!("{} more", 20 - LATER_NAMED));
    }

    #[test]
    fn a_fault_with_no_launch_says_so() {
        let faults = Faults::default();
        let (kernel, config, _, later) =
            fault(faults.check(illegal(), "synchronizing the device", None));
        assert!(kernel.contains("no warpspeed launch"), "{kernel}");
        assert_eq!((config.as_str(), later.len()), ("-", 0));
    }
}
