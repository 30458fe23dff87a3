//! [`ThreadCtx`]: what one simulated thread sees — CUDA's index variables, the kernel's
//! arguments, shared memory, and the sync points (barriers, warp collectives, grid sync,
//! print), which are `async` and suspend the thread until the block executor releases them.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{fence, Ordering};
use std::task::{Context, Poll};

use super::block::{BarrierKind, BarrierWait, Block, Slot, State};
use super::check::{raise, Failure};
use super::cp_async::{self, Queue};
use super::handles::{Slice, SliceMut};
use super::mbarrier::MbarrierRef;
use super::mma::{Fragment, MmaElem, MmaScalar, MmaSpec, WIDE};
use super::shadow::{AccessKind, Accessor, Rec, Verdict, SITE_UNKNOWN};
use super::shared::TooMuchShared;
use super::site::{src_loc_by_id, SrcLoc};
use super::tma::SimTensorMap;
use super::track::{Track, Tracked};
use super::warp::{check_arrival, WarpOp, WarpWait};
use crate::dim::Dim3;
use crate::error::{Error, RaceAccess};
use crate::mma::MmaShape;
use crate::scalar::{Arg, KernelScalar};

/// One simulated thread: where it stands in the grid, and its block's shared state.
pub struct ThreadCtx<'a> {
    block: &'a Block<'a>,
    /// Linear index in the block (x fastest).
    tid: u32,
    thread_idx: Dim3,
    /// This thread's `cp_async` copies in flight.
    cp: RefCell<Queue>,
    /// Per mbarrier (by address), the phases this thread has seen complete (a wait).
    seen: RefCell<std::collections::HashMap<usize, u64>>,
    /// This thread's `wgmma`s in flight.
    wgmma: RefCell<super::wgmma::Queue>,
}

/// Returns `Pending` once, then `Ready`: the suspension of a sync point. The executor
/// polls the thread again only once it has released it.
pub(super) struct Suspend(bool);

impl Suspend {
    /// A suspension (an mbarrier wait's).
    pub(super) fn new() -> Suspend {
        Suspend(false)
    }
}

impl Future for Suspend {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

impl<'a> ThreadCtx<'a> {
    pub(crate) fn new(block: &'a Block<'a>, tid: u32) -> ThreadCtx<'a> {
        ThreadCtx {
            block,
            tid,
            thread_idx: block.thread_idx(tid),
            cp: RefCell::default(),
            seen: RefCell::default(),
            wgmma: RefCell::default(),
        }
    }

    pub fn thread_idx(&self) -> Dim3 {
        self.thread_idx
    }
    pub fn block_idx(&self) -> Dim3 {
        self.block.idx
    }
    pub fn block_dim(&self) -> Dim3 {
        self.block.launch.cfg.block
    }
    pub fn grid_dim(&self) -> Dim3 {
        self.block.launch.cfg.grid
    }
    /// Numba's `cuda.grid(1)`: the global index in x.
    pub fn grid_1d(&self) -> usize {
        self.block_idx().x as usize * self.block_dim().x as usize + self.thread_idx.x as usize
    }
    pub fn grid_2d(&self) -> (usize, usize) {
        (
            self.grid_1d(),
            self.block_idx().y as usize * self.block_dim().y as usize + self.thread_idx.y as usize,
        )
    }
    pub fn grid_3d(&self) -> (usize, usize, usize) {
        let (x, y) = self.grid_2d();
        (
            x,
            y,
            self.block_idx().z as usize * self.block_dim().z as usize + self.thread_idx.z as usize,
        )
    }
    /// Numba's `cuda.gridsize(1)`: threads in the whole grid along x.
    pub fn grid_stride_1d(&self) -> usize {
        self.grid_dim().x as usize * self.block_dim().x as usize
    }
    /// The lane in the warp: the linear thread index in the block (x fastest) mod 32.
    pub fn lane_id(&self) -> u32 {
        self.tid % 32
    }
    /// `__activemask()`: the lanes of this thread's warp that are here with it. A sync
    /// point of the warp: it waits until no lane of the warp can run without waiting
    /// for someone, then gives the lanes waiting at `active_mask()` at this same site
    /// (lanes that exited, or wait elsewhere, have diverged from this one).
    pub async fn active_mask(&self, at: &'static SrcLoc) -> u32 {
        self.slot().state.set(State::ActiveMask(at.id()));
        Suspend(false).await;
        self.slot().result.get() as u32
    }

    /// `printf` of `text` (`gpu_print!`, formatted by the generated code): written to
    /// stdout (or the buffer of [`capture_sim_prints`](super::capture_sim_prints)) in the
    /// order a GPU gives. A convergence point of the warp like [`ThreadCtx::active_mask`]:
    /// the lanes of the warp that reach this print together write their texts in lane
    /// order, as one piece; lanes that exited or wait elsewhere are not waited for.
    pub async fn print(&self, text: String, at: &'static SrcLoc) {
        let slot = self.slot();
        slot.text.set(Some(text));
        slot.state.set(State::Print(at.id()));
        Suspend(false).await;
    }

    // ---- arguments

    pub(super) fn arg(&self, i: usize) -> &Arg {
        match self.block.launch.args.get(i) {
            Some(arg) => arg,
            None => panic!(
                "kernel ABI mismatch: argument {i} asked for, but the launch passed {}",
                self.block.launch.args.len()
            ),
        }
    }

    pub(super) fn arg_buffer(&self, i: usize) -> (u64, usize) {
        match self.arg(i) {
            Arg::Slice { addr, len } => (*addr, *len as usize),
            Arg::Scalar { .. } | Arg::Bytes(_) | Arg::Texture(_) | Arg::TensorMap(_) => {
                panic!("kernel ABI mismatch: argument {i} is not a slice")
            }
        }
    }

    /// Race-check tracking of slice argument `i`.
    pub(super) fn arg_track(&self, i: usize) -> Track {
        if self.block.checks {
            Track::global(i)
        } else {
            Track::NONE
        }
    }

    /// Scalar argument `i`.
    pub fn arg_scalar<T: KernelScalar>(&self, i: usize) -> T {
        match self.arg(i) {
            Arg::Slice { .. } | Arg::Texture(_) | Arg::TensorMap(_) => {
                panic!("kernel ABI mismatch: argument {i} is memory where a scalar belongs")
            }
            scalar => scalar.scalar(),
        }
    }

    // ---- shared memory

    pub(super) fn shared_static<T: KernelScalar>(
        &self,
        len: usize,
        at: &'static SrcLoc,
    ) -> (*mut T, usize, Track) {
        let launch = self.block.launch;
        let got = self.block.shared.get_static(
            at,
            len,
            std::mem::size_of::<T>(),
            self.block.checks,
            launch.cfg.shared_mem_bytes as usize,
            launch.static_shared_limit as usize,
            launch.shared_limit as usize,
        );
        match got {
            Ok((ptr, len, region)) => (ptr.as_ptr().cast(), len, self.shared_track(region)),
            Err(TooMuchShared {
                static_bytes,
                over_static_limit,
            }) => {
                let reason = if over_static_limit {
                    format!(
                        "the kernel's shared arrays need {static_bytes} bytes per block (the \
                         last one at {at}), over the {} bytes of static shared memory a block \
                         may have (use dynamic_shared for more)",
                        launch.static_shared_limit
                    )
                } else {
                    format!(
                        "the kernel's shared arrays need {static_bytes} bytes per block (the \
                         last one at {at}), which with {} bytes of dynamic shared memory is over \
                         the device's {} bytes per block",
                        launch.cfg.shared_mem_bytes, launch.shared_limit
                    )
                };
                raise(Failure::Report(Box::new(Error::InvalidLaunch {
                    kernel: launch.kernel.name.to_string(),
                    config: launch.cfg,
                    reason,
                })))
            }
        }
    }

    /// The launch's dynamic shared memory as `T`s (see `dynamic_shared`).
    pub(super) fn shared_dynamic<T: KernelScalar>(
        &self,
        at: &'static SrcLoc,
    ) -> (*mut T, usize, Track) {
        let bytes = self.block.launch.cfg.shared_mem_bytes as usize;
        let (ptr, len, region) =
            self.block
                .shared
                .get_dynamic(at, bytes, std::mem::size_of::<T>(), self.block.checks);
        (ptr.as_ptr().cast(), len, self.shared_track(region))
    }

    fn shared_track(&self, region: u32) -> Track {
        if self.block.checks {
            Track::shared(region)
        } else {
            Track::NONE
        }
    }

    // ---- sync points

    pub(super) fn slot(&self) -> &Slot {
        &self.block.slots[self.tid as usize]
    }

    async fn barrier(&self, kind: BarrierKind, pred: bool, at: &'static SrcLoc) -> u64 {
        self.slot().state.set(State::Barrier(BarrierWait {
            kind,
            site: at.id(),
            pred,
        }));
        Suspend(false).await;
        self.slot().result.get()
    }

    /// `__syncthreads()`: waits until every live thread of the block is here.
    pub async fn sync_threads(&self, at: &'static SrcLoc) {
        self.barrier(BarrierKind::Plain, false, at).await;
    }

    /// `__syncthreads_count(pred)`: the number of threads whose `pred` is true.
    pub async fn sync_threads_count(&self, pred: bool, at: &'static SrcLoc) -> u32 {
        self.barrier(BarrierKind::Count, pred, at).await as u32
    }

    /// `__syncthreads_and(pred)`: whether `pred` is true for every thread.
    pub async fn sync_threads_and(&self, pred: bool, at: &'static SrcLoc) -> bool {
        self.barrier(BarrierKind::And, pred, at).await != 0
    }

    /// `__syncthreads_or(pred)`: whether `pred` is true for some thread.
    pub async fn sync_threads_or(&self, pred: bool, at: &'static SrcLoc) -> bool {
        self.barrier(BarrierKind::Or, pred, at).await != 0
    }

    /// `this_grid().sync()`: waits until every live thread of the grid is here. Only in a
    /// cooperative launch (`launch_cooperative`), where every block of the grid runs at
    /// once; elsewhere it stops the launch with [`Error::InvalidLaunch`]. Every block must
    /// reach it with thread (0, 0, 0) live, as on the GPU; accesses before it are ordered
    /// before accesses after it, across blocks, for the race checks.
    pub async fn sync_grid(&self, at: &'static SrcLoc) {
        let launch = self.block.launch;
        if !launch.cooperative {
            raise(Failure::Report(Box::new(Error::InvalidLaunch {
                kernel: launch.kernel.name.to_string(),
                config: launch.cfg,
                reason: format!(
                    "the kernel calls this_grid().sync() (at {at}), which needs every block \
                     of the grid running at once: launch it with launch_cooperative"
                ),
            })));
        }
        self.barrier(BarrierKind::Grid, false, at).await;
    }

    pub(crate) async fn warp(
        &self,
        op: WarpOp,
        mask: u32,
        value: u64,
        arg: u32,
        width: u32,
        at: &'static SrcLoc,
    ) -> u64 {
        let w = self.tid / 32;
        if let Err(detail) = check_arrival(op, self.tid % 32, mask, width) {
            raise(Failure::Report(Box::new(self.block.divergent(format!(
                "thread {} (lane {} of warp {w}) calls {} at {at}: {detail}",
                self.thread_idx,
                self.tid % 32,
                op.name()
            )))));
        }
        self.slot().state.set(State::Warp(WarpWait {
            op,
            mask,
            site: at.id(),
            value,
            arg,
            width,
        }));
        Suspend(false).await;
        self.slot().result.get()
    }

    /// `__syncwarp(mask)`.
    pub async fn sync_warp(&self, mask: u32, at: &'static SrcLoc) {
        self.warp(WarpOp::Sync, mask, 0, 0, 32, at).await;
    }

    /// `__ballot_sync(mask, pred)`: bit `l` set where lane `l` of the mask has `pred`.
    pub async fn ballot_sync(&self, mask: u32, pred: bool, at: &'static SrcLoc) -> u32 {
        self.warp(WarpOp::Ballot, mask, u64::from(pred), 0, 32, at)
            .await as u32
    }

    /// `__all_sync(mask, pred)`.
    pub async fn all_sync(&self, mask: u32, pred: bool, at: &'static SrcLoc) -> bool {
        self.warp(WarpOp::All, mask, u64::from(pred), 0, 32, at)
            .await
            != 0
    }

    /// `__any_sync(mask, pred)`.
    pub async fn any_sync(&self, mask: u32, pred: bool, at: &'static SrcLoc) -> bool {
        self.warp(WarpOp::Any, mask, u64::from(pred), 0, 32, at)
            .await
            != 0
    }

    /// `__shfl_sync(mask, v, src_lane, width)`.
    pub async fn shfl_sync<T: KernelScalar>(
        &self,
        mask: u32,
        v: T,
        src_lane: u32,
        width: u32,
        at: &'static SrcLoc,
    ) -> T {
        T::from_bits(
            self.warp(WarpOp::Shfl, mask, v.to_bits(), src_lane, width, at)
                .await,
        )
    }

    /// `__shfl_up_sync(mask, v, delta, width)`.
    pub async fn shfl_up_sync<T: KernelScalar>(
        &self,
        mask: u32,
        v: T,
        delta: u32,
        width: u32,
        at: &'static SrcLoc,
    ) -> T {
        T::from_bits(
            self.warp(WarpOp::ShflUp, mask, v.to_bits(), delta, width, at)
                .await,
        )
    }

    /// `__shfl_down_sync(mask, v, delta, width)`.
    pub async fn shfl_down_sync<T: KernelScalar>(
        &self,
        mask: u32,
        v: T,
        delta: u32,
        width: u32,
        at: &'static SrcLoc,
    ) -> T {
        T::from_bits(
            self.warp(WarpOp::ShflDown, mask, v.to_bits(), delta, width, at)
                .await,
        )
    }

    /// `__shfl_xor_sync(mask, v, lane_mask, width)`.
    pub async fn shfl_xor_sync<T: KernelScalar>(
        &self,
        mask: u32,
        v: T,
        lane_mask: u32,
        width: u32,
        at: &'static SrcLoc,
    ) -> T {
        T::from_bits(
            self.warp(WarpOp::ShflXor, mask, v.to_bits(), lane_mask, width, at)
                .await,
        )
    }

    /// `acc.mma_sync(a, b)`: `mma.sync.aligned` with D = C = `acc`, a collective of the
    /// whole warp (docs/tensor-cores.md). `shape` and the element types name the
    /// instruction; the macro passes only rows of its table.
    pub async fn mma_sync<
        A: MmaScalar,
        B: MmaScalar,
        C: MmaScalar,
        const NA: usize,
        const NB: usize,
        const NC: usize,
    >(
        &self,
        acc: &mut Fragment<C, NC>,
        a: Fragment<A, NA>,
        b: Fragment<B, NB>,
        shape: MmaShape,
        at: &'static SrcLoc,
    ) {
        let mut wide = [0u32; WIDE];
        let words =
            (a.x.iter().map(|v| v.to_bits() as u32)).chain(b.x.iter().map(|v| v.to_bits() as u32));
        for (w, v) in wide
            .iter_mut()
            .zip(words.chain(acc.x.iter().map(|v| v.to_bits() as u32)))
        {
            *w = v;
        }
        self.slot().wide.set(wide);
        let spec = MmaSpec {
            shape,
            // f32 fragments of the tf32 shape multiply as tf32.
            ab: match shape {
                MmaShape::M16N8K8Tf32 => MmaElem::Tf32,
                _ => A::ELEM,
            },
            b: match shape {
                MmaShape::M16N8K8Tf32 => MmaElem::Tf32,
                _ => B::ELEM,
            },
            acc: C::ELEM,
        };
        self.warp(WarpOp::Mma(spec), u32::MAX, 0, 0, 32, at).await;
        let d = self.slot().wide.get();
        for (x, w) in acc.x.iter_mut().zip(d) {
            *x = C::from_bits(u64::from(w));
        }
    }

    /// `frag.ldmatrix(&tile, row)` (`trans`: `ldmatrix_trans`): PTX `ldmatrix.sync.aligned`
    /// with one 8 x 8 matrix per two elements of the fragment. Lanes `0..8 * num` each read
    /// the 8-element row `tile[row..row + 8]` (checked as that sub-slice is), lanes 0-7
    /// matrix 0's rows, 8-15 matrix 1's, ...; the other lanes' `row` is not read. Then each
    /// lane gets its two elements of each matrix (docs/tensor-cores.md).
    pub async fn ldmatrix<T: MmaScalar, const N: usize>(
        &self,
        frag: &mut Fragment<T, N>,
        tile: Slice<T>,
        row: usize,
        trans: bool,
        at: &'static SrcLoc,
    ) {
        let num = (N / 2) as u32;
        let mut wide = [0u32; WIDE];
        if self.tid % 32 < 8 * num {
            let r = tile.sub(row, Some(row.wrapping_add(8)), at);
            if !r.offset().is_multiple_of(8) {
                panic!(
                    "ldmatrix at {at}: the row starting at element {row} of the shared array is not \
                     16-byte aligned (ldmatrix reads rows at multiples of 8 elements)"
                );
            }
            for (j, w) in wide.iter_mut().take(8).enumerate() {
                *w = r.load(self, j, at).to_bits() as u32;
            }
        }
        self.slot().wide.set(wide);
        self.warp(WarpOp::LdMatrix { num, trans }, u32::MAX, 0, 0, 32, at)
            .await;
        let got = self.slot().wide.get();
        for (x, w) in frag.x.iter_mut().zip(got) {
            *x = T::from_bits(u64::from(w));
        }
    }

    /// `frag.stmatrix(&mut tile, row)` (`trans`: `stmatrix_trans`): PTX
    /// `stmatrix.sync.aligned`, [`ThreadCtx::ldmatrix`]'s inverse: lanes `0..8 * num` each
    /// store one 8-element row, `tile[row..row + 8]` (checked as that sub-slice is).
    pub async fn stmatrix<T: MmaScalar, const N: usize>(
        &self,
        frag: Fragment<T, N>,
        tile: SliceMut<T>,
        row: usize,
        trans: bool,
        at: &'static SrcLoc,
    ) {
        let num = (N / 2) as u32;
        let mut wide = [0u32; WIDE];
        for (w, x) in wide.iter_mut().zip(frag.x) {
            *w = x.to_bits() as u32;
        }
        self.slot().wide.set(wide);
        self.warp(WarpOp::StMatrix { num, trans }, u32::MAX, 0, 0, 32, at)
            .await;
        if self.tid % 32 < 8 * num {
            let r = tile.sub(row, Some(row.wrapping_add(8)), at);
            if !r.as_slice().offset().is_multiple_of(8) {
                panic!(
                    "stmatrix at {at}: the row starting at element {row} of the shared array is not \
                     16-byte aligned (stmatrix writes rows at multiples of 8 elements)"
                );
            }
            let got = self.slot().wide.get();
            for (j, &w) in got.iter().take(8).enumerate() {
                r.store(self, j, T::from_bits(u64::from(w)), at);
            }
        }
    }

    /// `__match_any_sync(mask, v)`: the lanes of the mask whose `v` has the same bits.
    pub async fn match_any_sync<T: KernelScalar>(
        &self,
        mask: u32,
        v: T,
        at: &'static SrcLoc,
    ) -> u32 {
        self.warp(WarpOp::MatchAny, mask, v.to_bits(), 0, 32, at)
            .await as u32
    }

    /// Lets the other threads of the block run once (atomics that others may wait on).
    pub(crate) async fn yield_now(&self) {
        self.slot().state.set(State::Yielded);
        Suspend(false).await;
    }

    // ---- fences (not sync points)

    /// `__threadfence()`.
    pub fn thread_fence(&self) {
        fence(Ordering::SeqCst);
    }
    /// `__threadfence_block()`.
    pub fn thread_fence_block(&self) {
        fence(Ordering::SeqCst);
    }
    /// `__threadfence_system()`.
    pub fn thread_fence_system(&self) {
        fence(Ordering::SeqCst);
    }

    // ---- checks

    /// Race-checks an access of element `index` of the tracked memory.
    #[inline]
    pub(crate) fn check(&self, track: Track, index: usize, kind: AccessKind, at: &'static SrcLoc) {
        if !track.is_none() {
            self.check_tracked(track, index, kind, at);
        }
    }

    fn check_tracked(&self, track: Track, index: usize, kind: AccessKind, at: &'static SrcLoc) {
        let block = self.block;
        let me = Accessor {
            epoch: block.epoch.get(),
            tid: self.tid,
            block: block.linear,
            grid_phase: block.grid_phase.get(),
            clocks: block.clocks_of(self.tid),
            site: at.id(),
        };
        let tracked = track.get();
        if let Tracked::Shared(region) = tracked {
            if let Some(w) = block.cp_pending.get(region, index) {
                let seen = w
                    .landed
                    .is_some_and(|(bar, phase)| self.seen_phases(bar) >= phase);
                if !seen {
                    raise(Failure::Report(Box::new(self.cp_race(
                        region,
                        index,
                        (w.tid, w.site, w.kind),
                        kind,
                        at,
                    ))));
                }
            }
            // A wgmma in flight reads the element: only writes race with it.
            if kind != AccessKind::Read && kind != AccessKind::AtomicRead {
                if let Some((tid, site)) = block.wgmma_pending.get(region, index) {
                    let err = self.cp_race(region, index, (tid, site, "wgmma"), kind, at);
                    raise(Failure::Report(Box::new(err)));
                }
            }
        }
        let verdict = match tracked {
            Tracked::Global(arg) => match &block.launch.globals[arg] {
                Some(shadow) => shadow.access(index, &me, kind, &block.launch.epochs),
                None => Verdict::Ok,
            },
            Tracked::Shared(region) => block.shared.access(region, index, &me, kind),
        };
        match verdict {
            Verdict::Ok => {}
            Verdict::Race(other) => raise(Failure::Report(Box::new(
                self.race(tracked, index, other, kind, at),
            ))),
            Verdict::Uninitialized => {
                let Tracked::Shared(region) = tracked else {
                    unreachable!("only shared memory is checked for initialisation")
                };
                block.note_uninitialized(|| Error::UninitializedShared {
                    kernel: block.launch.kernel.name.to_string(),
                    memory: block.shared.describe(region),
                    file: at.file().to_string(),
                    line: at.line(),
                    index: index as u64,
                    block: block.idx,
                    thread: self.thread_idx,
                })
            }
        }
    }

    /// `cp_async(dst, src)`: starts copying 4, 8 or 16 bytes of `src` (global memory) into
    /// `dst` (shared), landing at the wait that covers its group (sim/cp_async.rs).
    pub fn cp_async<T: KernelScalar>(
        &self,
        dst: SliceMut<T>,
        src: impl Into<Slice<T>>,
        at: &'static SrcLoc,
    ) {
        cp_async::issue(self, dst, src.into(), at)
    }

    /// `cp_async_commit()`: closes this thread's open group of copies.
    pub fn cp_async_commit(&self) {
        cp_async::commit(self)
    }

    /// `cp_async_wait(n)`: lands all but this thread's newest `n` committed groups.
    pub fn cp_async_wait(&self, n: u32) {
        cp_async::wait(self, Some(n))
    }

    /// `cp_async_wait_all()`: lands every copy of this thread.
    pub fn cp_async_wait_all(&self) {
        cp_async::wait(self, None)
    }

    /// `load4(src)`: the four elements of a four-element slice, each a checked,
    /// race-tracked read at `at` (the GPU's one wide access reads the same elements; its
    /// alignment is a matter of speed, never of the result: docs/vectors.md).
    pub fn load4<T: KernelScalar>(
        &self,
        src: impl Into<Slice<T>>,
        at: &'static SrcLoc,
    ) -> (T, T, T, T) {
        let src = src.into();
        quad_len(src.len(), at);
        (
            src.load(self, 0, at),
            src.load(self, 1, at),
            src.load(self, 2, at),
            src.load(self, 3, at),
        )
    }

    /// `store4(dst, a, b, c, d)`: the four elements of a four-element slice written, each a
    /// checked, race-tracked write at `at`.
    pub fn store4<T: KernelScalar>(
        &self,
        dst: SliceMut<T>,
        a: T,
        b: T,
        c: T,
        d: T,
        at: &'static SrcLoc,
    ) {
        quad_len(dst.len(), at);
        for (i, v) in [a, b, c, d].into_iter().enumerate() {
            dst.store(self, i, v, at);
        }
    }

    /// `fence_mbarrier_init()`: nothing to do on the simulator, where an `init` is seen
    /// at once (the race checks order it by the `sync_threads` that must follow).
    pub fn fence_mbarrier_init(&self) {}

    /// `fence_proxy_async()`: nothing to do on the simulator, which has one proxy.
    pub fn fence_proxy_async(&self) {}

    /// `tma_load_2d(dst, map, row, col, bar)`: the box of `map` whose top-left element is
    /// `(row, col)` into `dst`, completing its bytes on `bar` (sim/tma.rs).
    pub fn tma_load_2d<T: KernelScalar>(
        &self,
        dst: SliceMut<T>,
        map: SimTensorMap<T>,
        row: i32,
        col: i32,
        bar: MbarrierRef,
        at: &'static SrcLoc,
    ) {
        super::tma::load_2d(self, dst, map, row, col, bar, at)
    }

    pub(crate) fn block(&self) -> &Block<'a> {
        self.block
    }

    pub(crate) fn tid(&self) -> u32 {
        self.tid
    }

    pub(crate) fn cp_queue(&self) -> &RefCell<Queue> {
        &self.cp
    }

    /// The phases of the mbarrier at `bar` this thread has seen complete.
    pub(crate) fn seen_phases(&self, bar: usize) -> u64 {
        self.seen.borrow().get(&bar).copied().unwrap_or(0)
    }

    /// Every mbarrier phase this thread has seen complete (what an arrival releases).
    pub(crate) fn seen_snapshot(&self) -> std::collections::HashMap<usize, u64> {
        self.seen.borrow().clone()
    }

    /// This thread's wait has seen `phases` phases of the mbarrier at `bar` complete.
    pub(crate) fn see_phases(&self, bar: usize, phases: u64) {
        let mut seen = self.seen.borrow_mut();
        let e = seen.entry(bar).or_insert(0);
        *e = (*e).max(phases);
    }

    pub(crate) fn wgmma_queue(&self) -> &RefCell<super::wgmma::Queue> {
        &self.wgmma
    }

    /// The report of an access to an element a copy (`cp_async`, `tma_load_2d`) of thread
    /// `tid` at `site` has not yet landed (no wait covers it).
    fn cp_race(
        &self,
        region: u32,
        index: usize,
        (tid, site, copy): (u32, &'static SrcLoc, &'static str),
        kind: AccessKind,
        at: &'static SrcLoc,
    ) -> Error {
        let block = self.block;
        Error::DataRace {
            kernel: block.launch.kernel.name.to_string(),
            memory: block.shared.describe(region),
            index: index as u64,
            first: Box::new(RaceAccess {
                kind: copy.to_string(),
                file: site.file().to_string(),
                line: site.line(),
                block: block.idx,
                thread: block.thread_idx(tid),
            }),
            second: Box::new(RaceAccess {
                kind: kind.word().to_string(),
                file: at.file().to_string(),
                line: at.line(),
                block: block.idx,
                thread: self.thread_idx,
            }),
        }
    }

    /// The report of a race between the recorded access `other` and this one.
    fn race(
        &self,
        tracked: Tracked,
        index: usize,
        other: Rec,
        kind: AccessKind,
        at: &'static SrcLoc,
    ) -> Error {
        let block = self.block;
        let launch = block.launch;
        let (memory, other_block) = match tracked {
            Tracked::Global(arg) => {
                let memory = match launch.kernel.params.get(arg) {
                    Some(name) => format!("global buffer `{name}` (parameter {arg})"),
                    None => format!("global buffer (parameter {arg})"),
                };
                let linear = if other.epoch() == block.epoch.get() {
                    block.linear
                } else {
                    launch.epochs.block_of(other.epoch())
                };
                (memory, launch.block_idx(linear))
            }
            Tracked::Shared(region) => (block.shared.describe(region), block.idx),
        };
        let (file, line) = if other.site() == SITE_UNKNOWN {
            ("<unknown site>".to_string(), 0)
        } else {
            let site = src_loc_by_id(other.site());
            (site.file().to_string(), site.line())
        };
        // The thread index of the other access, in its block (same shape as ours).
        let other_thread = block.thread_idx(other.tid());
        Error::DataRace {
            kernel: launch.kernel.name.to_string(),
            memory,
            index: index as u64,
            first: Box::new(RaceAccess {
                kind: other.kind().word().to_string(),
                file,
                line,
                block: other_block,
                thread: other_thread,
            }),
            second: Box::new(RaceAccess {
                kind: kind.word().to_string(),
                file: at.file().to_string(),
                line: at.line(),
                block: block.idx,
                thread: self.thread_idx,
            }),
        }
    }
}

/// `load4`'s and `store4`'s slice is four long; another length is an index out of bounds
/// at the call, as the C's `ws_quad_len` records it (shorter: index 3 of its length;
/// longer: index its length of length 4).
fn quad_len(n: usize, at: &'static SrcLoc) {
    if n != 4 {
        let (index, len) = if n < 4 { (3, n) } else { (n, 4) };
        raise(Failure::OutOfBounds {
            at,
            index: index as u64,
            len: len as u64,
        })
    }
}
