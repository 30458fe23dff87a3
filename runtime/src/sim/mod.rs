//! The CPU simulator backend (minimal: no barriers or shared memory yet).
//!
//! A launch is validated like a GPU launch, then its blocks are spread over the CPU: one
//! scoped worker per core takes block indices from an atomic counter and runs the block's
//! threads one after another (x fastest, as CUDA numbers them), each a call of the kernel's
//! simulator entry. A panic in a simulated thread stops the launch: an out-of-bounds access
//! becomes [`Error::OutOfBounds`], anything else [`Error::KernelPanic`]; the first failure
//! wins and the remaining blocks are skipped.

use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, Once, PoisonError};

use crate::device::SimDevice;
use crate::error::{panic_message, Error, Result};
use crate::kernel_abi::{Arg, Dim3, KernelDef, OutOfBoundsPanic, ThreadCtx};
use crate::launch::LaunchConfig;

/// Runs `kernel` over the grid of `cfg` with `args`; returns when every block is done.
/// The configuration was validated by the caller.
pub(crate) fn run(
    sim: &SimDevice,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: &[Arg],
) -> Result<()> {
    install_quiet_panic_hook();
    let blocks = cfg.grid.count();
    let workers = (sim.workers as u64).clamp(1, blocks.max(1)) as usize;
    let next_block = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let worker = || {
        let _quiet = QuietPanics::enter();
        while !stop.load(Ordering::Relaxed) {
            let block = next_block.fetch_add(1, Ordering::Relaxed);
            if block >= blocks {
                break;
            }
            if let Err(err) = run_block(kernel, cfg, args, block) {
                stop.store(true, Ordering::Relaxed);
                failure
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(err);
                break;
            }
        }
    };
    if workers == 1 {
        worker();
    } else {
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(worker);
            }
        });
    }
    match failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// Runs every thread of block number `linear` (x fastest).
fn run_block(
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: &[Arg],
    linear: u64,
) -> Result<()> {
    let (gx, gy) = (u64::from(cfg.grid.x), u64::from(cfg.grid.y));
    let block_idx = Dim3::new(
        (linear % gx) as u32,
        (linear / gx % gy) as u32,
        (linear / (gx * gy)) as u32,
    );
    let current = Cell::new(Dim3::default());
    let ran = catch_unwind(AssertUnwindSafe(|| {
        for z in 0..cfg.block.z {
            for y in 0..cfg.block.y {
                for x in 0..cfg.block.x {
                    let thread_idx = Dim3::new(x, y, z);
                    current.set(thread_idx);
                    let ctx = ThreadCtx {
                        thread_idx,
                        block_idx,
                        block_dim: cfg.block,
                        grid_dim: cfg.grid,
                    };
                    (kernel.sim)(&ctx, args);
                }
            }
        }
    }));
    ran.map_err(|payload| panic_to_error(kernel, payload, block_idx, current.get()))
}

fn panic_to_error(
    kernel: &KernelDef,
    payload: Box<dyn Any + Send>,
    block: Dim3,
    thread: Dim3,
) -> Error {
    let kernel = kernel.rust_name.to_string();
    match payload.downcast_ref::<OutOfBoundsPanic>() {
        Some(oob) => Error::OutOfBounds {
            kernel,
            line: oob.line,
            index: oob.index as u64,
            len: oob.len as u64,
            block,
            thread,
        },
        None => {
            let mut message = panic_message(&*payload);
            if let Some(location) = LAST_PANIC_LOCATION.with(|l| l.take()) {
                message = format!("{message} (at {location})");
            }
            Error::KernelPanic {
                kernel,
                message,
                block,
                thread,
            }
        }
    }
}

thread_local! {
    /// Set while this thread runs simulated kernel threads: their panics become `Err`s,
    /// so the panic hook stays quiet for them.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic happened, for the error message.
    static LAST_PANIC_LOCATION: Cell<Option<String>> = const { Cell::new(None) };
}

/// Marks the current thread as running simulated kernels until dropped.
struct QuietPanics(bool);

impl QuietPanics {
    fn enter() -> Self {
        QuietPanics(QUIET.with(|q| q.replace(true)))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        QUIET.with(|q| q.set(self.0));
    }
}

/// Wraps the panic hook once per process so panics inside simulated kernels (which are
/// reported as `Err`) do not also print to stderr; every other panic goes to the hook
/// that was installed before.
fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                LAST_PANIC_LOCATION.with(|l| l.set(info.location().map(|loc| loc.to_string())));
            } else {
                previous(info);
            }
        }));
    });
}
