//! Many devices (issue 23, in progress): collectives across the ranks of a world. Built so
//! far: the simulator's collectives (`rendezvous`: the ranks of one process meet at each
//! collective, checked for agreement, never hanging) and what they combine
//! (`reduce_op`). To come: the set of devices, NCCL loaded at run time, the launcher's
//! environment (docs/multi-gpu.md once it lands).

pub(crate) mod reduce_op;
pub(crate) mod rendezvous;
