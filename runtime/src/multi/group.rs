//! Point-to-point transfers: [`Group`], sends and receives between ranks queued together
//! (NCCL's `ncclGroupStart`/`ncclGroupEnd`), so that two ranks that send to each other do
//! not each wait for the other's receive. `Communicator::send` and `recv` are groups of
//! one.

use std::panic::Location;

use super::communicator::{Communicator, World};
use super::nccl_call::{NcclCall, NcclOp};
use super::reduce_op::CollectiveScalar;
use crate::device::{Device, Stream};
use crate::error::{Error, Result};
use crate::launch::LaunchTarget;
use crate::sim::{StreamId, DEVICE_QUEUE};
use crate::view::{DeviceView, DeviceViewMut};

/// Sends and receives of one element type queued together on a device or stream, made by
/// [`Communicator::group`]: nothing is queued until [`Group::end`], and then all at once,
/// so the transfers of a halo exchange (each rank sends to and receives from both
/// neighbours) cannot wait for each other.
///
/// Between two ranks, sends and receives match in the order they are queued; each
/// receive has its send's length and type.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// use warpspeed::Devices;
/// // A ring: every rank passes its number to the next one.
/// let got = Devices::simulated(3).run(|comm| {
///     let (dev, n) = (comm.device(), comm.size());
///     let mine = dev.upload(&[comm.rank() as i32])?;
///     let mut from_left = dev.zeros::<i32>(1)?;
///     let mut group = comm.group(dev);
///     group.send(&mine, (comm.rank() + 1) % n)?;
///     group.recv(&mut from_left, (comm.rank() + n - 1) % n)?;
///     group.end()?;
///     from_left.download()
/// })?;
/// assert_eq!(got, vec![vec![2], vec![0], vec![1]]);
/// # Ok(()) }
/// ```
#[must_use = "a group queues nothing until `end` is called"]
pub struct Group<'a, T: CollectiveScalar> {
    comm: &'a Communicator,
    device: &'a Device,
    stream: Option<&'a Stream>,
    sends: Vec<Transfer<DeviceView<'a, T>>>,
    recvs: Vec<Transfer<DeviceViewMut<'a, T>>>,
}

/// One send or receive: the memory, the peer, the caller's line.
struct Transfer<V> {
    view: V,
    peer: usize,
    at: &'static Location<'static>,
}

impl<'a, T: CollectiveScalar> Group<'a, T> {
    pub(crate) fn new(comm: &'a Communicator, target: &'a impl LaunchTarget) -> Group<'a, T> {
        Group {
            comm,
            device: target.device(),
            stream: target.stream(),
            sends: Vec::new(),
            recvs: Vec::new(),
        }
    }

    /// Adds a send of all of `buf` to rank `peer`, which receives it with a receive of the
    /// same length and type. `buf` is `&buffer`, `&view`, or a view made in the call
    /// (`buf.slice(..n)`): the group keeps it until it ends.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a peer outside the world; [`Error::DeviceMismatch`]
    /// for memory not on the rank's device.
    #[track_caller]
    pub fn send(&mut self, buf: impl Into<DeviceView<'a, T>>, peer: usize) -> Result<()> {
        let view = buf.into();
        self.check(view.device(), peer, "Group::send")?;
        self.sends.push(Transfer {
            view,
            peer,
            at: Location::caller(),
        });
        Ok(())
    }

    /// Adds a receive into all of `buf` from rank `peer`. `buf` is `&mut buffer`, `&mut
    /// view`, or a view made in the call (`buf.slice_mut(..n)`).
    ///
    /// # Errors
    ///
    /// As [`Group::send`].
    #[track_caller]
    pub fn recv(&mut self, buf: impl Into<DeviceViewMut<'a, T>>, peer: usize) -> Result<()> {
        let view = buf.into();
        self.check(view.device(), peer, "Group::recv")?;
        self.recvs.push(Transfer {
            view,
            peer,
            at: Location::caller(),
        });
        Ok(())
    }

    /// Queues every send and receive of the group.
    ///
    /// # Errors
    ///
    /// [`Error::Collective`] when a receive's send has another length or type, never
    /// comes within the timeout, or its sender left the world (the simulator says which
    /// lines); on GPUs, NCCL's errors.
    pub fn end(self) -> Result<()> {
        let rank = self.comm.rank();
        match self.comm.world() {
            World::Simulated(rendezvous) => {
                let queue: StreamId = self.stream.map_or(DEVICE_QUEUE, Stream::sim_id);
                for s in &self.sends {
                    let data = s
                        .view
                        .sim_read_on(queue, &|| "Group::send reading".into())?;
                    rendezvous.mailbox.post(rank, s.peer, data, s.at);
                }
                for mut r in self.recvs {
                    let data = rendezvous.mailbox.take(r.peer, rank, r.view.len(), r.at)?;
                    r.view
                        .sim_write_on(queue, &data, &|| "Group::recv writing".into())?;
                }
                Ok(())
            }
            World::Alone => {
                // Rank 0 of 1 sends to itself: each receive takes the next send.
                let mut sends = self.sends.into_iter();
                for mut r in self.recvs {
                    let Some(s) = sends.next() else {
                        return Err(unmatched(&r, "no send of this group matches it"));
                    };
                    if s.view.len() != r.view.len() {
                        let why = format!("the send at {} has {} elements", s.at, s.view.len());
                        return Err(unmatched(&r, &why));
                    }
                    match self.stream {
                        Some(stream) => stream.copy(&s.view, &mut r.view)?,
                        None => r.view.copy_from(&s.view)?,
                    }
                }
                Ok(())
            }
            World::Nccl { comm, .. } => {
                let mut calls = Vec::new();
                let mut guards = Vec::new();
                let mut lines = Vec::new();
                for s in self.sends {
                    let (len, at) = (s.view.len(), s.at);
                    let (addr, guard, _) = s.view.arg(self.stream);
                    guards.push(guard);
                    calls.push(call::<T>(NcclOp::Send { peer: s.peer }, addr, len));
                    lines.push(format!(
                        "send of {len} {} to rank {} at {at}",
                        T::NAME,
                        s.peer
                    ));
                }
                for r in self.recvs {
                    let (len, at) = (r.view.len(), r.at);
                    let (addr, guard, _) = r.view.into_arg(self.stream);
                    guards.push(guard);
                    calls.push(call::<T>(NcclOp::Recv { peer: r.peer }, addr, len));
                    lines.push(format!(
                        "recv of {len} {} from rank {} at {at}",
                        T::NAME,
                        r.peer
                    ));
                }
                let stream = self
                    .stream
                    .and_then(Stream::cuda_stream)
                    .or_else(|| self.device.cuda_stream())
                    .expect("an NCCL world's devices are GPUs");
                comm.issue(&calls, stream, &|| lines.join(", "))
            }
        }
    }

    fn check(&self, device: &Device, peer: usize, what: &str) -> Result<()> {
        self.comm.check_on_device(self.device, what)?;
        self.comm.check_on_device(device, what)?;
        if peer >= self.comm.size() {
            return Err(Error::InvalidArgument {
                what: format!("{what} on rank {}", self.comm.rank()),
                reason: format!("peer {peer} in a world of {} ranks", self.comm.size()),
            });
        }
        Ok(())
    }
}

/// A transfer's NCCL call (a send reads `addr`, a receive writes it).
fn call<T: CollectiveScalar>(op: NcclOp, addr: u64, count: usize) -> NcclCall {
    NcclCall {
        op,
        send: addr,
        recv: addr,
        count,
        data_type: T::NCCL_TYPE,
    }
}

fn unmatched<V>(r: &Transfer<V>, why: &str) -> Error {
    Error::Collective {
        message: format!("rank 0 of 1 receives from itself at {}, but {why}", r.at),
    }
}
