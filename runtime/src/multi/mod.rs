//! Many devices (issue 23, in progress): collectives across the ranks of a world. Built so
//! far: the simulator's collectives (`rendezvous`: the ranks of one process meet at each
//! collective, checked for agreement, never hanging) and what they combine
//! (`reduce_op`), and NCCL looked up at run time (`nccl_lib`). To come: the set of devices,
//! NCCL's communicators, the launcher's
//! environment (docs/multi-gpu.md once it lands).

pub(crate) mod nccl_lib;
pub(crate) mod reduce_op;
pub(crate) mod rendezvous;
