//! What every block of one launch shares ([`Launch`]: the kernel's names, configuration,
//! arguments, options, shadows, the stop flag), and [`SimFuture`], one simulated thread.
//! The executor files (`block.rs`, `ctx.rs`, `grid.rs`, ...) read the launch from here;
//! `mod.rs` builds it and starts the threads.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};

use super::device::SimOptions;
use super::print::PrintSink;
use super::shadow::{EpochTable, GlobalShadow};
use crate::config::LaunchConfig;
use crate::dim::Dim3;
use crate::scalar::Arg;

/// One simulated thread of a kernel: a future the simulator polls until it completes or
/// suspends at a sync point.
pub type SimFuture<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// A kernel as the simulator's reports name it.
#[derive(Clone, Copy)]
pub(crate) struct KernelNames {
    /// The kernel's Rust name.
    pub(crate) name: &'static str,
    /// Its parameter names in launch order (for race reports).
    pub(crate) params: &'static [&'static str],
}

/// What every block of one launch shares.
pub(crate) struct Launch<'l> {
    pub(crate) kernel: KernelNames,
    pub(crate) cfg: LaunchConfig,
    pub(crate) args: &'l [Arg],
    pub(crate) options: SimOptions,
    /// Static plus dynamic shared memory one block may use (the opt-in limit).
    pub(crate) shared_limit: u32,
    /// Static shared memory one block may use.
    pub(crate) static_shared_limit: u32,
    /// Launched with `launch_cooperative`: every block runs at once, grid syncs allowed.
    pub(crate) cooperative: bool,
    /// Where prints go.
    pub(crate) print: PrintSink,
    /// The race-check shadow of each slice argument (`None` for scalars, checks off).
    pub(crate) globals: Box<[Option<GlobalShadow>]>,
    pub(crate) epochs: EpochTable,
    /// Set by the first block that fails: the others stop.
    pub(crate) stop: AtomicBool,
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
