//! The CPU simulator backend: runs a kernel's Rust body with CUDA's execution model.
//!
//! A launch is validated like a GPU launch, then its blocks are spread over the CPU: one
//! scoped worker per core takes block indices from an atomic counter and runs each block
//! to completion on its own OS thread (a block never moves between workers).
//!
//! A cooperative launch (`launch_cooperative`) runs every block of the grid at once: each
//! worker takes a fixed share of the blocks (block `b` goes to worker `b % workers`) and
//! interleaves them, one round of a block at a time; a block whose live threads all wait
//! at `this_grid().sync()` reports to the launch's [`GridBarrier`](grid::GridBarrier), which
//! releases every block once all have arrived (`grid.rs`). How many blocks a cooperative
//! launch may have: [`coresident_blocks`].
//!
//! Inside a block every simulated thread is a future (the generated `__sim` bodies are
//! `async fn`s), polled by the block executor (`block.rs`) until it completes or suspends
//! at a sync point: a block barrier, a grid sync, a warp collective, `active_mask` or a
//! print (the lanes of a warp that arrive together go on together; prints are written in
//! lane order, `print.rs`), or an atomic `load`, `swap` or `compare_exchange` (which yield
//! once, so spin-waits on flags of the same block make progress). Threads switch only at
//! these points: a kernel that spins on plain memory hangs the simulator as it may hang a
//! GPU. Barriers and collectives have CUDA's rules (`warp.rs`), and what would hang or be
//! undefined on a GPU is an error here instead.
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
//! Streams (`order.rs`): every launch and copy runs when it is queued, so each stream's
//! order is kept; two operations on different streams that touch the same memory, one
//! writing, with no event wait or synchronisation between them, are refused as
//! `Error::UnorderedStreams` (on a GPU they could run at the same time).
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
//! Limits of the race checks: accesses from different blocks of one launch are ordered
//! only by a grid sync between them, so publishing plain data to another block through
//! fences and an atomic flag is reported as a race (turn the checks off for such kernels);
//! within a block only barriers and warp collectives order accesses (atomics do not).

mod atomic;
mod block;
mod check;
mod cp_async;
mod ctx;
mod device;
mod grid;
mod handles;
mod host;
mod launch;
mod len;
mod mbarrier;
mod memory;
mod mma;
mod order;
mod print;
mod shadow;
mod shared;
mod site;
mod texture;
mod tma;
mod track;
mod warp;
mod wgmma;

pub use atomic::{sim_load_field, sim_store_field, AtomicArith, AtomicInt, AtomicScalar};
pub use ctx::ThreadCtx;
pub use device::SimOptions;
pub(crate) use device::{coresident_blocks, max_potential_block_size, SimDevice};
pub use handles::{AtomicSlice, Slice, SliceMut};
pub use host::{host_call, kernel_code};
pub use launch::SimFuture;
pub use len::{sim_check_len, LenDecl};
pub use mbarrier::{MbarrierRef, SimMbarriers};
pub(crate) use memory::HostAlloc;
pub use mma::{frag_load_acc, fragment_index, Fragment, MmaElem, MmaScalar};
pub(crate) use order::{Access, EventClock, StreamId, DEVICE_QUEUE};
pub use print::{capture_sim_prints, format_g};
pub use site::{src_loc_by_id, SrcLoc};
pub use texture::SimTexture;
pub(crate) use tma::tile_alignment;
pub use tma::SimTensorMap;
pub use wgmma::WgmmaA;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::config::LaunchConfig;
use crate::error::{Error, Result};
use crate::scalar::Arg;
use block::{Block, Progress, Runner};
use check::{install_quiet_panic_hook, panic_to_error, QuietPanics};
use grid::GridBarrier;
use launch::{KernelNames, Launch};
use print::PrintSink;
use shadow::{EpochTable, GlobalShadow};

/// The simulator entry of a kernel: reads the thread's arguments from its [`ThreadCtx`]
/// and returns the thread's future (`Box::pin(__sim(ctx, ctx.arg_slice::<f32>(0), ..))`).
pub type SimEntry = for<'a> fn(&'a ThreadCtx<'a>) -> SimFuture<'a>;

/// What the simulator needs of a kernel (the launch path takes it from the kernel's
/// `KernelDef`).
#[derive(Clone, Copy)]
pub(crate) struct SimKernel {
    /// The kernel's Rust name, for reports.
    pub(crate) name: &'static str,
    /// Its parameter names in launch order, for race reports.
    pub(crate) params: &'static [&'static str],
    /// Starts one thread.
    pub(crate) entry: SimEntry,
}

/// Runs `kernel` over the grid of `cfg` with `args`; returns when every block is done.
/// The configuration was validated by the caller (for a `cooperative` launch, the number
/// of blocks against [`coresident_blocks`] too).
pub(crate) fn run(
    sim: &SimDevice,
    kernel: SimKernel,
    cfg: LaunchConfig,
    args: &[Arg],
    cooperative: bool,
) -> Result<()> {
    install_quiet_panic_hook();
    let options = sim.options;
    let launch = Launch {
        kernel: KernelNames {
            name: kernel.name,
            params: kernel.params,
        },
        cfg,
        args,
        options,
        shared_limit: sim.limits.max_shared_mem_per_block_optin,
        static_shared_limit: sim.limits.max_shared_mem_per_block,
        cooperative,
        print: PrintSink::current(),
        globals: args
            .iter()
            .map(|arg| match arg {
                Arg::Slice { len, .. } if options.race_checks => {
                    Some(GlobalShadow::new(*len as usize))
                }
                _ => None,
            })
            .collect(),
        epochs: EpochTable::new(),
        stop: AtomicBool::new(false),
    };
    let blocks = cfg.grid.count();
    let workers = (sim.workers as u64).clamp(1, blocks.max(1)) as usize;
    if cooperative {
        return run_cooperative(&launch, kernel.entry, workers);
    }
    let next_block = AtomicU64::new(0);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let worker = || {
        let _quiet = QuietPanics::enter();
        while !launch.stopped() {
            let block = next_block.fetch_add(1, Ordering::Relaxed);
            if block >= blocks {
                break;
            }
            if let Err(err) = run_block(&launch, kernel.entry, block) {
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
fn run_block(launch: &Launch<'_>, entry: SimEntry, linear: u64) -> Result<()> {
    let block = Block::new(launch, linear)?;
    let ctxs: Vec<ThreadCtx<'_>> = (0..block.size).map(|t| ThreadCtx::new(&block, t)).collect();
    let mut runner = Runner::new(&block, start_threads(&block, entry, &ctxs)?);
    runner.run_to_end()
}

/// The future of every thread of `block`, in thread order.
fn start_threads<'a>(
    block: &'a Block<'a>,
    entry: SimEntry,
    ctxs: &'a [ThreadCtx<'a>],
) -> Result<Vec<Option<SimFuture<'a>>>> {
    let kernel = block.launch.kernel;
    let mut tasks: Vec<Option<SimFuture<'a>>> = Vec::with_capacity(ctxs.len());
    for (t, ctx) in ctxs.iter().enumerate() {
        match catch_unwind(AssertUnwindSafe(|| entry(ctx))) {
            Ok(task) => tasks.push(Some(task)),
            Err(payload) => {
                return Err(panic_to_error(
                    kernel.name,
                    payload,
                    block.idx,
                    block.thread_idx(t as u32),
                ))
            }
        }
    }
    Ok(tasks)
}

/// Runs a cooperative launch: every block at once, block `b` on worker `b % workers`.
fn run_cooperative(launch: &Launch<'_>, entry: SimEntry, workers: usize) -> Result<()> {
    let grid = GridBarrier::new(launch.cfg.grid.count());
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let worker = |first: usize| {
        let _quiet = QuietPanics::enter();
        let share = run_cooperative_share(launch, entry, &grid, first as u64, workers as u64);
        if let Err(err) = share {
            launch.stop.store(true, Ordering::Relaxed);
            failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(err);
            grid.wake_all();
        }
    };
    if workers == 1 {
        worker(0);
    } else {
        std::thread::scope(|s| {
            for first in 0..workers {
                s.spawn(move || worker(first));
            }
        });
    }
    match failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(err) => Err(err),
        None => Ok(()),
    }
}

/// Runs blocks `first`, `first + stride`, ... of a cooperative launch, interleaved one
/// round at a time, meeting the other workers' blocks at every grid sync.
fn run_cooperative_share(
    launch: &Launch<'_>,
    entry: SimEntry,
    grid: &GridBarrier,
    first: u64,
    stride: u64,
) -> Result<()> {
    let total = launch.cfg.grid.count();
    let blocks: Vec<Block<'_>> = (first..total)
        .step_by(stride as usize)
        .map(|linear| Block::new(launch, linear))
        .collect::<Result<_>>()?;
    let ctxs: Vec<Vec<ThreadCtx<'_>>> = blocks
        .iter()
        .map(|block| (0..block.size).map(|t| ThreadCtx::new(block, t)).collect())
        .collect();
    let mut runners: Vec<Runner<'_>> = Vec::with_capacity(blocks.len());
    for (block, ctxs) in blocks.iter().zip(&ctxs) {
        runners.push(Runner::new(block, start_threads(block, entry, ctxs)?));
    }
    // Per block: done, or the grid generation it waits to see pass.
    let mut done = vec![false; blocks.len()];
    let mut waiting: Vec<Option<u64>> = vec![None; blocks.len()];
    loop {
        if launch.stopped() {
            return Ok(());
        }
        let (mut live, mut ran) = (false, false);
        let mut blocked_at = None;
        for (i, runner) in runners.iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            live = true;
            if let Some(generation) = waiting[i] {
                if grid.generation() == generation {
                    blocked_at = Some(generation);
                    continue;
                }
                waiting[i] = None;
                runner.release_grid()?;
            }
            ran = true;
            match runner.round()? {
                Progress::Done => {
                    done[i] = true;
                    grid.finish(launch, &blocks[i])?;
                }
                Progress::Stopped => return Ok(()),
                Progress::Running => {}
                Progress::AtGridSync(site) => {
                    waiting[i] = Some(grid.arrive(launch, &blocks[i], site)?);
                }
            }
        }
        if !live {
            return Ok(());
        }
        // Only a pass in which every live block waited lets the worker sleep.
        if let (false, Some(generation)) = (ran, blocked_at) {
            grid.wait(launch, generation);
        }
    }
}
