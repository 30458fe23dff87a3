//! One rank's NCCL communicator on one GPU ([`NcclComm`]), made so that no NCCL call can
//! hang the host thread for longer than the timeout, and watched as torch's
//! `ProcessGroupNCCL` watchdog does.
//!
//! - Joining: a non-blocking communicator (`ncclCommInitRankConfig` with `blocking = 0`),
//!   polled until a deadline, so a rank that never comes is an `Err`, not a hang.
//! - Collectives: a blocking communicator split from it (`ncclCommSplit` with
//!   `blocking = 1`, itself polled through the non-blocking parent). A non-blocking
//!   communicator launches every group from a thread of its own (NCCL's `group.cc`), which
//!   cost about 70 µs a collective on 2 GPUs; a blocking one launches in the caller.
//! - The watchdog: every collective leaves an event on its stream. One not complete within
//!   the timeout, a call that stays inside NCCL on the host (a lazy connection waiting for a
//!   dead peer), an asynchronous NCCL error, or another rank of the process failing aborts
//!   the communicators (`ncclCommAbort`), which ends their kernels on the GPU; every later
//!   call returns the reason as [`Error::Collective`].
//! - Dropping it finalises both (`ncclCommFinalize`, then `ncclCommDestroy`), or aborts
//!   them after a failure.
//!
//! Pointer-level: the communicator knows device addresses, element counts and NCCL's type
//! codes (`nccl_call`); `communicator.rs` turns buffers and views into them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use cudarc::nccl::sys;

use super::nccl_call::{c_text, collective, config, describe, ok, queue, NcclCall};
use crate::error::{Error, Result};

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

/// A collective queued and not yet seen complete.
struct Pending {
    done: CudaEvent,
    since: Instant,
    what: String,
}

/// The state the rank's thread and the watchdog share.
///
/// The handles are atomics, null once aborted or destroyed: whoever swaps one out aborts
/// or destroys it, once. `calls` is held through every call into NCCL (calls on one
/// communicator come one at a time) and by every abort but one: a call stuck inside NCCL
/// on the host holds it forever, so the watchdog aborts from under such a call, as torch's
/// does (`ncclCommAbort` raises the flag the stuck call polls).
struct Shared {
    /// The communicator the collectives go to: the parent while joining, then the child.
    handle: AtomicPtr<sys::ncclComm>,
    /// The non-blocking communicator the rank joined through, idle after the split.
    parent: AtomicPtr<sys::ncclComm>,
    calls: Mutex<()>,
    /// When the call inside NCCL began, in µs after `epoch` (0: no call).
    call_began: AtomicU64,
    /// What the call inside NCCL (or the last one) is, for the watchdog's report.
    call_what: Mutex<String>,
    epoch: Instant,
    pending: Mutex<VecDeque<Pending>>,
    /// Why the communicators were aborted, once they were.
    failed: Mutex<Option<String>>,
    stop: AtomicBool,
    world: Arc<ProcessWorld>,
    rank: usize,
    timeout: Duration,
}

/// A rank's NCCL communicators and their watchdog.
pub(crate) struct NcclComm {
    shared: Arc<Shared>,
    ctx: Arc<CudaContext>,
    watchdog: Option<JoinHandle<()>>,
}

/// How often the watchdog looks: a hung collective is noticed within this much of its
/// timeout, at a cost of one event query a pending collective.
const WATCH_PERIOD: Duration = Duration::from_millis(5);

/// Once the world has failed, how long a call may stay inside NCCL before the watchdog
/// aborts it from under the call: a healthy call returns in microseconds.
const STUCK_AFTER_FAILURE: Duration = Duration::from_millis(50);

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
        let mut parent_config = config(false);
        let mut parent: sys::ncclComm_t = std::ptr::null_mut();
        let unique = sys::ncclUniqueId {
            internal: id.map(|b| b as std::ffi::c_char),
        };
        let (n, r) = (to_int(ranks)?, to_int(rank)?);
        // SAFETY: `parent` and the config are valid for the call; NCCL fills `parent` at
        // once in non-blocking mode (the rest of the set-up runs in the background).
        let status =
            unsafe { sys::ncclCommInitRankConfig(&mut parent, n, unique, r, &mut parent_config) };
        if parent.is_null() {
            return Err(collective(format!(
                "rank {rank}: ncclCommInitRankConfig failed: {}",
                describe(status)
            )));
        }
        let comm = NcclComm {
            shared: Arc::new(Shared {
                handle: AtomicPtr::new(parent),
                parent: AtomicPtr::new(std::ptr::null_mut()),
                calls: Mutex::new(()),
                call_began: AtomicU64::new(0),
                call_what: Mutex::new(String::new()),
                epoch: Instant::now(),
                pending: Mutex::new(VecDeque::new()),
                failed: Mutex::new(None),
                stop: AtomicBool::new(false),
                world,
                rank,
                timeout,
            }),
            ctx: ctx.clone(),
            watchdog: None,
        };
        let deadline = Instant::now() + timeout;
        let what = || format!("rank {rank} joining a world of {ranks} ranks");
        comm.settle(status, deadline, &what)?;
        comm.split_blocking(deadline)?.watch()
    }

    /// Splits the blocking communicator the collectives use off the joined one: the split
    /// is the parent's operation, so it is non-blocking and polled until `deadline`.
    fn split_blocking(self, deadline: Instant) -> Result<NcclComm> {
        let rank = self.shared.rank;
        let parent = self.shared.handle.load(Ordering::Acquire);
        let mut child_config = config(true);
        let mut child: sys::ncclComm_t = std::ptr::null_mut();
        let status = {
            let _calls = lock(&self.shared.calls);
            // SAFETY: `parent` is live and joined (settled); `child` and the config are
            // valid until the split completes, which `settle` waits for below.
            unsafe { sys::ncclCommSplit(parent, 0, to_int(rank)?, &mut child, &mut child_config) }
        };
        if !ok(status) {
            let e = self.nccl_error("ncclCommSplit", status);
            self.fail(e.to_string());
            return Err(e);
        }
        // The split returns success while it runs in the background (its group ends in
        // progress, which the call does not pass on): the parent reports it in progress
        // until it is done, and `child` stays null until then.
        let what = || format!("rank {rank} making its blocking communicator");
        let child = loop {
            self.settle(sys::ncclResult_t::ncclInProgress, deadline, &what)?;
            // SAFETY: NCCL writes `child` (an atomic store) when the split completes; the
            // read is volatile so that it is not assumed unchanged since the call.
            let child = unsafe { std::ptr::read_volatile(&child) };
            if !child.is_null() {
                break child;
            }
            if Instant::now() > deadline {
                let e = collective(format!(
                    "rank {rank}: ncclCommSplit made no communicator within {:?}",
                    self.shared.timeout
                ));
                self.fail(e.to_string());
                return Err(e);
            }
            std::thread::sleep(Duration::from_micros(100));
        };
        self.shared.parent.store(parent, Ordering::Release);
        self.shared.handle.store(child, Ordering::Release);
        Ok(self)
    }

    /// Starts the watchdog.
    fn watch(mut self) -> Result<NcclComm> {
        let (shared, ctx, rank) = (self.shared.clone(), self.ctx.clone(), self.shared.rank);
        self.watchdog = Some(
            std::thread::Builder::new()
                .name(format!("warpspeed nccl watchdog {rank}"))
                .spawn(move || watch(&shared, &ctx))
                .map_err(|e| collective(format!("rank {rank}: starting its watchdog: {e}")))?,
        );
        Ok(self)
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
        let text = what();
        let status = {
            let guard = lock(&self.shared.calls);
            let comm = self.shared.handle.load(Ordering::Acquire);
            if comm.is_null() {
                drop(guard);
                return self.check();
            }
            *lock(&self.shared.call_what) = text.clone();
            let began = self.shared.epoch.elapsed().as_micros() as u64 + 1;
            self.shared.call_began.store(began, Ordering::Release);
            // SAFETY: the addresses are live device memory of this GPU for the counts given
            // (`communicator.rs` checked the lengths, and its guards keep the buffers
            // borrowed until the calls are queued); the communicator is live: only the
            // watchdog aborts it while `calls` is held, and only once this call is stuck.
            let status = unsafe { queue_all(calls, comm, stream.cu_stream() as _) };
            self.shared.call_began.store(0, Ordering::Release);
            if self.shared.handle.load(Ordering::Acquire).is_null() {
                drop(guard);
                return self.check();
            }
            if !ok(status) {
                let e = self.nccl_error(&text, status);
                drop(guard);
                self.fail(e.to_string());
                return Err(e);
            }
            status
        };
        self.settle(status, Instant::now() + self.shared.timeout, what)?;
        let done = stream
            .record_event(None)
            .map_err(|e| collective(format!("{}: recording its event: {e}", what())))?;
        lock(&self.shared.pending).push_back(Pending {
            done,
            since: Instant::now(),
            what: text,
        });
        Ok(())
    }

    /// Waits (polling, never blocking in the driver) until every collective queued so far
    /// is complete; `Err` once the communicator was aborted.
    pub(crate) fn wait_pending(&self) -> Result<()> {
        let mut polls = 0u32;
        loop {
            self.check()?;
            if drain_complete(&mut lock(&self.shared.pending)) {
                return Ok(());
            }
            polls += 1;
            if polls < 200 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(50));
            }
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
    /// non-blocking communicator's set-up or split), until `deadline`, then aborts.
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
            let guard = lock(&self.shared.calls);
            let comm = self.shared.handle.load(Ordering::Acquire);
            if comm.is_null() {
                drop(guard);
                return self.check();
            }
            // SAFETY: a live communicator (`calls` is held); `status` is an out-pointer.
            let s = unsafe { sys::ncclCommGetAsyncError(comm, &mut status) };
            if s != sys::ncclResult_t::ncclSuccess {
                status = s;
            }
            if !ok(status) {
                let e = self.nccl_error(&what(), status);
                drop(guard);
                self.fail(e.to_string());
                return Err(e);
            }
        }
        Ok(())
    }

    /// NCCL's error for `what`, with its last message. Called with `calls` held.
    fn nccl_error(&self, what: &str, status: sys::ncclResult_t) -> Error {
        let comm = self.shared.handle.load(Ordering::Acquire);
        // SAFETY: `comm` is live (the caller holds `calls`) or null, which NCCL accepts.
        let last = unsafe { c_text(sys::ncclGetLastError(comm)) };
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
    /// Lets queued collectives finish (under the watchdog, so a hung one is aborted rather
    /// than waited for), then finalises the communicators (NCCL flushes this rank's work)
    /// and destroys them; aborts them instead after a failure, or when finalising takes
    /// longer than the timeout.
    fn drop(&mut self) {
        if self.shared.world.failure().is_none() {
            let _ = self.wait_pending();
        }
        self.shared.stop.store(true, Ordering::Release);
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
        }
        let failure = self.shared.world.failure();
        if let Some(reason) = failure.or_else(|| lock(&self.shared.failed).clone()) {
            abort(&self.shared, reason);
            return;
        }
        let _ = bind(&self.ctx, self.shared.rank);
        let _calls = lock(&self.shared.calls);
        for slot in [&self.shared.handle, &self.shared.parent] {
            let comm = slot.swap(std::ptr::null_mut(), Ordering::AcqRel);
            if !comm.is_null() && !finalize(&self.shared, comm) {
                // SAFETY: a live communicator, swapped out here: used by no one else.
                unsafe { sys::ncclCommAbort(comm) };
            }
        }
    }
}

/// Finalises `comm` and destroys it, polling a non-blocking one until the timeout; false
/// (nothing destroyed) when finalising failed or timed out.
fn finalize(shared: &Shared, comm: sys::ncclComm_t) -> bool {
    // SAFETY: a live communicator, used by no other thread (the caller swapped it out).
    let mut status = unsafe { sys::ncclCommFinalize(comm) };
    let deadline = Instant::now() + shared.timeout;
    while status == sys::ncclResult_t::ncclInProgress && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
        if shared.world.failure().is_some() {
            return false;
        }
        // SAFETY: as above.
        unsafe { sys::ncclCommGetAsyncError(comm, &mut status) };
    }
    if status != sys::ncclResult_t::ncclSuccess {
        return false;
    }
    // SAFETY: finalised; destroyed once (the caller swapped the handle out).
    unsafe { sys::ncclCommDestroy(comm) };
    true
}

/// Queues `calls` on `stream`, several as one NCCL group.
///
/// # Safety
///
/// As [`queue`]'s, for every call.
unsafe fn queue_all(
    calls: &[NcclCall],
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> sys::ncclResult_t {
    if calls.len() > 1 {
        let s = sys::ncclGroupStart();
        if s != sys::ncclResult_t::ncclSuccess {
            return s;
        }
    }
    let mut status = sys::ncclResult_t::ncclSuccess;
    for call in calls {
        status = queue(call, comm, stream);
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
    status
}

/// Drops the completed collectives at the front; true when none is left.
fn drain_complete(pending: &mut VecDeque<Pending>) -> bool {
    while pending
        .front()
        .is_some_and(|p| p.done.try_is_complete().unwrap_or(true))
    {
        pending.pop_front();
    }
    pending.is_empty()
}

/// The watchdog: drops completed collectives, and aborts the communicators when one is
/// older than the timeout, a call stays inside NCCL longer than the timeout, NCCL reports
/// an asynchronous error, or another rank of the process failed.
fn watch(shared: &Shared, ctx: &Arc<CudaContext>) {
    let _ = ctx.bind_to_thread();
    while !shared.stop.load(Ordering::Acquire) {
        std::thread::sleep(WATCH_PERIOD);
        if let Some(reason) = problem(shared) {
            record(shared, reason);
            // A call may be inside NCCL: abort once it returns, or from under it once
            // it is stuck.
            while !shared.stop.load(Ordering::Acquire) && !abort_watched(shared) {
                std::thread::sleep(WATCH_PERIOD);
            }
            return;
        }
    }
}

/// What the watchdog must abort for, if anything (recorded as the world's failure too).
fn problem(shared: &Shared) -> Option<String> {
    if let Some(reason) = shared.world.failure() {
        return Some(reason);
    }
    let rank = shared.rank;
    let overdue = {
        let mut pending = lock(&shared.pending);
        drain_complete(&mut pending);
        pending
            .front()
            .filter(|p| p.since.elapsed() > shared.timeout)
            .map(|p| p.what.clone())
    };
    let reason = if let Some(what) = overdue {
        format!(
            "rank {rank}: {what} did not complete within {:?}: a rank died, or never called \
             it (the communicators were aborted)",
            shared.timeout
        )
    } else if call_age(shared).is_some_and(|age| age > shared.timeout) {
        // A blocking communicator's call waits inside NCCL for a peer that never connects.
        format!(
            "rank {rank}: {} did not return from NCCL within {:?}: a rank died, or never \
             called it (the communicators were aborted)",
            lock(&shared.call_what),
            shared.timeout
        )
    } else {
        let calls = match shared.calls.try_lock() {
            Ok(calls) => calls,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        let comm = shared.handle.load(Ordering::Acquire);
        if comm.is_null() {
            return None;
        }
        let mut status = sys::ncclResult_t::ncclSuccess;
        // SAFETY: a live communicator (`calls` is held).
        unsafe { sys::ncclCommGetAsyncError(comm, &mut status) };
        if ok(status) {
            return None;
        }
        // SAFETY: as above.
        let last = unsafe { c_text(sys::ncclGetLastError(comm)) };
        drop(calls);
        format!(
            "rank {rank}: NCCL reported {} ({last}); the communicators were aborted",
            describe(status)
        )
    };
    shared.world.fail(reason.clone());
    Some(reason)
}

/// How long the current call has been inside NCCL, if one is.
fn call_age(shared: &Shared) -> Option<Duration> {
    match shared.call_began.load(Ordering::Acquire) {
        0 => None,
        began => {
            let now = shared.epoch.elapsed().as_micros() as u64 + 1;
            Some(Duration::from_micros(now.saturating_sub(began)))
        }
    }
}

/// The watchdog's abort: with `calls` when it is free; from under a call that has stayed
/// inside NCCL past [`STUCK_AFTER_FAILURE`]; else not yet (false).
fn abort_watched(shared: &Shared) -> bool {
    match shared.calls.try_lock() {
        Ok(_calls) => abort_handles(shared),
        Err(TryLockError::Poisoned(e)) => {
            drop(e.into_inner());
            abort_handles(shared)
        }
        Err(TryLockError::WouldBlock) => {
            if call_age(shared).is_none_or(|age| age <= STUCK_AFTER_FAILURE) {
                return false;
            }
            abort_handles(shared);
        }
    }
    lock(&shared.pending).clear();
    true
}

/// Aborts the communicators for `reason`, waiting for a call in progress to return.
fn abort(shared: &Shared, reason: String) {
    record(shared, reason);
    let guard = lock(&shared.calls);
    abort_handles(shared);
    drop(guard);
    // The aborted kernels end; their events complete or never will: nothing to watch.
    lock(&shared.pending).clear();
}

/// Records `reason` as why the communicators were aborted (the first reason stays),
/// before they are, so that a call returning from the abort reports it.
fn record(shared: &Shared, reason: String) {
    let mut failed = lock(&shared.failed);
    if failed.is_none() {
        *failed = Some(reason);
    }
}

/// Aborts each communicator still live, once (whoever swaps a handle out aborts it).
fn abort_handles(shared: &Shared) {
    for slot in [&shared.handle, &shared.parent] {
        let comm = slot.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !comm.is_null() {
            // SAFETY: a live communicator, swapped out here: aborted once. A call stuck
            // inside it sees NCCL's abort flag and returns.
            unsafe { sys::ncclCommAbort(comm) };
        }
    }
}

fn bind(ctx: &Arc<CudaContext>, rank: usize) -> Result<()> {
    ctx.bind_to_thread()
        .map_err(|e| collective(format!("rank {rank}: making its GPU current: {e}")))
}

fn to_int(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| collective(format!("{n} ranks: more than NCCL counts")))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
