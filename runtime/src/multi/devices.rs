//! [`Devices`]: the devices of one process, a rank each, and [`Devices::run`], which runs
//! a closure once a rank, each on its own thread with its [`Communicator`]. The user writes
//! no thread code; each rank's errors and panics come back to the caller, and a rank that
//! fails makes the others' collectives fail at once instead of waiting for it.

use std::panic::Location;
use std::time::Duration;

use super::communicator::{Communicator, World};
use super::rendezvous::Rendezvous;
use crate::device::Device;
use crate::error::{Error, Result};

/// How long a collective waits for the other ranks by default
/// ([`Devices::with_timeout`]): the simulator runs kernels slowly, and a rank may compute
/// for minutes between two collectives.
pub const DEFAULT_COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(600);

/// The devices of one process, rank `r` on device `r`: simulated devices for now, each
/// with its own memory and queue.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// use warpspeed::Devices;
/// let devices = Devices::simulated(4);
/// assert_eq!(devices.len(), 4);
/// let ranks = devices.run(|comm| Ok((comm.rank(), comm.size())))?;
/// assert_eq!(ranks, vec![(0, 4), (1, 4), (2, 4), (3, 4)]);
/// # Ok(()) }
/// ```
pub struct Devices {
    devices: Vec<Device>,
    timeout: Duration,
}

impl Devices {
    /// `n` simulated devices ([`Device::simulator`] each), at least one.
    pub fn simulated(n: usize) -> Devices {
        Devices {
            devices: (0..n.max(1)).map(|_| Device::simulator()).collect(),
            timeout: DEFAULT_COLLECTIVE_TIMEOUT,
        }
    }

    /// The same devices, with collectives that wait at most `timeout` for the other
    /// ranks before they return [`Error::Collective`] naming the ranks that never came.
    pub fn with_timeout(self, timeout: Duration) -> Devices {
        Devices { timeout, ..self }
    }

    /// The number of devices (ranks).
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Whether there are none (never: a set holds at least one device).
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// Rank `rank`'s device, `None` past the last.
    pub fn device(&self, rank: usize) -> Option<&Device> {
        self.devices.get(rank)
    }

    /// Runs `f` once a rank, each on its own thread, with the rank's [`Communicator`], and
    /// returns the results in rank order.
    ///
    /// A rank's `Err` or panic leaves the world at once: the other ranks' collectives
    /// that wait for it fail with [`Error::Collective`] instead of waiting out the
    /// timeout.
    ///
    /// # Errors
    ///
    /// The first rank's error that is not [`Error::Collective`] (the cause, where the
    /// others' are its consequence), else the first rank's error. A rank's panic is
    /// resumed on the caller's thread once every rank has returned.
    #[track_caller]
    pub fn run<T: Send>(&self, f: impl Fn(&Communicator) -> Result<T> + Sync) -> Result<Vec<T>> {
        let made_at = Location::caller();
        let rendezvous = Rendezvous::new(self.devices.len(), self.timeout);
        let outcomes: Vec<std::thread::Result<Result<T>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .devices
                .iter()
                .enumerate()
                .map(|(rank, device)| {
                    let world = World::Simulated(rendezvous.clone());
                    let comm = Communicator::new(rank, device.clone(), world, made_at);
                    let f = &f;
                    std::thread::Builder::new()
                        .name(format!("warpspeed rank {rank}"))
                        .spawn_scoped(scope, move || f(&comm))
                        .expect("spawning a rank's thread")
                })
                .collect();
            handles.into_iter().map(|h| h.join()).collect()
        });
        let mut results = Vec::with_capacity(outcomes.len());
        let mut errors: Vec<Error> = Vec::new();
        let mut panic = None;
        for outcome in outcomes {
            match outcome {
                Ok(Ok(value)) => results.push(value),
                Ok(Err(e)) => errors.push(e),
                Err(payload) => panic = panic.or(Some(payload)),
            }
        }
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
        match errors
            .iter()
            .position(|e| !matches!(e, Error::Collective { .. }))
        {
            Some(cause) => Err(errors.swap_remove(cause)),
            None if !errors.is_empty() => Err(errors.swap_remove(0)),
            None => Ok(results),
        }
    }
}
