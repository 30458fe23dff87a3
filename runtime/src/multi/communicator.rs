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

/// How the ranks of a world reach each other.
pub(crate) enum World {
    /// Simulated devices of one process: the ranks' threads meet in a rendezvous.
    Simulated(Arc<Rendezvous>),
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
        };
        Communicator {
            rank,
            size,
            device,
            world,
            made_at,
        }
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

    /// A collective whose result replaces `buf`.
    fn in_place<T: CollectiveScalar>(
        &self,
        target: &impl LaunchTarget,
        what: &str,
        buf: &mut impl AsDeviceViewMut<Elem = T>,
        kind: Kind,
        at: &'static Location<'static>,
    ) -> Result<()> {
        let mut buf = buf.as_device_view_mut();
        let queue = self.queue(target, what)?;
        self.check_on_device(buf.device(), what)?;
        let data = buf
            .as_view()
            .sim_read_on(queue, &|| format!("{what} reading"))?;
        let result = self.meet(kind, data, at)?;
        buf.sim_write_on(queue, &result, &|| format!("{what} writing"))
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
        let queue = self.queue(target, what)?;
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
        let data = src.sim_read_on(queue, &|| format!("{what} reading"))?;
        let result = self.meet(kind, data, at)?;
        dst.sim_write_on(queue, &result, &|| format!("{what} writing"))
    }

    /// The rank's part of a collective: every rank's data goes in, the rank's result
    /// comes out.
    fn meet<T: CollectiveScalar>(
        &self,
        kind: Kind,
        data: Vec<T>,
        at: &'static Location<'static>,
    ) -> Result<Vec<T>> {
        match &self.world {
            World::Simulated(rendezvous) => rendezvous.meet(self.rank, kind, data, at),
        }
    }

    /// The simulator's queue of `target`, which must be on the rank's device.
    fn queue(&self, target: &impl LaunchTarget, what: &str) -> Result<StreamId> {
        self.check_on_device(target.device(), what)?;
        Ok(target.stream().map_or(DEVICE_QUEUE, Stream::sim_id))
    }

    fn check_on_device(&self, device: &Device, what: &str) -> Result<()> {
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
    /// Leaves the world: ranks waiting for this one in a collective get an `Err` at once.
    fn drop(&mut self) {
        match &self.world {
            World::Simulated(rendezvous) => rendezvous.leave(self.rank, self.made_at),
        }
    }
}
