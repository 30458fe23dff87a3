//! The host side of the decoupled look-back (algorithms/src/template/lookback.rs), shared
//! by the scan's and the select's scratch: the tiles' status words, the tile counter and
//! the epoch of the next launch.

use warpspeed_core::prelude::*;
use warpspeed_core::Result;

/// One look-back launch's memory: `status` (one word a tile, zeroed once), `counter` (one
/// word, zero between launches) and the last epoch.
pub(crate) struct TileStatus {
    pub(crate) status: DeviceBuffer<u64>,
    pub(crate) counter: DeviceBuffer<u32>,
    epoch: u32,
    /// A look-back launch failed: the counter may not be zero.
    counter_unknown: bool,
}

impl TileStatus {
    /// The words of launches of up to `tiles` tiles on `dev` (at least one).
    pub(crate) fn new(dev: &Device, tiles: usize) -> Result<Self> {
        Ok(TileStatus {
            status: dev.zeros::<u64>(tiles.max(1))?,
            counter: dev.zeros::<u32>(1)?,
            epoch: 0,
            counter_unknown: false,
        })
    }

    /// `words` status words (at least one) on `dev`.
    pub(crate) fn with_words(dev: &Device, words: usize) -> Result<Self> {
        Ok(TileStatus {
            status: dev.zeros::<u64>(words.max(1))?,
            counter: dev.zeros::<u32>(1)?,
            epoch: 0,
            counter_unknown: false,
        })
    }

    /// The epoch of the next look-back launch: zeroes the counter after a failed launch
    /// and the status words when the epochs run out (below 2^31).
    pub(crate) fn next_epoch(&mut self) -> Result<u32> {
        if self.counter_unknown {
            self.counter.copy_from_host(&[0])?;
            self.counter_unknown = false;
        }
        if self.epoch >= (1 << 31) - 1 {
            self.status.fill(0)?;
            self.epoch = 0;
        }
        self.epoch += 1;
        Ok(self.epoch)
    }

    /// The words of the launch of `epoch` (from [`TileStatus::next_epoch`]).
    pub(crate) fn words(&mut self, epoch: u32) -> crate::operator::LookbackWords<'_> {
        crate::operator::LookbackWords {
            status: &mut self.status,
            counter: &mut self.counter,
            epoch,
        }
    }

    /// Notes a launch's result: after a failure the counter is zeroed before the next.
    pub(crate) fn after<T>(&mut self, result: Result<T>) -> Result<T> {
        if result.is_err() {
            self.counter_unknown = true;
        }
        result
    }
}
