//! The grid barrier of a cooperative launch (`this_grid().sync()`), shared by the workers
//! that run the launch's blocks.
//!
//! A block arrives once every live thread of it waits at the grid sync (the block executor
//! has checked they wait at one site, with thread (0, 0, 0) among them). When every block
//! of the grid has arrived, the generation moves on and every block goes on. A block that
//! returns while others wait (or before they arrive) makes the sync impossible: on the GPU
//! the grid would hang, here the launch fails. So does a block waiting at another grid
//! sync than the others.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::block::Block;
use super::launch::Launch;
use super::site::src_loc_by_id;
use crate::error::Result;

/// The grid sync of one cooperative launch.
pub(crate) struct GridBarrier {
    /// Blocks in the grid.
    total: u64,
    /// How many grid syncs have been released.
    generation: AtomicU64,
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// Blocks waiting at the current grid sync.
    arrived: u64,
    /// Site and linear index of the first block that arrived.
    first: Option<(u32, u64)>,
    /// Blocks that have returned.
    finished: u64,
    /// The first block that returned.
    first_finished: Option<u64>,
}

impl GridBarrier {
    pub(crate) fn new(total: u64) -> GridBarrier {
        GridBarrier {
            total,
            generation: AtomicU64::new(0),
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many grid syncs have been released.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// `block`'s live threads all wait at the grid sync at `site`. Returns the generation
    /// the block waits to see pass.
    pub(crate) fn arrive(&self, launch: &Launch<'_>, block: &Block<'_>, site: u32) -> Result<u64> {
        let mut state = self.lock();
        let generation = self.generation.load(Ordering::Relaxed);
        match state.first {
            None => state.first = Some((site, block.linear)),
            Some((first_site, first_block)) if first_site != site => {
                return Err(block.divergent(format!(
                    "blocks of the grid wait at different grid syncs: block {} at \
                     this_grid().sync() at {} and block {} at this_grid().sync() at {} (every \
                     block must reach the same grid sync)",
                    launch.block_idx(first_block),
                    src_loc_by_id(first_site),
                    block.idx,
                    src_loc_by_id(site)
                )))
            }
            Some(_) => {}
        }
        state.arrived += 1;
        self.check(launch, block, &mut state)?;
        Ok(generation)
    }

    /// Every thread of `block` has returned.
    pub(crate) fn finish(&self, launch: &Launch<'_>, block: &Block<'_>) -> Result<()> {
        let mut state = self.lock();
        state.finished += 1;
        state.first_finished.get_or_insert(block.linear);
        self.check(launch, block, &mut state)
    }

    /// Releases the grid sync once every block is there; fails when every block is there
    /// or has returned, some of each (the sync can never complete).
    fn check(&self, launch: &Launch<'_>, block: &Block<'_>, state: &mut State) -> Result<()> {
        if state.arrived == 0 || state.arrived + state.finished < self.total {
            return Ok(());
        }
        if let (Some(gone), Some((site, waiter))) = (state.first_finished, state.first) {
            return Err(block.divergent(format!(
                "block {} has returned, but block {} waits at this_grid().sync() at {}: every \
                 block of a cooperative launch must reach each grid sync (on the GPU this \
                 hangs)",
                launch.block_idx(gone),
                launch.block_idx(waiter),
                src_loc_by_id(site)
            )));
        }
        state.arrived = 0;
        state.first = None;
        self.generation.fetch_add(1, Ordering::Release);
        self.wake.notify_all();
        Ok(())
    }

    /// Sleeps until the grid sync of `generation` is released or the launch stops.
    pub(crate) fn wait(&self, launch: &Launch<'_>, generation: u64) {
        let mut state = self.lock();
        while self.generation.load(Ordering::Acquire) == generation && !launch.stopped() {
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Wakes every waiting worker (the launch stopped).
    pub(crate) fn wake_all(&self) {
        let _state = self.lock();
        self.wake.notify_all();
    }
}
