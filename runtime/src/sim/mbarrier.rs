//! Hopper's mbarriers on the simulator (`SharedArray::<Mbarrier, N>`): each barrier's
//! phase, pending arrivals and transaction count, and the `tma_load_2d` copies that land
//! when its phase completes (docs/tensor-cores.md, "Hopper: mbarriers and TMA").
//!
//! A barrier is known by the address of its 8-byte slot in the block's shared memory
//! (every thread of the block sees the same slot), so its state lives in a per-block map
//! beside the memory: `init(count)` creates it, a second `init` or a use before one is a
//! kernel panic naming the Rust line. A phase completes when its pending arrivals reach
//! zero and its transaction count is zero again; then the copies registered on it land,
//! the arrival count is restored, and every thread suspended in `wait` is made runnable
//! to look again. A copy in flight completes its bytes as late as the GPU may: when a
//! thread looks at the barrier (`wait`, `try_wait`) and the phase waits for nothing else,
//! so a thread that touches the tile without a completed wait always finds it pending
//! (a copy nobody waits for never lands: its tile stays pending, as an unwaited
//! `cp_async`'s). An arrival on a phase that has no arrivals left (it waits only for
//! bytes) is the "more arrivals than the count" error.
//!
//! Ordering: a completed phase starts a new barrier interval of the block's race checks
//! (as `sync_threads` does), so every access before it is ordered before every access
//! after it. That orders the arriving threads' writes before the waiter's reads, as the
//! GPU's release/acquire does, and more (a thread that reads a plain write after the
//! completion without waiting is not reported). The copies' tiles are checked exactly: a
//! landed copy stays pending for every thread whose wait has not seen its phase complete,
//! until a block barrier after some thread's wait orders everyone after it (sim/tma.rs).

use std::cell::RefCell;
use std::collections::HashMap;

use super::block::State;
use super::check::{raise, Failure};
use super::cp_async::Element;
use super::ctx::{Suspend, ThreadCtx};
use super::site::SrcLoc;
use crate::error::Error;

/// PTX's largest arrival count (`mbarrier.init`'s `count`: 1 to 2^20 - 1).
const MAX_COUNT: u32 = (1 << 20) - 1;

/// One barrier.
struct Mbar {
    count: u32,
    /// Arrivals the current phase still waits for.
    pending: u32,
    /// Bytes expected (`arrive_expect_tx`) minus bytes completed (the copies).
    tx: i64,
    /// Phases completed so far: the current phase's parity is `phase % 2`.
    phase: u64,
    /// Where `init` was called, for the "init twice" message.
    init_at: &'static SrcLoc,
    /// What the threads arriving in the current phase had seen complete (per barrier, a
    /// count of phases): an arrival is a release of it.
    releasing: HashMap<usize, u64>,
    /// What the completed phases released: a wait that sees a phase complete acquires it,
    /// so "thread A waited on `full`, then arrived on `empty`; thread B waited on `empty`"
    /// orders B after the copy A saw land (a producer reusing a stage its consumers freed).
    released: HashMap<usize, u64>,
}

impl Mbar {
    /// The current phase completes: what its arrivals released becomes visible to waiters.
    fn complete_phase(&mut self) {
        for (bar, phases) in self.releasing.drain() {
            let e = self.released.entry(bar).or_insert(0);
            *e = (*e).max(phases);
        }
        self.phase += 1;
        self.pending = self.count;
    }
}

/// Merges `from` (per barrier, phases seen) into `into`, keeping the larger counts.
fn merge_seen(into: &mut HashMap<usize, u64>, from: &HashMap<usize, u64>) {
    for (&bar, &phases) in from {
        let e = into.entry(bar).or_insert(0);
        *e = (*e).max(phases);
    }
}

/// A copy that lands when its barrier's current phase completes.
pub(crate) struct Landing {
    /// The transaction bytes it completes.
    pub(crate) bytes: u32,
    /// Its destination elements, pending until it lands (race checks on).
    pub(crate) keys: Vec<Element>,
    /// Writes the bytes (no race-check record: the issue recorded the writes).
    pub(crate) land: Box<dyn FnOnce()>,
}

/// The block's barriers and the copies waiting on them, by slot address.
#[derive(Default)]
pub(crate) struct Barriers {
    bars: RefCell<HashMap<usize, Mbar>>,
    copies: RefCell<HashMap<usize, Vec<Landing>>>,
    /// Per barrier, the most phases a thread has seen complete.
    seen: RefCell<HashMap<usize, u64>>,
}

impl Barriers {
    /// The most phases of the barrier at `bar` a thread of the block has seen complete.
    pub(crate) fn seen(&self, bar: usize) -> u64 {
        self.seen.borrow().get(&bar).copied().unwrap_or(0)
    }
}

/// `SharedArray::<Mbarrier, N>` inside a simulated kernel: `len` 8-byte slots of the
/// block's shared memory.
#[derive(Clone, Copy, Debug)]
pub struct SimMbarriers {
    ptr: *mut u64,
    len: usize,
}

/// One barrier of a [`SimMbarriers`] (`&full[s]`, the argument of `tma_load_2d`).
#[derive(Clone, Copy, Debug)]
pub struct MbarrierRef {
    addr: usize,
}

impl ThreadCtx<'_> {
    /// The block's array of mbarriers at `at` (`SharedArray::<Mbarrier, N>::new()`).
    pub fn shared_mbarriers(&self, len: usize, at: &'static SrcLoc) -> SimMbarriers {
        let (ptr, len, _) = self.shared_static::<u64>(len, at);
        SimMbarriers { ptr, len }
    }
}

impl SimMbarriers {
    /// Barrier `i`, bounds-checked at `at`.
    pub fn at(&self, i: usize, at: &'static SrcLoc) -> MbarrierRef {
        if i >= self.len {
            raise(Failure::OutOfBounds {
                at,
                index: i as u64,
                len: self.len as u64,
            })
        }
        MbarrierRef {
            addr: self.ptr.wrapping_add(i) as usize,
        }
    }

    /// `bars[i].init(count)`.
    pub fn init(&self, ctx: &ThreadCtx<'_>, i: usize, count: u32, at: &'static SrcLoc) {
        self.at(i, at).init(ctx, count, at)
    }

    /// `bars[i].arrive()`.
    pub fn arrive(&self, ctx: &ThreadCtx<'_>, i: usize, at: &'static SrcLoc) {
        self.at(i, at).arrive(ctx, 0, at)
    }

    /// `bars[i].arrive_expect_tx(bytes)`.
    pub fn arrive_expect_tx(&self, ctx: &ThreadCtx<'_>, i: usize, bytes: u32, at: &'static SrcLoc) {
        self.at(i, at).arrive(ctx, bytes, at)
    }

    /// `bars[i].try_wait(parity)`.
    pub fn try_wait(
        &self,
        ctx: &ThreadCtx<'_>,
        i: usize,
        parity: u32,
        at: &'static SrcLoc,
    ) -> bool {
        self.at(i, at).try_wait(ctx, parity, at)
    }

    /// `bars[i].wait(parity)`: suspends the thread until the phase of that parity has
    /// completed (a thread that waits forever is the executor's deadlock report).
    pub async fn wait(&self, ctx: &ThreadCtx<'_>, i: usize, parity: u32, at: &'static SrcLoc) {
        let bar = self.at(i, at);
        while !bar.try_wait(ctx, parity, at) {
            ctx.block().slots[ctx.tid() as usize]
                .state
                .set(State::Mbarrier(at.id()));
            Suspend::new().await;
        }
    }
}

impl MbarrierRef {
    fn init(self, ctx: &ThreadCtx<'_>, count: u32, at: &'static SrcLoc) {
        if count == 0 || count > MAX_COUNT {
            misuse(ctx, format!("mbarrier init at {at}: the arrival count is {count}, and it must be 1 to {MAX_COUNT}"));
        }
        let mut bars = ctx.block().barriers.bars.borrow_mut();
        if let Some(old) = bars.get(&self.addr) {
            let first = old.init_at;
            drop(bars);
            misuse(
                ctx,
                format!(
                    "mbarrier init at {at}: this mbarrier was already initialised at {first} \
                     (init it once, by one thread)"
                ),
            );
        }
        bars.insert(
            self.addr,
            Mbar {
                count,
                pending: count,
                tx: 0,
                phase: 0,
                init_at: at,
                releasing: HashMap::new(),
                released: HashMap::new(),
            },
        );
    }

    /// An arrival, after adding `expect` bytes to the transaction count.
    fn arrive(self, ctx: &ThreadCtx<'_>, expect: u32, at: &'static SrcLoc) {
        let seen = ctx.seen_snapshot();
        self.update(ctx, at, |bar| {
            merge_seen(&mut bar.releasing, &seen);
            if bar.pending == 0 {
                let count = bar.count;
                return Err(format!(
                    "mbarrier arrive at {at}: more arrivals than the count ({count}) in one \
                     phase (the phase waits only for its transaction bytes now)"
                ));
            }
            bar.tx += i64::from(expect);
            bar.pending -= 1;
            Ok(())
        });
    }

    /// A copy in flight (`tma_load_2d`): it completes its bytes, and lands, when a thread
    /// looks at the barrier and the phase waits for nothing else.
    pub(crate) fn start_copy(self, ctx: &ThreadCtx<'_>, landing: Landing, at: &'static SrcLoc) {
        self.known(ctx, at, "tma_load_2d");
        ctx.block()
            .barriers
            .copies
            .borrow_mut()
            .entry(self.addr)
            .or_default()
            .push(landing);
        self.wake_if_settled(ctx);
    }

    /// Wakes the waiting threads when the phase waits only for the copies in flight: a
    /// waiter then completes them (`settle`), as the GPU's copies would complete.
    fn wake_if_settled(self, ctx: &ThreadCtx<'_>) {
        let block = ctx.block();
        let settled = {
            let copies = block.barriers.copies.borrow();
            let bytes: i64 = copies
                .get(&self.addr)
                .map_or(0, |c| c.iter().map(|c| i64::from(c.bytes)).sum());
            let bars = block.barriers.bars.borrow();
            bars.get(&self.addr)
                .is_some_and(|bar| bytes > 0 && bar.pending == 0 && bar.tx == bytes)
        };
        if settled {
            block.wake_mbarrier_waiters();
        }
    }

    /// Panics unless the barrier was initialised.
    fn known(self, ctx: &ThreadCtx<'_>, at: &'static SrcLoc, what: &str) {
        if !ctx.block().barriers.bars.borrow().contains_key(&self.addr) {
            misuse(ctx, format!("mbarrier {what} at {at}: the mbarrier is not initialised (call `init(count)` first, then `fence_mbarrier_init()` and `sync_threads()`)"));
        }
    }

    /// Applies `f` to the barrier, then completes its phase if nothing is left.
    fn update(
        self,
        ctx: &ThreadCtx<'_>,
        at: &'static SrcLoc,
        f: impl FnOnce(&mut Mbar) -> Result<(), String>,
    ) {
        self.known(ctx, at, "arrive");
        let block = ctx.block();
        let complete = {
            let mut bars = block.barriers.bars.borrow_mut();
            let bar = bars.get_mut(&self.addr).expect("known barrier");
            if let Err(message) = f(bar) {
                drop(bars);
                misuse(ctx, message);
            }
            let in_flight = block.barriers.copies.borrow().contains_key(&self.addr);
            if bar.pending == 0 && bar.tx == 0 && !in_flight {
                bar.complete_phase();
                true
            } else {
                false
            }
        };
        if complete {
            block.phase_completed();
        } else {
            self.wake_if_settled(ctx);
        }
    }

    /// Completes the copies in flight if the phase waits for nothing else: they land and
    /// the phase completes.
    fn settle(self, ctx: &ThreadCtx<'_>) {
        let block = ctx.block();
        let copies = {
            let mut all = block.barriers.copies.borrow_mut();
            let Some(copies) = all.get(&self.addr) else {
                return;
            };
            let bytes: i64 = copies.iter().map(|c| i64::from(c.bytes)).sum();
            let mut bars = block.barriers.bars.borrow_mut();
            let bar = bars.get_mut(&self.addr).expect("known barrier");
            if bar.pending != 0 || bar.tx != bytes {
                return;
            }
            bar.tx = 0;
            bar.complete_phase();
            (all.remove(&self.addr).unwrap_or_default(), bar.phase)
        };
        let (copies, phase) = copies;
        for c in copies {
            block.cp_pending.landed(&c.keys, self.addr, phase);
            (c.land)();
        }
        block.phase_completed();
    }

    fn try_wait(self, ctx: &ThreadCtx<'_>, parity: u32, at: &'static SrcLoc) -> bool {
        self.known(ctx, at, "wait");
        self.settle(ctx);
        let block = ctx.block();
        let (phase, released) = {
            let bars = block.barriers.bars.borrow();
            let bar = &bars[&self.addr];
            (bar.phase, bar.released.clone())
        };
        // The phase of parity `parity` has completed when the current one has the other:
        // then this thread has seen the phases up to the current one complete, and acquires
        // what their arrivals had seen.
        let done = phase % 2 != u64::from(parity & 1);
        if done {
            let mut seen = block.barriers.seen.borrow_mut();
            for (bar, phases) in released.into_iter().chain([(self.addr, phase)]) {
                ctx.see_phases(bar, phases);
                let e = seen.entry(bar).or_insert(0);
                *e = (*e).max(phases);
            }
        }
        done
    }
}

/// Stops the launch with `message` (a misuse of a barrier, naming its Rust line).
#[cold]
fn misuse(ctx: &ThreadCtx<'_>, message: String) -> ! {
    let block = ctx.block();
    raise(Failure::Report(Box::new(Error::KernelPanic {
        kernel: block.launch.kernel.name.to_string(),
        message,
        block: block.idx,
        thread: block.thread_idx(ctx.tid()),
    })))
}
