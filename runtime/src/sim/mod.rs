//! The CPU simulator backend: runs a kernel's Rust body with CUDA's execution model.
//!
//! A launch is validated like a GPU launch, then its blocks are spread over the CPU: one
//! scoped worker per core takes block indices from an atomic counter and runs each block
//! to completion on its own OS thread (a block never moves between workers).
//!
//! Inside a block every simulated thread is a future (the generated `__sim` bodies are
//! `async fn`s), polled by the block executor (`block.rs`) until it completes or suspends
//! at a sync point: a block barrier, a warp collective, `active_mask` (the lanes that
//! arrive together), or an atomic `load`, `swap` or `compare_exchange` (which yield once,
//! so spin-waits on flags of the same block make progress). Threads switch only at these
//! points: a kernel that spins on plain memory hangs the simulator as it may hang a GPU. Barriers and collectives have CUDA's rules
//! (`warp.rs`), and what would hang or be undefined on a GPU is an error here instead.
//!
//! Memory (`handles.rs`, `atomic.rs`, `shared.rs`): global buffers are host allocations
//! reached through raw pointers; every simulated load and store is a Relaxed atomic access
//! of the element's width, and kernel atomics are real hardware atomics, so even a racy
//! kernel is not undefined behaviour in Rust. Shared memory is one allocation per block
//! and site, filled with 0xFF bytes.
//!
//! Checks the GPU does not give (`check.rs`, `shadow.rs`), each an `Err` from the launch,
//! the first failure winning and stopping the launch: out-of-bounds indexing (with the
//! Rust file and line), divergent barriers and bad warp collectives, deadlocks, data races
//! on shared and global memory, reads of shared memory no thread wrote (reported at the
//! block's next barrier or end, unless a race with a later write explains them), and
//! panics.
//!
//! Options ([`SimOptions`], read by [`Device::simulator`](crate::Device::simulator) from
//! the environment):
//! - `WARPSPEED_SIM_RACES=0` (or `off`) turns the race and uninitialised-shared-memory
//!   checks off (bounds and barrier checks stay); they cost time and memory (36 bytes of
//!   shadow per element touched).
//! - `WARPSPEED_SIM_SEED=<u64>` shuffles the order in which the runnable threads of a block
//!   are polled in every round, deterministically from the seed and the block index, to
//!   shake out bugs that depend on the order threads run in.
//!
//! Limits of the race checks: accesses from different blocks of one launch are never
//! ordered, so publishing plain data to another block through fences and an atomic flag
//! is reported as a race (turn the checks off for such kernels); within a block only
//! barriers and warp collectives order accesses (atomics do not).

mod atomic;
mod block;
mod check;
mod ctx;
mod handles;
mod shadow;
mod shared;
mod site;
mod warp;

pub use atomic::{AtomicInt, AtomicScalar};
pub use ctx::ThreadCtx;
pub use handles::{AtomicSlice, Slice, SliceMut};
pub use site::{src_loc_by_id, SrcLoc};

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::device::SimDevice;
use crate::error::{Error, Result};
use crate::kernel_abi::{Arg, Dim3, KernelDef, SimFuture};
use crate::launch::LaunchConfig;
use block::Block;
use check::{install_quiet_panic_hook, panic_to_error, QuietPanics};
use shadow::{EpochTable, GlobalShadow};

/// How the simulator runs kernels.
///
/// ```
/// use warpspeed_runtime::{Device, SimOptions};
/// let dev = Device::simulator_with(SimOptions { race_checks: false, seed: Some(7) });
/// assert_eq!(dev.backend(), warpspeed_runtime::Backend::Simulator);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimOptions {
    /// Report data races on shared and global memory, and reads of shared memory no
    /// thread wrote (default `true`). Bounds and barrier checks are always on.
    pub race_checks: bool,
    /// Poll the runnable threads of each block in an order shuffled by this seed (and the
    /// block index) in every round, instead of thread order.
    pub seed: Option<u64>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            race_checks: true,
            seed: None,
        }
    }
}

impl SimOptions {
    /// The options `WARPSPEED_SIM_RACES` (`0`/`off`/`false`/`no` turn the race checks off)
    /// and `WARPSPEED_SIM_SEED` (a `u64`, decimal or `0x` hexadecimal) ask for; other
    /// values are ignored with a warning on stderr.
    pub fn from_env() -> SimOptions {
        Self::from_vars(
            std::env::var("WARPSPEED_SIM_RACES").ok().as_deref(),
            std::env::var("WARPSPEED_SIM_SEED").ok().as_deref(),
        )
    }

    fn from_vars(races: Option<&str>, seed: Option<&str>) -> SimOptions {
        let mut options = SimOptions::default();
        if let Some(v) = races {
            match v.trim().to_ascii_lowercase().as_str() {
                "0" | "off" | "false" | "no" => options.race_checks = false,
                "" | "1" | "on" | "true" | "yes" => {}
                _ => eprintln!("warpspeed: ignoring WARPSPEED_SIM_RACES={v:?} (use 0/off or 1/on)"),
            }
        }
        if let Some(v) = seed {
            let t = v.trim();
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse(),
            };
            match parsed {
                Ok(seed) => options.seed = Some(seed),
                Err(_) if t.is_empty() => {}
                Err(_) => eprintln!("warpspeed: ignoring WARPSPEED_SIM_SEED={v:?} (not a u64)"),
            }
        }
        options
    }
}

/// What every block of one launch shares.
pub(crate) struct Launch<'l> {
    pub(crate) kernel: &'static KernelDef,
    pub(crate) cfg: LaunchConfig,
    pub(crate) args: &'l [Arg],
    pub(crate) options: SimOptions,
    /// Static plus dynamic shared memory one block may use.
    pub(crate) shared_limit: u32,
    /// The race-check shadow of each slice argument (`None` for scalars, checks off).
    pub(crate) globals: Box<[Option<GlobalShadow>]>,
    pub(crate) epochs: EpochTable,
    stop: AtomicBool,
}

impl Launch<'_> {
    /// Whether another block failed, so this one may stop.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// `block_idx()` of block number `linear`.
    pub(crate) fn block_idx(&self, linear: u64) -> Dim3 {
        let (gx, gy) = (u64::from(self.cfg.grid.x), u64::from(self.cfg.grid.y));
        Dim3::new(
            (linear % gx) as u32,
            (linear / gx % gy) as u32,
            (linear / (gx * gy)) as u32,
        )
    }
}

/// Runs `kernel` over the grid of `cfg` with `args`; returns when every block is done.
/// The configuration was validated by the caller.
pub(crate) fn run(
    sim: &SimDevice,
    kernel: &'static KernelDef,
    cfg: LaunchConfig,
    args: &[Arg],
) -> Result<()> {
    install_quiet_panic_hook();
    let options = sim.options;
    let launch = Launch {
        kernel,
        cfg,
        args,
        options,
        shared_limit: sim.limits.max_shared_mem_per_block,
        globals: args
            .iter()
            .map(|arg| match *arg {
                Arg::Slice { len, .. } if options.race_checks => {
                    Some(GlobalShadow::new(len as usize))
                }
                _ => None,
            })
            .collect(),
        epochs: EpochTable::new(),
        stop: AtomicBool::new(false),
    };
    let blocks = cfg.grid.count();
    let workers = (sim.workers as u64).clamp(1, blocks.max(1)) as usize;
    let next_block = AtomicU64::new(0);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let worker = || {
        let _quiet = QuietPanics::enter();
        while !launch.stopped() {
            let block = next_block.fetch_add(1, Ordering::Relaxed);
            if block >= blocks {
                break;
            }
            if let Err(err) = run_block(&launch, block) {
                launch.stop.store(true, Ordering::Relaxed);
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

/// Runs every thread of block number `linear`.
fn run_block(launch: &Launch<'_>, linear: u64) -> Result<()> {
    let block = Block::new(launch, linear)?;
    let ctxs: Vec<ThreadCtx<'_>> = (0..block.size).map(|t| ThreadCtx::new(&block, t)).collect();
    let mut tasks: Vec<Option<SimFuture<'_>>> = Vec::with_capacity(ctxs.len());
    for (t, ctx) in ctxs.iter().enumerate() {
        match catch_unwind(AssertUnwindSafe(|| (launch.kernel.sim)(ctx))) {
            Ok(task) => tasks.push(Some(task)),
            Err(payload) => {
                return Err(panic_to_error(
                    launch.kernel.rust_name,
                    payload,
                    block.idx,
                    block.thread_idx(t as u32),
                ))
            }
        }
    }
    block.execute(&mut tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_from_vars() {
        assert_eq!(SimOptions::from_vars(None, None), SimOptions::default());
        assert!(!SimOptions::from_vars(Some("off"), None).race_checks);
        assert!(!SimOptions::from_vars(Some("0"), None).race_checks);
        assert!(SimOptions::from_vars(Some("1"), None).race_checks);
        assert_eq!(SimOptions::from_vars(None, Some("42")).seed, Some(42));
        assert_eq!(SimOptions::from_vars(None, Some("0x10")).seed, Some(16));
        assert_eq!(SimOptions::from_vars(None, Some("x")).seed, None);
    }
}
