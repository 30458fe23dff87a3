//! One rank's NCCL communicator on one GPU ([`NcclComm`]): made non-blocking
//! (`ncclCommInitRankConfig` with `blocking = 0`), so that no NCCL call can hang the host
//! thread, and watched by a thread of its own, as torch's `ProcessGroupNCCL` watchdog
//! does: every collective leaves an event on its stream, and one not complete within the
//! timeout, an asynchronous NCCL error, or another rank of the process failing aborts the
//! communicator (`ncclCommAbort`), which ends its kernels on the GPU; every later call
//! returns the reason as [`Error::Collective`]. Dropping it finalises it
//! (`ncclCommFinalize`, then `ncclCommDestroy`), or aborts it after a failure.
//!
//! Pointer-level: the communicator knows device addresses, element counts and NCCL's type
//! codes; `communicator.rs` turns buffers and views into them.

use std::collections::VecDeque;
use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use cudarc::nccl::sys;

use super::reduce_op::ReduceOp;
use super::rendezvous::Kind;
use crate::error::{Error, Result};

/// What one NCCL call does (counts are NCCL's: all_gather's is the part a rank sends,
/// reduce_scatter's the part it receives).
#[derive(Clone, Copy, Debug)]
pub(crate) enum NcclOp {
    Collective(Kind),
    Send { peer: usize },
    Recv { peer: usize },
}

/// One NCCL call: the operation, its device addresses (`recv` unused by a send, `send` by
/// a receive), the element count and type code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NcclCall {
    pub(crate) op: NcclOp,
    pub(crate) send: u64,
    pub(crate) recv: u64,
    pub(crate) count: usize,
    pub(crate) data_type: u32,
}

/// What the ranks of one process share: the first failure among them, which aborts every
/// rank's communicator (a rank whose closure failed will call no further collective, and
/// the others' would wait for it forever).
#[derive(Default)]
pub(crate) struct ProcessWorld {
    failure: Mutex<Option<String>>,
}

impl ProcessWorld {
    /// Records `reason` as the world's failure (the first one stays).
    pub(crate) fn fail(&self, reason: String) {
        let mut failure = lock(&self.failure);
        if failure.is_none() {
            *failure = Some(reason);
        }
    }

    fn failure(&self) -> Option<String> {
        lock(&self.failure).clone()
    }
}

/// The raw communicator; null once aborted or destroyed. NCCL's calls on one communicator
/// may come from any thread, one at a time (the mutex), and `ncclCommAbort` from a thread
/// other than the one in a call (torch's watchdog does so).
struct Raw(sys::ncclComm_t);

// SAFETY: an NCCL communicator is a handle into the library, not tied to the thread that
// made it; every use goes through the mutex around it.
unsafe impl Send for Raw {}

/// A collective queued and not yet seen complete.
struct Pending {
    done: CudaEvent,
    since: Instant,
    what: String,
}

/// The state the rank's thread and the watchdog share.
struct Shared {
    raw: Mutex<Raw>,
    pending: Mutex<VecDeque<Pending>>,
    /// Why the communicator was aborted, once it was.
    failed: Mutex<Option<String>>,
    stop: AtomicBool,
    world: Arc<ProcessWorld>,
    rank: usize,
    timeout: Duration,
}

/// A rank's NCCL communicator and its watchdog.
pub(crate) struct NcclComm {
    shared: Arc<Shared>,
    ctx: Arc<CudaContext>,
    watchdog: Option<JoinHandle<()>>,
}

/// How often the watchdog looks: a hung collective is noticed within this much of its
/// timeout, at a cost of one event query a pending collective.
const WATCH_PERIOD: Duration = Duration::from_millis(5);

impl NcclComm {
    /// Rank `rank` of `ranks` joins the communicator of `id` on `ctx`'s GPU, waiting at
    /// most `timeout` for the others.
    pub(crate) fn init(
        id: [u8; 128],
        rank: usize,
        ranks: usize,
        ctx: &Arc<CudaContext>,
        timeout: Duration,
        world: Arc<ProcessWorld>,
    ) -> Result<NcclComm> {
        super::nccl_lib::load()?;
        bind(ctx, rank)?;
        let mut config = nonblocking_config();
        let mut raw: sys::ncclComm_t = std::ptr::null_mut();
        let unique = sys::ncclUniqueId {
            internal: id.map(|b| b as std::ffi::c_char),
        };
        let (n, r) = (to_int(ranks)?, to_int(rank)?);
        // SAFETY: `raw` and `config` are valid for the call; NCCL fills `raw` at once in
        // non-blocking mode (the rest of the set-up runs in the background).
        let status = unsafe { sys::ncclCommInitRankConfig(&mut raw, n, unique, r, &mut config) };
        let shared = Arc::new(Shared {
            raw: Mutex::new(Raw(raw)),
            pending: Mutex::new(VecDeque::new()),
            failed: Mutex::new(None),
            stop: AtomicBool::new(false),
            world,
            rank,
            timeout,
        });
        if raw.is_null() {
            return Err(collective(format!(
                "rank {rank}: ncclCommInitRankConfig failed: {}",
                describe(status)
            )));
        }
        let mut comm = NcclComm {
            shared,
            ctx: ctx.clone(),
            watchdog: None,
        };
        let what = || format!("rank {rank} joining a world of {ranks} ranks");
        comm.settle(status, Instant::now() + timeout, &what)?;
        let (shared, ctx) = (comm.shared.clone(), ctx.clone());
        comm.watchdog = Some(
            std::thread::Builder::new()
                .name(format!("warpspeed nccl watchdog {rank}"))
                .spawn(move || watch(&shared, &ctx))
                .map_err(|e| collective(format!("rank {rank}: starting its watchdog: {e}")))?,
        );
        Ok(comm)
    }

    /// Queues `calls` on `stream` (several: as one NCCL group, so that sends and receives
    /// between two ranks do not wait for each other) and hands their completion to the
    /// watchdog, named `what`.
    pub(crate) fn issue(
        &self,
        calls: &[NcclCall],
        stream: &Arc<CudaStream>,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        self.check()?;
        bind(&self.ctx, self.shared.rank)?;
        let status = {
            let raw = lock(&self.shared.raw);
            if raw.0.is_null() {
                drop(raw);
                return self.check();
            }
            let cu_stream = stream.cu_stream() as sys::cudaStream_t;
            // SAFETY: the addresses are live device memory of this GPU for the counts given
            // (`communicator.rs` checked the lengths, and its guards keep the buffers
            // borrowed until the calls are queued); the communicator is not aborted (the
            // lock is held).
            unsafe {
                if calls.len() > 1 {
                    let s = sys::ncclGroupStart();
                    if s != sys::ncclResult_t::ncclSuccess {
                        return Err(self.nccl_error("ncclGroupStart", s, raw.0));
                    }
                }
                let mut status = sys::ncclResult_t::ncclSuccess;
                for call in calls {
                    status = queue(call, raw.0, cu_stream);
                    if !ok(status) {
                        break;
                    }
                }
                if calls.len() > 1 {
                    let end = sys::ncclGroupEnd();
                    if ok(status) {
                        status = end;
                    }
                }
                if !ok(status) {
                    return Err(self.nccl_error(&what(), status, raw.0));
                }
                status
            }
        };
        self.settle(status, Instant::now() + self.shared.timeout, what)?;
        let done = stream
            .record_event(None)
            .map_err(|e| collective(format!("{}: recording its event: {e}", what())))?;
        lock(&self.shared.pending).push_back(Pending {
            done,
            since: Instant::now(),
            what: what(),
        });
        Ok(())
    }

    /// Waits (polling, never blocking in the driver) until every collective queued so far
    /// is complete; `Err` once the communicator was aborted.
    pub(crate) fn wait_pending(&self) -> Result<()> {
        loop {
            self.check()?;
            if lock(&self.shared.pending).is_empty() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// `Err` naming why the communicator was aborted, once it was.
    pub(crate) fn check(&self) -> Result<()> {
        match lock(&self.shared.failed).clone() {
            Some(reason) => Err(collective(reason)),
            None => Ok(()),
        }
    }

    /// Aborts this rank's communicator and every other rank's of the process, for
    /// `reason`.
    pub(crate) fn fail(&self, reason: String) {
        self.shared.world.fail(reason.clone());
        abort(&self.shared, reason);
    }

    /// After a call that returned `status`: waits while NCCL reports it in progress (a
    /// non-blocking communicator's set-up, a group's launch), until `deadline`, then
    /// aborts.
    fn settle(
        &self,
        mut status: sys::ncclResult_t,
        deadline: Instant,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let mut polls = 0u32;
        while status == sys::ncclResult_t::ncclInProgress {
            if let Some(reason) = self.shared.world.failure() {
                abort(&self.shared, reason);
                return self.check();
            }
            if Instant::now() > deadline {
                let reason = format!(
                    "rank {}: {} did not finish within {:?}: a rank is missing or died \
                     (the communicator was aborted)",
                    self.shared.rank,
                    what(),
                    self.shared.timeout
                );
                self.fail(reason);
                return self.check();
            }
            // Spin briefly (a group's launch finishes in microseconds), then sleep.
            polls += 1;
            if polls > 1000 {
                std::thread::sleep(Duration::from_millis(1));
            } else {
                std::thread::yield_now();
            }
            let raw = lock(&self.shared.raw);
            if raw.0.is_null() {
                drop(raw);
                return self.check();
            }
            // SAFETY: a live communicator (the lock is held); `status` is an out-pointer.
            let s = unsafe { sys::ncclCommGetAsyncError(raw.0, &mut status) };
            if s != sys::ncclResult_t::ncclSuccess {
                status = s;
            }
            if !ok(status) {
                let e = self.nccl_error(&what(), status, raw.0);
                drop(raw);
                self.fail(e.to_string());
                return Err(e);
            }
        }
        Ok(())
    }

    fn nccl_error(&self, what: &str, status: sys::ncclResult_t, raw: sys::ncclComm_t) -> Error {
        // SAFETY: `raw` is live (the caller holds the lock) or null, which NCCL accepts.
        let last = unsafe { c_text(sys::ncclGetLastError(raw)) };
        collective(format!(
            "rank {}: {what}: {}{}",
            self.shared.rank,
            describe(status),
            if last.is_empty() {
                String::new()
            } else {
                format!(" ({last})")
            }
        ))
    }
}

impl Drop for NcclComm {
    /// Finalises the communicator (NCCL flushes this rank's queued work), then destroys
    /// it; aborts it instead after a failure, or when finalising takes longer than the
    /// timeout.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
        }
        if let Some(reason) = self.shared.world.failure() {
            abort(&self.shared, reason);
        }
        let _ = bind(&self.ctx, self.shared.rank);
        let raw = lock(&self.shared.raw).0;
        if raw.is_null() {
            return;
        }
        // SAFETY: a live communicator, used by no other thread (the watchdog has ended).
        let mut status = unsafe { sys::ncclCommFinalize(raw) };
        let deadline = Instant::now() + self.shared.timeout;
        while status == sys::ncclResult_t::ncclInProgress && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(200));
            if let Some(reason) = self.shared.world.failure() {
                abort(&self.shared, reason);
                return;
            }
            // SAFETY: as above.
            unsafe { sys::ncclCommGetAsyncError(raw, &mut status) };
        }
        if status == sys::ncclResult_t::ncclSuccess {
            lock(&self.shared.raw).0 = std::ptr::null_mut();
            // SAFETY: finalised; destroyed once (the handle is cleared above).
            unsafe { sys::ncclCommDestroy(raw) };
        } else {
            abort(&self.shared, "finalising failed or timed out".into());
        }
    }
}

/// The watchdog: drops completed collectives, and aborts the communicator when one is
/// older than the timeout, NCCL reports an asynchronous error, or another rank of the
/// process failed.
fn watch(shared: &Shared, ctx: &Arc<CudaContext>) {
    let _ = ctx.bind_to_thread();
    while !shared.stop.load(Ordering::Acquire) {
        std::thread::sleep(WATCH_PERIOD);
        if let Some(reason) = shared.world.failure() {
            abort(shared, reason);
            return;
        }
        let overdue = {
            let mut pending = lock(&shared.pending);
            while pending
                .front()
                .is_some_and(|p| p.done.try_is_complete().unwrap_or(true))
            {
                pending.pop_front();
            }
            pending
                .front()
                .filter(|p| p.since.elapsed() > shared.timeout)
                .map(|p| p.what.clone())
        };
        if let Some(what) = overdue {
            let reason = format!(
                "rank {}: {what} did not complete within {:?}: a rank died, or never called \
                 it (the communicator was aborted)",
                shared.rank, shared.timeout
            );
            shared.world.fail(reason.clone());
            abort(shared, reason);
            return;
        }
        let raw = lock(&shared.raw);
        if raw.0.is_null() {
            return;
        }
        let mut status = sys::ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator (the lock is held).
        unsafe { sys::ncclCommGetAsyncError(raw.0, &mut status) };
        if !ok(status) {
            // SAFETY: as above.
            let last = unsafe { c_text(sys::ncclGetLastError(raw.0)) };
            drop(raw);
            let reason = format!(
                "rank {}: NCCL reported {} ({last}); the communicator was aborted",
                shared.rank,
                describe(status)
            );
            shared.world.fail(reason.clone());
            abort(shared, reason);
            return;
        }
    }
}

/// Aborts the communicator once, recording `reason` (the first reason stays).
fn abort(shared: &Shared, reason: String) {
    let mut raw = lock(&shared.raw);
    if !raw.0.is_null() {
        // SAFETY: a live communicator, aborted once (the handle is cleared here, under
        // the lock every other use takes).
        unsafe { sys::ncclCommAbort(raw.0) };
        raw.0 = std::ptr::null_mut();
    }
    drop(raw);
    let mut failed = lock(&shared.failed);
    if failed.is_none() {
        *failed = Some(reason);
    }
    drop(failed);
    // The aborted kernels end; their events complete or never will: nothing to watch.
    lock(&shared.pending).clear();
}

/// Queues one call.
///
/// # Safety
///
/// `comm` is live; the call's addresses are device memory of its GPU for its count.
unsafe fn queue(
    call: &NcclCall,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> sys::ncclResult_t {
    let (send, recv) = (call.send as *const _, call.recv as *mut _);
    let (count, ty) = (call.count, data_type(call.data_type));
    match call.op {
        NcclOp::Collective(Kind::AllReduce(op)) => {
            sys::ncclAllReduce(send, recv, count, ty, red_op(op), comm, stream)
        }
        NcclOp::Collective(Kind::Broadcast { root }) => {
            sys::ncclBroadcast(send, recv, count, ty, root as i32, comm, stream)
        }
        NcclOp::Collective(Kind::Reduce { op, root }) => {
            sys::ncclReduce(send, recv, count, ty, red_op(op), root as i32, comm, stream)
        }
        NcclOp::Collective(Kind::AllGather) => {
            sys::ncclAllGather(send, recv, count, ty, comm, stream)
        }
        NcclOp::Collective(Kind::ReduceScatter(op)) => {
            sys::ncclReduceScatter(send, recv, count, ty, red_op(op), comm, stream)
        }
        NcclOp::Send { peer } => sys::ncclSend(send, count, ty, peer as i32, comm, stream),
        NcclOp::Recv { peer } => sys::ncclRecv(recv, count, ty, peer as i32, comm, stream),
    }
}

fn red_op(op: ReduceOp) -> sys::ncclRedOp_t {
    match op {
        ReduceOp::Sum => sys::ncclRedOp_t::ncclSum,
        ReduceOp::Prod => sys::ncclRedOp_t::ncclProd,
        ReduceOp::Min => sys::ncclRedOp_t::ncclMin,
        ReduceOp::Max => sys::ncclRedOp_t::ncclMax,
        ReduceOp::Avg => sys::ncclRedOp_t::ncclAvg,
    }
}

/// `CollectiveScalar::NCCL_TYPE` as NCCL's enum.
fn data_type(code: u32) -> sys::ncclDataType_t {
    use sys::ncclDataType_t as T;
    match code {
        0 => T::ncclInt8,
        1 => T::ncclUint8,
        2 => T::ncclInt32,
        3 => T::ncclUint32,
        4 => T::ncclInt64,
        5 => T::ncclUint64,
        6 => T::ncclFloat16,
        7 => T::ncclFloat32,
        8 => T::ncclFloat64,
        _ => T::ncclBfloat16,
    }
}

/// `NCCL_CONFIG_INITIALIZER` (nccl.h) with `blocking = 0`: every field NCCL's default
/// (`NCCL_CONFIG_UNDEF_INT`, null), the size, magic and version of the 2.28 layout.
fn nonblocking_config() -> sys::ncclConfig_t {
    const UNDEF: i32 = i32::MIN;
    let null = std::ptr::null();
    sys::ncclConfig_t {
        size: std::mem::size_of::<sys::ncclConfig_t>(),
        magic: 0xcafe_beef,
        version: 22800,
        blocking: 0,
        cgaClusterSize: UNDEF,
        minCTAs: UNDEF,
        maxCTAs: UNDEF,
        netName: null,
        splitShare: UNDEF,
        trafficClass: UNDEF,
        commName: null,
        collnetEnable: UNDEF,
        CTAPolicy: UNDEF,
        shrinkShare: UNDEF,
        nvlsCTAs: UNDEF,
        nChannelsPerNetPeer: UNDEF,
        nvlinkCentricSched: UNDEF,
    }
}

/// A fresh NCCL unique id (the root rank's; the others receive it).
pub(crate) fn unique_id() -> Result<[u8; 128]> {
    super::nccl_lib::load()?;
    let mut id = sys::ncclUniqueId { internal: [0; 128] };
    // SAFETY: NCCL is loaded; `id` is a valid out-pointer.
    let status = unsafe { sys::ncclGetUniqueId(&mut id) };
    if status != sys::ncclResult_t::ncclSuccess {
        return Err(collective(format!(
            "ncclGetUniqueId failed: {}",
            describe(status)
        )));
    }
    Ok(id.internal.map(|c| c as u8))
}

fn ok(status: sys::ncclResult_t) -> bool {
    matches!(
        status,
        sys::ncclResult_t::ncclSuccess | sys::ncclResult_t::ncclInProgress
    )
}

fn describe(status: sys::ncclResult_t) -> String {
    // SAFETY: NCCL returns a static string for every result code.
    let text = unsafe { c_text(sys::ncclGetErrorString(status)) };
    format!("{status:?} ({text})")
}

/// A C string NCCL owns, copied; empty for null.
///
/// # Safety
///
/// `p` is null or a NUL-terminated string alive for the call.
unsafe fn c_text(p: *const std::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

fn bind(ctx: &Arc<CudaContext>, rank: usize) -> Result<()> {
    ctx.bind_to_thread()
        .map_err(|e| collective(format!("rank {rank}: making its GPU current: {e}")))
}

fn to_int(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| collective(format!("{n} ranks: more than NCCL counts")))
}

fn collective(message: String) -> Error {
    Error::Collective { message }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
