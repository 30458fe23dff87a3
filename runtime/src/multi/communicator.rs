//! [`Communicator`]: one rank of a world, on one device, and the collectives it calls on
//! device buffers and views, queued on a [`Device`]'s queue or a [`Stream`] as a kernel
//! launch is.
//!
//! Every call checks its arguments before anything is queued (the buffers on the rank's
//! device, the lengths a collective needs, a root inside the world) and returns
//! `Err` otherwise. On simulated devices a call meets the other ranks' in the world's
//! rendezvous (`rendezvous.rs`), which checks that all ranks call the same collective and
//! names each rank's Rust line when they do not.

use std::panic::Location;
use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::bootstrap::{share_id, LaunchEnv};
use super::group::Group;
use super::nccl_call::{unique_id, NcclCall, NcclOp};
use super::nccl_comm::{NcclComm, ProcessWorld};
use super::reduce_op::{CollectiveScalar, ReduceOp};
use super::rendezvous::{Kind, Rendezvous};
use crate::device::{Device, Stream};
use crate::error::{Error, Result};
use crate::launch::LaunchTarget;
use crate::sim::{StreamId, DEVICE_QUEUE};
use crate::view::{AsDeviceView, AsDeviceViewMut, DeviceView, DeviceViewMut};

/// One rank of a world of devices: its rank, the world's size, its device, and the
/// collectives. Made by [`Devices::run`](super::Devices::run), one for each device, each
/// used on its own thread.
///
/// A collective takes the target to queue on (the rank's [`Device`] or one of its
/// [`Stream`]s), as a kernel's `launch` does, and the rank's buffers or views. Every rank
/// of the world calls the same collectives in the same order, with the same lengths and
/// element type; the simulator reports a rank that does not.
///
/// ```
/// # fn main() -> Result<(), warpspeed::Error> {
/// use warpspeed::{Devices, ReduceOp};
/// let devices = Devices::simulated(3);
/// let sums = devices.run(|comm| {
///     let dev = comm.device();
///     let mut buf = dev.upload(&[comm.rank() as u32 + 1; 4])?;
///     comm.all_reduce(dev, &mut buf, ReduceOp::Sum)?;
///     buf.download()
/// })?;
/// assert_eq!(sums, vec![vec![6u32; 4]; 3]); // 1 + 2 + 3 on every rank
/// # Ok(()) }
/// ```
pub struct Communicator {
    rank: usize,
    size: usize,
    device: Device,
    world: World,
    /// Where the world was made (`Devices::run`): where the rank leaves it, in messages.
    made_at: &'static Location<'static>,
}

/// The rank, the world's size, the device and how the ranks meet.
impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let world = match self.world {
            World::Simulated(_) => "simulated devices of this process",
            World::Nccl { .. } => "NCCL",
            World::Alone => "this process alone",
        };
        f.debug_struct("Communicator")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("device", &self.device)
            .field("world", &world)
            .finish()
    }
}

/// How the ranks of a world reach each other.
pub(crate) enum World {
    /// Simulated devices of one process: the ranks' threads meet in a rendezvous.
    Simulated(Arc<Rendezvous>),
    /// GPUs: an NCCL communicator a rank, in one process or one process a rank.
    Nccl { comm: NcclComm, size: usize },
    /// A world of one rank started without a launcher: collectives are copies, and NCCL
    /// is never loaded.
    Alone,
}

impl Communicator {
    pub(crate) fn new(
        rank: usize,
        device: Device,
        world: World,
        made_at: &'static Location<'static>,
    ) -> Communicator {
        let size = match &world {
            World::Simulated(rendezvous) => rendezvous.ranks(),
            World::Nccl { size, .. } => *size,
            World::Alone => 1,
        };
        Communicator {
            rank,
            size,
            device,
            world,
            made_at,
        }
    }

    /// This process's rank of a world of processes, one a GPU, as the launcher describes
    /// it: torchrun's `RANK`, `WORLD_SIZE`, `LOCAL_RANK` (the GPU of the host),
    /// `MASTER_ADDR` and `MASTER_PORT`, or Slurm's `SLURM_PROCID`, `SLURM_NTASKS`,
    /// `SLURM_LOCALID` with the user's `MASTER_ADDR`/`MASTER_PORT`. Rank 0 hands NCCL's id
    /// to the others over TCP at `MASTER_PORT + 1` (`WARPSPEED_PORT` to choose another).
    /// Collectives wait at most [`DEFAULT_COLLECTIVE_TIMEOUT`](super::DEFAULT_COLLECTIVE_TIMEOUT)
    /// ([`Communicator::from_env_with_timeout`]).
    ///
    /// Started without a launcher (no `WORLD_SIZE`), or with a world of one, it is rank 0
    /// of 1 on [`Device::new`]'s device (a GPU or the simulator): collectives are copies
    /// and NCCL is not loaded. A program written for many processes runs unchanged on
    /// one.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), warpspeed::Error> {
    /// use warpspeed::{Communicator, ReduceOp};
    /// // torchrun --nproc-per-node=2 --no-python target/release/my_program
    /// let comm = Communicator::from_env()?;
    /// let dev = comm.device();
    /// let mut counts = dev.upload(&[comm.rank() as u64 + 1; 8])?;
    /// comm.all_reduce(dev, &mut counts, ReduceOp::Sum)?;
    /// comm.synchronize()?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a launcher variable that is missing or not a
    /// number; [`Error::NcclUnavailable`] without NCCL; [`Error::Collective`] when the
    /// ranks do not all meet within the timeout (rank 0's port taken, a rank missing, a
    /// world size that is not rank 0's), and in a world of several processes without the
    /// GPU `LOCAL_RANK` names or with `WARPSPEED_BACKEND=sim` (simulated ranks live in one
    /// process: [`Devices::simulated`](super::Devices::simulated); the message says so). A
    /// process alone gets [`Device::new`]'s errors ([`Error::NoDevice`] with
    /// `WARPSPEED_BACKEND=cuda` and no GPU).
    #[track_caller]
    pub fn from_env() -> Result<Communicator> {
        Self::from_env_with_timeout(super::DEFAULT_COLLECTIVE_TIMEOUT)
    }

    /// [`Communicator::from_env`], with collectives (and the start) that wait at most
    /// `timeout` for the other ranks.
    #[track_caller]
    pub fn from_env_with_timeout(timeout: std::time::Duration) -> Result<Communicator> {
        let made_at = Location::caller();
        let env = match LaunchEnv::from_env()? {
            Some(env) if env.world_size > 1 => env,
            alone => {
                let device = match alone {
                    Some(env) if Device::new()?.backend() == crate::Backend::Cuda => {
                        Device::cuda(env.local_rank)?
                    }
                    _ => Device::new()?,
                };
                return Ok(Communicator::new(0, device, World::Alone, made_at));
            }
        };
        let device = match std::env::var("WARPSPEED_BACKEND")
            .ok()
            .as_deref()
            .map(str::trim)
        {
            Some("sim" | "simulator" | "cpu") => {
                return Err(Error::Collective {
                    message: format!(
                        "rank {} of {}: WARPSPEED_BACKEND=sim, but simulated devices of \
                         several processes cannot meet; simulate the world in one process \
                         with Devices::simulated({})",
                        env.rank, env.world_size, env.world_size
                    ),
                })
            }
            // `Device::new`'s advice (fall back to the simulator) does not hold here.
            _ => Device::cuda(env.local_rank).map_err(|e| match e {
                Error::NoDevice { reason } => Error::Collective {
                    message: format!(
                        "rank {} of {}: a world of several processes needs a GPU a process, \
                         and GPU {} (LOCAL_RANK) could not be opened: {reason}; without GPUs, \
                         simulate the world in one process with Devices::simulated({})",
                        env.rank, env.world_size, env.local_rank, env.world_size
                    ),
                },
                other => other,
            })?,
        };
        let ctx = device.cuda_context().expect("a GPU device").clone();
        let id = share_id(&env, unique_id, timeout)?;
        let world = Arc::new(ProcessWorld::default());
        let comm = NcclComm::init(id, env.rank, env.world_size, &ctx, timeout, world)?;
        let world = World::Nccl {
            comm,
            size: env.world_size,
        };
        Ok(Communicator::new(env.rank, device, world, made_at))
    }

    /// This rank's number, `0..size()`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The ranks in the world.
    pub fn size(&self) -> usize {
        self.size
    }

    /// This rank's device: its buffers and its launches.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Combines `buf` elementwise over the ranks with `op`, in place: afterwards every
    /// rank's `buf` holds the result. Every rank's `buf` has the same length.
    ///
    /// # Errors
    ///
    /// [`Error::DeviceMismatch`] for a buffer or target not on the rank's device;
    /// [`Error::Collective`] when the ranks disagree, one never calls it within the
    /// world's timeout, or one has left the world.
    #[track_caller]
    pub fn all_reduce<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        buf: &mut impl AsDeviceViewMut<Elem = T>,
        op: ReduceOp,
    ) -> Result<()> {
        let at = Location::caller();
        let what = "Communicator::all_reduce";
        self.in_place(target, what, buf, Kind::AllReduce(op), at)
    }

    /// [`Communicator::all_reduce`] into another buffer: `dst` gets the combination of
    /// every rank's `src`; `src` is unchanged. `dst` has `src`'s length.
    ///
    /// # Errors
    ///
    /// As [`Communicator::all_reduce`], and [`Error::LengthMismatch`] for a `dst` of
    /// another length.
    #[track_caller]
    pub fn all_reduce_into<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
        op: ReduceOp,
    ) -> Result<()> {
        let at = Location::caller();
        let what = "Communicator::all_reduce_into";
        self.exchange(target, what, src, dst, 1, 1, Kind::AllReduce(op), at)
    }

    /// Copies the root rank's `buf` into every other rank's `buf` (the root's is
    /// unchanged). Every rank's `buf` has the same length.
    ///
    /// # Errors
    ///
    /// As [`Communicator::all_reduce`], and [`Error::InvalidArgument`] for a root outside
    /// the world.
    #[track_caller]
    pub fn broadcast<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        buf: &mut impl AsDeviceViewMut<Elem = T>,
        root: usize,
    ) -> Result<()> {
        let at = Location::caller();
        let what = "Communicator::broadcast";
        self.check_root(root, what)?;
        self.in_place(target, what, buf, Kind::Broadcast { root }, at)
    }

    /// Combines `buf` over the ranks with `op` into the root's `buf`; the other ranks'
    /// `buf` is unchanged. Every rank's `buf` has the same length.
    ///
    /// # Errors
    ///
    /// As [`Communicator::broadcast`].
    #[track_caller]
    pub fn reduce<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        buf: &mut impl AsDeviceViewMut<Elem = T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        let at = Location::caller();
        let what = "Communicator::reduce";
        self.check_root(root, what)?;
        self.in_place(target, what, buf, Kind::Reduce { op, root }, at)
    }

    /// Every rank's `src`, in rank order, into every rank's `dst`: rank `r`'s `src` lands
    /// at `dst[r * src.len()..]`. `dst` is `size()` times as long as `src`.
    ///
    /// # Errors
    ///
    /// As [`Communicator::all_reduce_into`].
    #[track_caller]
    pub fn all_gather<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
    ) -> Result<()> {
        let at = Location::caller();
        let what = "Communicator::all_gather";
        self.exchange(target, what, src, dst, 1, self.size, Kind::AllGather, at)
    }

    /// Combines `src` over the ranks with `op`, and gives rank `r` the `r`-th part of the
    /// result: `dst` gets elements `r * dst.len()..(r + 1) * dst.len()`. `src` is `size()`
    /// times as long as `dst`.
    ///
    /// # Errors
    ///
    /// As [`Communicator::all_reduce_into`].
    #[track_caller]
    pub fn reduce_scatter<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
        op: ReduceOp,
    ) -> Result<()> {
        let at = Location::caller();
        let what = "Communicator::reduce_scatter";
        let kind = Kind::ReduceScatter(op);
        self.exchange(target, what, src, dst, self.size, 1, kind, at)
    }

    /// Sends all of `buf` (a buffer or a view) to rank `peer`, which receives it with
    /// [`Communicator::recv`] (or a [`Group`]'s receive) of the same length and type.
    ///
    /// On GPUs a send may wait for its receive; two ranks that send to each other first
    /// and receive second would wait forever: put such pairs in a [`Communicator::group`].
    ///
    /// # Errors
    ///
    /// As [`Group::send`] and [`Group::end`].
    #[track_caller]
    pub fn send<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        buf: &impl AsDeviceView<Elem = T>,
        peer: usize,
    ) -> Result<()> {
        let mut group = self.group(target);
        group.send(buf.as_device_view(), peer)?;
        group.end()
    }

    /// Receives into all of `buf` (a buffer or a view) what rank `peer` sends.
    ///
    /// # Errors
    ///
    /// As [`Group::recv`] and [`Group::end`].
    #[track_caller]
    pub fn recv<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        buf: &mut impl AsDeviceViewMut<Elem = T>,
        peer: usize,
    ) -> Result<()> {
        let mut group = self.group(target);
        group.recv(buf.as_device_view_mut(), peer)?;
        group.end()
    }

    /// A [`Group`] of sends and receives of element type `T`, queued on `target` (the
    /// rank's device or one of its streams) together when it ends.
    pub fn group<'a, T: CollectiveScalar>(&'a self, target: &'a impl LaunchTarget) -> Group<'a, T> {
        Group::new(self, target)
    }

    /// Waits until everything this rank queued on its device (its collectives among it)
    /// is done, and reports a collective that failed: on GPUs one whose communicator was
    /// aborted (a rank died, or never called it within the timeout) has left its buffers
    /// undefined, and this is where that shows.
    ///
    /// # Errors
    ///
    /// [`Error::Collective`] naming the collective that failed; the device's own errors
    /// ([`Device::synchronize`]).
    pub fn synchronize(&self) -> Result<()> {
        if let World::Nccl { comm, .. } = &self.world {
            comm.wait_pending()?;
        }
        self.device.synchronize()?;
        match &self.world {
            World::Nccl { comm, .. } => comm.check(),
            _ => Ok(()),
        }
    }

    /// After the rank's work ([`Devices::run`](super::Devices::run)): waits for its
    /// collectives when it succeeded; otherwise fails the world, so that the other ranks
    /// do not wait for collectives this one will never call.
    pub(crate) fn finish(&self, failure: Option<String>) -> Result<()> {
        match (&self.world, failure) {
            (World::Nccl { comm, .. }, Some(reason)) => {
                comm.fail(reason);
                Ok(())
            }
            (World::Nccl { comm, .. }, None) => comm.wait_pending(),
            _ => Ok(()),
        }
    }

    /// A collective whose result replaces `buf`.
    fn in_place<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        what: &str,
        buf: &mut impl AsDeviceViewMut<Elem = T>,
        kind: Kind,
        at: &'static Location<'static>,
    ) -> Result<()> {
        let buf = buf.as_device_view_mut();
        self.check_on_device(target.device(), what)?;
        self.check_on_device(buf.device(), what)?;
        match &self.world {
            World::Simulated(rendezvous) => {
                let mut buf = buf;
                let queue = sim_queue(target);
                let data = buf
                    .as_view()
                    .sim_read_on(queue, &|| format!("{what} reading"))?;
                let result = rendezvous.meet(self.rank, kind, data, at)?;
                buf.sim_write_on(queue, &result, &|| format!("{what} writing"))
            }
            World::Nccl { comm, .. } => {
                let count = buf.len();
                let (addr, _guard, _) = buf.into_arg(target.stream());
                let call = NcclCall {
                    op: NcclOp::Collective(kind),
                    send: addr,
                    recv: addr,
                    count,
                    data_type: T::NCCL_TYPE,
                };
                let describe = || describe_call(kind, count, T::NAME, at);
                comm.issue(&[call], cuda_stream(target), &describe)
            }
            // One rank: every collective leaves its buffer as it is.
            World::Alone => Ok(()),
        }
    }

    /// A collective from `src` into `dst`, where `src.len() * dst_per == dst.len() *
    /// src_per` (all_gather: `dst` is `size()` times `src`; reduce_scatter: the
    /// reverse).
    #[allow(clippy::too_many_arguments)]
    fn exchange<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        what: &str,
        src: &impl AsDeviceView<Elem = T>,
        dst: &mut impl AsDeviceViewMut<Elem = T>,
        src_per: usize,
        dst_per: usize,
        kind: Kind,
        at: &'static Location<'static>,
    ) -> Result<()> {
        let src: DeviceView<'_, T> = src.as_device_view();
        let mut dst: DeviceViewMut<'_, T> = dst.as_device_view_mut();
        self.check_on_device(target.device(), what)?;
        self.check_on_device(src.device(), what)?;
        self.check_on_device(dst.device(), what)?;
        if !src.len().is_multiple_of(src_per) {
            return Err(Error::InvalidArgument {
                what: what.into(),
                reason: format!(
                    "the source's {} elements do not split into {src_per} equal parts, one a rank",
                    src.len()
                ),
            });
        }
        let expected = src.len() / src_per * dst_per;
        if dst.len() != expected {
            return Err(Error::LengthMismatch {
                what: format!("{what}: the destination (of a source of {})", src.len()),
                expected,
                found: dst.len(),
            });
        }
        match &self.world {
            World::Simulated(rendezvous) => {
                let queue = sim_queue(target);
                let data = src.sim_read_on(queue, &|| format!("{what} reading"))?;
                let result = rendezvous.meet(self.rank, kind, data, at)?;
                dst.sim_write_on(queue, &result, &|| format!("{what} writing"))
            }
            World::Nccl { comm, .. } => {
                // NCCL's count: the source's for all_reduce and all_gather, the
                // destination's for reduce_scatter.
                let count = src.len().min(dst.len());
                let len = src.len();
                let (send, _read, _) = src.arg(target.stream());
                let (recv, _write, _) = dst.into_arg(target.stream());
                let call = NcclCall {
                    op: NcclOp::Collective(kind),
                    send,
                    recv,
                    count,
                    data_type: T::NCCL_TYPE,
                };
                let describe = || describe_call(kind, len, T::NAME, at);
                comm.issue(&[call], cuda_stream(target), &describe)
            }
            // One rank: the destination is the source.
            World::Alone => match target.stream() {
                Some(stream) => stream.copy(&src, &mut dst),
                None => dst.copy_from(&src),
            },
        }
    }

    /// How this rank reaches the others (`group.rs`).
    pub(super) fn world(&self) -> &World {
        &self.world
    }

    /// `Err` unless `device` is the rank's.
    pub(super) fn check_on_device(&self, device: &Device, what: &str) -> Result<()> {
        if device.is_same_device(&self.device) {
            return Ok(());
        }
        Err(Error::DeviceMismatch {
            what: format!("{what} on rank {}", self.rank),
            buffer_device: device.describe(),
            device: format!("rank {}'s device, {}", self.rank, self.device.describe()),
        })
    }

    fn check_root(&self, root: usize, what: &str) -> Result<()> {
        if root < self.size {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            what: what.into(),
            reason: format!("root {root} in a world of {} ranks", self.size),
        })
    }
}

impl Drop for Communicator {
    /// Leaves the world: on simulated devices, ranks waiting for this one in a collective
    /// get an `Err` at once; on GPUs the NCCL communicator is finalised (`nccl_comm.rs`).
    fn drop(&mut self) {
        if let World::Simulated(rendezvous) = &self.world {
            rendezvous.leave(self.rank, self.made_at);
        }
    }
}

/// The simulator's queue of `target` (checked to be on the rank's device).
fn sim_queue(target: &impl LaunchTarget) -> StreamId {
    target.stream().map_or(DEVICE_QUEUE, Stream::sim_id)
}

/// The CUDA stream of `target` (on a GPU rank).
fn cuda_stream(target: &impl LaunchTarget) -> &Arc<CudaStream> {
    target
        .stream()
        .and_then(Stream::cuda_stream)
        .or_else(|| target.device().cuda_stream())
        .expect("an NCCL world's devices are GPUs")
}

/// A collective as the watchdog's messages name it.
fn describe_call(kind: Kind, len: usize, ty: &str, at: &Location<'_>) -> String {
    format!("{} of {len} {ty} at {at}", kind.describe())
}
