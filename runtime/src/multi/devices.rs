//! [`Devices`]: the devices of one process (GPUs, or simulated devices), a rank each, and
//! [`Devices::run`], which runs a closure once a rank, each on its own thread with its
//! [`Communicator`]. The user writes no thread code; each rank's errors and panics come
//! back to the caller, and a rank that fails makes the others' collectives fail at once
//! instead of waiting for it.

use std::panic::Location;
use std::time::Duration;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use super::communicator::{Communicator, World};
use super::nccl_call::unique_id;
use super::nccl_comm::{NcclComm, ProcessWorld};
use super::rendezvous::Rendezvous;
use crate::device::{Backend, Device};
use crate::error::{panic_message, Error, Result};

/// How long a collective waits for the other ranks by default
/// ([`Devices::with_timeout`]): the simulator runs kernels slowly, and a rank may compute
/// for minutes between two collectives.
pub const DEFAULT_COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(600);

/// The devices of one process, rank `r` on device `r`: GPUs of the host, whose
/// collectives go through NCCL (loaded when [`Devices::run`] first needs it), or simulated
/// devices, each with its own memory and queue, whose collectives meet in the process.
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
#[derive(Debug)]
pub struct Devices {
    devices: Vec<Device>,
    timeout: Duration,
}

impl Devices {
    /// `n` devices as [`Device::new`] chooses one: `n` GPUs when the host has any
    /// (`WARPSPEED_BACKEND=cuda` insists on them), `n` simulated devices when it has none
    /// or `WARPSPEED_BACKEND=sim`.
    ///
    /// # Errors
    ///
    /// [`Error::NoDevice`] when GPUs are used and fewer than `n` are present (the message
    /// says how many); [`Error::UnknownBackend`] for another `WARPSPEED_BACKEND`.
    pub fn new(n: usize) -> Result<Devices> {
        match Device::new()?.backend() {
            Backend::Cuda => Devices::cuda(n),
            Backend::Simulator => Ok(Devices::simulated(n)),
        }
    }

    /// The first `n` GPUs of the host (at least one).
    ///
    /// # Errors
    ///
    /// [`Error::NoDevice`] when there are fewer.
    pub fn cuda(n: usize) -> Result<Devices> {
        let present = crate::cuda::gpu_count()?;
        if n > present {
            return Err(Error::NoDevice {
                reason: format!(
                    "{n} GPUs were asked for, the host has {present} \
                     (WARPSPEED_BACKEND=sim simulates any number)"
                ),
            });
        }
        Ok(Devices {
            devices: (0..n.max(1)).map(Device::cuda).collect::<Result<_>>()?,
            timeout: DEFAULT_COLLECTIVE_TIMEOUT,
        })
    }

    /// Every GPU of the host.
    ///
    /// # Errors
    ///
    /// [`Error::NoDevice`] when it has none.
    pub fn cuda_all() -> Result<Devices> {
        Devices::cuda(crate::cuda::gpu_count()?)
    }

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
        let ranks = self.devices.len();
        let world = if self.devices[0].backend() == Backend::Cuda {
            Shared::Nccl(unique_id()?, Arc::new(ProcessWorld::default()))
        } else {
            Shared::Simulated(Rendezvous::new(ranks, self.timeout))
        };
        let outcomes: Vec<std::thread::Result<Result<T>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .devices
                .iter()
                .enumerate()
                .map(|(rank, device)| {
                    let (f, world) = (&f, &world);
                    let timeout = self.timeout;
                    std::thread::Builder::new()
                        .name(format!("warpspeed rank {rank}"))
                        .spawn_scoped(scope, move || {
                            let comm = world.join(rank, ranks, device, timeout, made_at)?;
                            let out = std::panic::catch_unwind(AssertUnwindSafe(|| f(&comm)));
                            let failure = match &out {
                                Ok(Ok(_)) => None,
                                Ok(Err(e)) => Some(format!("rank {rank} failed: {e}")),
                                Err(p) => {
                                    Some(format!("rank {rank} panicked: {}", panic_message(&**p)))
                                }
                            };
                            let finished = comm.finish(failure);
                            match out {
                                Ok(Ok(value)) => finished.map(|()| value),
                                Ok(Err(e)) => Err(e),
                                Err(payload) => std::panic::resume_unwind(payload),
                            }
                        })
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

/// What the ranks of one [`Devices::run`] share.
enum Shared {
    Simulated(Arc<Rendezvous>),
    /// NCCL's id of the world, and the first failure among its ranks.
    Nccl([u8; 128], Arc<ProcessWorld>),
}

impl Shared {
    /// Rank `rank`'s communicator, made on its own thread (NCCL's ranks of one process
    /// join concurrently). A rank that cannot join fails the world.
    fn join(
        &self,
        rank: usize,
        ranks: usize,
        device: &Device,
        timeout: Duration,
        made_at: &'static Location<'static>,
    ) -> Result<Communicator> {
        let world = match self {
            Shared::Simulated(rendezvous) => World::Simulated(rendezvous.clone()),
            Shared::Nccl(id, process) => {
                let ctx = device.cuda_context().expect("a GPU device");
                let comm = NcclComm::init(*id, rank, ranks, ctx, timeout, process.clone())
                    .inspect_err(|e| process.fail(format!("rank {rank} could not join: {e}")))?;
                World::Nccl { comm, size: ranks }
            }
        };
        Ok(Communicator::new(rank, device.clone(), world, made_at))
    }
}
