//! Many devices (issue 23, in progress): a world of ranks, one a device, and the
//! collectives between them. Built so far: [`Devices`] (simulated devices of one process,
//! a thread a rank in [`Devices::run`]), [`Communicator`] (a rank's collectives on device
//! buffers and views), the simulator's collectives (`rendezvous`: the ranks meet at each
//! collective, checked for agreement, never hanging), what they combine (`reduce_op`),
//! and NCCL looked up at run time (`nccl_lib`). To come: NCCL's communicators for GPUs,
//! the launcher's environment (docs/multi-gpu.md once it lands).

mod bootstrap;
mod communicator;
mod devices;
mod group;
mod mailbox;
mod nccl_comm;
pub(crate) mod nccl_lib;
pub(crate) mod reduce_op;
pub(crate) mod rendezvous;

pub use communicator::Communicator;
pub use devices::{Devices, DEFAULT_COLLECTIVE_TIMEOUT};
pub use group::Group;
pub use reduce_op::{CollectiveScalar, ReduceOp};
