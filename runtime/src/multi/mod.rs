//! Many devices: a world of ranks, one a device, and the collectives between them
//! (docs/multi-gpu.md). [`Devices`] is the devices of one process, a thread a rank in
//! [`Devices::run`]. [`Communicator`] is a rank's collectives on buffers and views, and
//! [`Group`] its sends and receives. Below them:
//! - `rendezvous` and `mailbox`: the simulator's collectives and point-to-point transfers,
//!   checked for agreement and never hanging;
//! - `reduce_op`: what the collectives combine;
//! - `nccl_comm`: NCCL's communicators on GPUs, joined without blocking and watched;
//! - `nccl_call`: NCCL's calls at the level of pointers;
//! - `nccl_lib`: NCCL looked up at run time;
//! - `bootstrap`: one process a rank under torchrun or Slurm.

mod bootstrap;
mod communicator;
mod devices;
mod group;
mod mailbox;
mod nccl_call;
mod nccl_comm;
pub(crate) mod nccl_lib;
pub(crate) mod reduce_op;
pub(crate) mod rendezvous;

pub use communicator::Communicator;
pub use devices::{Devices, DEFAULT_COLLECTIVE_TIMEOUT};
pub use group::Group;
pub use reduce_op::{CollectiveScalar, ReduceOp};
