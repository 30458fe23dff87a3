//! What a decoupled look-back launch keeps between launches (the scan's and the sort's):
//! status words that are zeroed once, when allocated, and told apart from one launch to
//! the next by an *epoch* in their flag, and the tile counter each launch leaves at zero.
//! See algorithms/src/template/lookback.rs for the protocol.

use warpspeed_core::prelude::*;
use warpspeed_core::Result;

/// Status words, the tile counter and the last epoch.
pub(crate) struct Lookback {
    pub(crate) status: DeviceBuffer<u64>,
    pub(crate) counter: DeviceBuffer<u32>,
    epoch: u32,
    /// A launch failed: the counter may not be zero.
    counter_unknown: bool,
}

impl Lookback {
    /// `words` status words (at least one) and the counter, zeroed, on `dev`.
    pub(crate) fn new(dev: &Device, words: usize) -> Result<Self> {
        Ok(Lookback {
            status: dev.zeros::<u64>(words.max(1))?,
            counter: dev.zeros::<u32>(1)?,
            epoch: 0,
            counter_unknown: false,
        })
    }

    /// The epoch of the next launch: zeroes the counter after a failed launch and the
    /// status words when the epochs run out (below 2^31).
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

    /// Passes a launch's result on, noting a failure (its counter may be left nonzero).
    pub(crate) fn checked(&mut self, result: Result<()>) -> Result<()> {
        if result.is_err() {
            self.counter_unknown = true;
        }
        result
    }
}
