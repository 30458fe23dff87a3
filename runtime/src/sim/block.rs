//! The block executor: every simulated thread of one block is a future, polled on one OS
//! thread until it completes or suspends at a sync point.
//!
//! A round polls every runnable thread once (in thread order, or shuffled by the seed).
//! A thread that reaches `sync_threads*`, a warp collective, or an atomic that yields,
//! writes what it waits for into its [`Slot`] and returns `Pending`. After the round:
//! - yielded threads are runnable again;
//! - a warp collective is released when every lane of its mask waits at a collective of
//!   the same kind with the same mask (sites may differ, as on Volta and later); the
//!   results are written into the slots;
//! - `active_mask()` and `print` are released once no lane of the warp can run without
//!   waiting: the lanes at the same site go on together (and print in lane order);
//! - a block barrier is released when every live (non-exited) thread waits at one, all
//!   at the same site and of the same kind, else the launch fails naming both sites;
//! - when every live thread waits at a grid sync, the block reports it to its launch
//!   (`grid.rs`), which releases it once every block of the grid is there;
//! - when nothing can be released and no thread can run, the launch fails with a
//!   description of who waits where (a deadlock).
//!
//! A [`Runner`] holds the threads of one block and runs one round at a time, so that one OS
//! thread can interleave the blocks of a cooperative launch; a plain launch runs each block
//! to its end.
//!
//! Per-block state lives on the block's OS thread only: `Cell`s, no locks.

use std::cell::{Cell, OnceCell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::task::{Context, Poll, Waker};

use super::check::panic_to_error;
use super::launch::Launch;
use super::launch::SimFuture;
use super::mma::WIDE;
use super::shared::SharedMem;
use super::site::src_loc_by_id;
use super::warp::{self, WarpWait};
use crate::dim::Dim3;
use crate::error::{Error, Result};

/// How many rounds `active_mask()` waits for lanes of its warp that keep yielding.
const MAX_HELD_ROUNDS: u32 = 64;

/// The vector clocks of the 32 lanes of a warp, lane after lane (32 x 32 entries).
type WarpClocks = Box<[Cell<u32>]>;

/// The kind of a block barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarrierKind {
    Plain,
    Count,
    And,
    Or,
    /// `this_grid().sync()`: every live thread of the block, then every block of the grid.
    Grid,
}

impl BarrierKind {
    fn name(self) -> &'static str {
        match self {
            BarrierKind::Plain => "sync_threads",
            BarrierKind::Count => "sync_threads_count",
            BarrierKind::And => "sync_threads_and",
            BarrierKind::Or => "sync_threads_or",
            BarrierKind::Grid => "this_grid().sync()",
        }
    }
}

/// What a thread waits at a block barrier with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BarrierWait {
    pub(crate) kind: BarrierKind,
    pub(crate) site: u32,
    pub(crate) pred: bool,
}

/// Where a simulated thread stands.
#[derive(Clone, Copy, Debug)]
pub(crate) enum State {
    /// Being polled, or runnable.
    Running,
    /// Suspended at an atomic: runnable next round.
    Yielded,
    Barrier(BarrierWait),
    Warp(WarpWait),
    /// At `active_mask()` (site id): released once no lane of the warp can run.
    ActiveMask(u32),
    /// At a print (site id), its text in the slot: released as `ActiveMask`.
    Print(u32),
    /// At an mbarrier `wait` (site id) whose phase has not completed: runnable again when
    /// a phase of any barrier of the block completes (it then looks again).
    Mbarrier(u32),
    Exited,
}

impl State {
    /// `active_mask()` and print: (which, site), for grouping the lanes at one site.
    fn converging(self) -> Option<(bool, u32)> {
        match self {
            State::ActiveMask(site) => Some((false, site)),
            State::Print(site) => Some((true, site)),
            _ => None,
        }
    }
}

/// A thread's place in the block state: what it waits for, and what it gets back.
pub(crate) struct Slot {
    pub(crate) state: Cell<State>,
    pub(crate) result: Cell<u64>,
    /// A wide collective's operands and results (`mma_sync`'s fragments).
    pub(crate) wide: Cell<[u32; WIDE]>,
    /// The text of a thread waiting at a print.
    pub(crate) text: Cell<Option<String>>,
}

/// What a round of a block ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// Every thread has returned.
    Done,
    /// Another block failed: the launch stops.
    Stopped,
    /// Threads can go on.
    Running,
    /// Every live thread waits at the grid sync at this site.
    AtGridSync(u32),
}

/// The state of one block while it runs.
pub(crate) struct Block<'l> {
    pub(crate) launch: &'l Launch<'l>,
    pub(crate) idx: Dim3,
    pub(crate) linear: u64,
    /// Threads in the block.
    pub(crate) size: u32,
    pub(crate) slots: Box<[Slot]>,
    /// Race checks on.
    pub(crate) checks: bool,
    /// The epoch id of the current barrier interval (race checks only).
    pub(crate) epoch: Cell<u32>,
    /// The grid syncs this block has passed.
    pub(crate) grid_phase: Cell<u32>,
    /// Per warp, each lane's vector clock over the 32 lanes of the warp (race checks only),
    /// allocated at the warp's first collective; before it, a thread's own entry is 1 and
    /// the others 0.
    clocks: Box<[OnceCell<WarpClocks>]>,
    pub(crate) shared: SharedMem,
    /// Scratch: per warp, the lanes waiting at a collective, exited, at `active_mask`,
    /// runnable.
    scratch: RefCell<[Vec<u32>; 4]>,
    /// Per warp, the rounds its `active_mask()` callers have waited for yielded lanes.
    held: RefCell<Vec<u32>>,
    /// The first read of uninitialised shared memory, reported at the next barrier or
    /// at the end unless a race (which explains it) is found first.
    uninitialized: RefCell<Option<Error>>,
    /// The shared elements `cp_async` and `tma_load_2d` copies in flight will write (race
    /// checks).
    pub(crate) cp_pending: super::cp_async::Pending,
    /// The block's mbarriers and the copies that land with their phases.
    pub(crate) barriers: super::mbarrier::Barriers,
    /// The shared elements `wgmma`s in flight read (race checks).
    pub(crate) wgmma_pending: super::wgmma::Pending,
}

impl<'l> Block<'l> {
    pub(crate) fn new(launch: &'l Launch<'l>, linear: u64) -> Result<Block<'l>> {
        let idx = launch.block_idx(linear);
        let size = launch.cfg.block.count() as u32;
        let checks = launch.options.race_checks;
        let warps = size.div_ceil(32) as usize;
        let clocks = if checks {
            (0..warps).map(|_| OnceCell::new()).collect()
        } else {
            Box::default()
        };
        let block = Block {
            launch,
            idx,
            linear,
            size,
            slots: (0..size)
                .map(|_| Slot {
                    state: Cell::new(State::Running),
                    result: Cell::new(0),
                    wide: Cell::new([0; WIDE]),
                    text: Cell::new(None),
                })
                .collect(),
            checks,
            epoch: Cell::new(0),
            grid_phase: Cell::new(0),
            clocks,
            shared: SharedMem::default(),
            scratch: RefCell::new(std::array::from_fn(|_| vec![0; warps])),
            held: RefCell::new(vec![0; warps]),
            uninitialized: RefCell::new(None),
            cp_pending: Default::default(),
            barriers: Default::default(),
            wgmma_pending: Default::default(),
        };
        if checks {
            block.next_epoch()?;
        }
        Ok(block)
    }

    /// `thread_idx()` of linear thread `t`.
    pub(crate) fn thread_idx(&self, t: u32) -> Dim3 {
        let d = self.launch.cfg.block;
        Dim3::new(t % d.x, t / d.x % d.y, t / (d.x * d.y))
    }

    /// The lanes of warp `w` that exist.
    pub(crate) fn existing_lanes(&self, w: u32) -> u32 {
        let n = (self.size - w * 32).min(32);
        if n == 32 {
            u32::MAX
        } else {
            (1 << n) - 1
        }
    }

    /// Starts a new barrier interval (race checks).
    fn next_epoch(&self) -> Result<()> {
        match self.launch.epochs.start(self.linear, self.grid_phase.get()) {
            Some(id) => {
                self.epoch.set(id);
                Ok(())
            }
            None => Err(Error::KernelPanic {
                kernel: self.launch.kernel.name.to_string(),
                message: "the launch ran more than 2^32 barrier intervals, more than the race \
                          checks can count; set WARPSPEED_SIM_RACES=off"
                    .into(),
                block: self.idx,
                thread: Dim3::default(),
            }),
        }
    }

    /// A phase of an mbarrier completed (in the middle of a thread's poll): the threads
    /// waiting at mbarriers look again next round, and a new barrier interval starts for
    /// the race checks (sim/mbarrier.rs says why).
    pub(crate) fn phase_completed(&self) {
        self.wake_mbarrier_waiters();
        if self.checks {
            if let Err(e) = self.next_epoch() {
                super::check::raise(super::check::Failure::Report(Box::new(e)));
            }
        }
    }

    /// The threads waiting at mbarriers look again next round.
    pub(crate) fn wake_mbarrier_waiters(&self) {
        for slot in self.slots.iter() {
            if let State::Mbarrier(_) = slot.state.get() {
                slot.state.set(State::Yielded);
            }
        }
    }

    /// "thread (3, 0, 0)".
    fn who(&self, t: u32) -> String {
        format!("thread {}", self.thread_idx(t))
    }

    /// "thread (3, 0, 0) (lane 3 of warp 0)".
    fn who_lane(&self, t: u32) -> String {
        format!(
            "thread {} (lane {} of warp {})",
            self.thread_idx(t),
            t % 32,
            t / 32
        )
    }

    /// What thread `t` waits at, in words: "shfl_sync (mask 0xffffffff) at src/x.rs:3".
    fn waits_at(&self, t: u32) -> String {
        match self.slots[t as usize].state.get() {
            State::Barrier(b) => format!("{} at {}", b.kind.name(), src_loc_by_id(b.site)),
            State::Warp(w) => format!(
                "{} (mask {:#010x}) at {}",
                w.op.name(),
                w.mask,
                src_loc_by_id(w.site)
            ),
            State::ActiveMask(site) => format!("active_mask at {}", src_loc_by_id(site)),
            State::Print(site) => format!("a print at {}", src_loc_by_id(site)),
            State::Mbarrier(site) => format!(
                "an mbarrier wait at {} (its phase never completes)",
                src_loc_by_id(site)
            ),
            State::Exited => "nothing (it has exited)".into(),
            State::Running | State::Yielded => "nothing (it is running)".into(),
        }
    }

    /// Notes a read of uninitialised shared memory (the first one is kept).
    pub(crate) fn note_uninitialized(&self, report: impl FnOnce() -> Error) {
        let mut pending = self.uninitialized.borrow_mut();
        if pending.is_none() {
            *pending = Some(report());
        }
    }

    /// The error to report for `err`: an earlier uninitialised read goes first, unless
    /// `err` is a data race (which may explain that read).
    fn prefer_uninitialized(&self, err: Error) -> Error {
        match err {
            Error::DataRace { .. } => err,
            _ => self.uninitialized.borrow_mut().take().unwrap_or(err),
        }
    }

    /// Thread `t`'s vector clock, once its warp has had a collective.
    pub(crate) fn clocks_of(&self, t: u32) -> Option<&[Cell<u32>]> {
        let warp = self.clocks[(t / 32) as usize].get()?;
        Some(&warp[((t % 32) * 32) as usize..][..32])
    }

    pub(crate) fn divergent(&self, detail: String) -> Error {
        Error::DivergentBarrier {
            kernel: self.launch.kernel.name.to_string(),
            block: self.idx,
            detail,
        }
    }

    /// After a round: makes runnable what can go on, or reports why nothing can.
    fn release(&self, live: u32, runnable: &mut Vec<u32>) -> Result<Progress> {
        let mut scratch = self.scratch.borrow_mut();
        let [waiting, exited, asking, running] = &mut *scratch;
        for v in [&mut *waiting, &mut *exited, &mut *asking, &mut *running] {
            v.fill(0);
        }
        let mut at_barrier = 0;
        for (t, slot) in self.slots.iter().enumerate() {
            let (w, bit) = (t / 32, 1u32 << (t % 32));
            match slot.state.get() {
                State::Yielded | State::Running => {
                    running[w] |= bit;
                    runnable.push(t as u32);
                }
                State::Warp(_) => waiting[w] |= bit,
                State::ActiveMask(_) | State::Print(_) => asking[w] |= bit,
                State::Barrier(_) => at_barrier += 1,
                State::Mbarrier(_) => {}
                State::Exited => exited[w] |= bit,
            }
        }
        let mut held = self.held.borrow_mut();
        for w in 0..waiting.len() {
            if asking[w] != 0 {
                // Lanes still running (yielded at an atomic) may be on their way to the
                // same active_mask() or print call; a lane spinning for good has diverged.
                if running[w] == 0 || held[w] >= MAX_HELD_ROUNDS {
                    held[w] = 0;
                    self.release_converging(w as u32, asking[w], runnable);
                } else {
                    held[w] += 1;
                }
            }
            if waiting[w] != 0 {
                self.release_warp(w as u32, waiting[w], exited[w], runnable)?;
            }
        }
        if !runnable.is_empty() {
            return Ok(Progress::Running);
        }
        if at_barrier == live {
            return self.release_barrier(runnable);
        }
        Err(self.deadlock())
    }

    /// Answers `active_mask()` and prints in warp `w`, whose lanes are all suspended or
    /// exited. The lanes waiting at one site are the lanes that would be converged there on
    /// the GPU (lanes elsewhere have diverged): at `active_mask()` each gets their mask; at
    /// a print their texts are written in lane order, as one piece.
    fn release_converging(&self, w: u32, asking: u32, runnable: &mut Vec<u32>) {
        let base = w * 32;
        let slot = |lane: u32| &self.slots[(base + lane) as usize];
        let key = |lane: u32| {
            slot(lane)
                .state
                .get()
                .converging()
                .expect("a lane at active_mask or print")
        };
        let lanes = |mask: u32| (0..32u32).filter(move |l| mask & (1 << l) != 0);
        // One print site per round, the first in the source: on the GPU diverged lanes
        // reconverge before the later print (`if lane == 0 { print(a) } print(b)` prints
        // a, then b from every lane), so program order is the order of the output.
        let first_print = lanes(asking)
            .filter_map(|l| match key(l) {
                (true, site) => {
                    let at = src_loc_by_id(site);
                    Some(((at.file(), at.line(), at.column()), site))
                }
                _ => None,
            })
            .min()
            .map(|(_, site)| site);
        let mut pending = asking;
        let mut released = 0u32;
        while pending != 0 {
            let here = key(pending.trailing_zeros());
            let group = lanes(pending)
                .filter(|&o| key(o) == here)
                .fold(0u32, |m, o| m | 1 << o);
            pending &= !group;
            let (print, site) = here;
            if print && Some(site) != first_print {
                continue;
            }
            released |= group;
            if print {
                let texts: Vec<String> = lanes(group)
                    .map(|l| slot(l).text.take().unwrap_or_default())
                    .collect();
                self.launch
                    .print
                    .write_group(texts.iter().map(String::as_str));
            } else {
                for l in lanes(group) {
                    slot(l).result.set(u64::from(group));
                }
            }
        }
        for l in lanes(released) {
            slot(l).state.set(State::Running);
            runnable.push(base + l);
        }
    }

    /// Releases every collective of warp `w` whose mask is complete.
    fn release_warp(
        &self,
        w: u32,
        waiting: u32,
        exited: u32,
        runnable: &mut Vec<u32>,
    ) -> Result<()> {
        let base = w * 32;
        let wait_of = |lane: u32| match self.slots[(base + lane) as usize].state.get() {
            State::Warp(wait) => Some(wait),
            _ => None,
        };
        // A warpgroup collective released from an earlier warp of its group has released
        // these lanes too.
        let waiting = (0..32u32)
            .filter(|&l| waiting & (1 << l) != 0 && wait_of(l).is_some())
            .fold(0u32, |m, l| m | 1 << l);
        // Lanes that exited or do not exist (a partial last warp) take no part, as CUDA
        // asks only the non-exited lanes of a mask to arrive; a shuffle from one of them
        // is still an error, since its value is undefined.
        let existing = self.existing_lanes(w);
        let mut pending = waiting;
        while pending != 0 {
            let lane = pending.trailing_zeros();
            let me = wait_of(lane).expect("a waiting lane");
            if me.op.is_warpgroup() {
                pending &= !(0..32u32)
                    .filter(|&l| wait_of(l).is_some_and(|o| o.matches(&me)))
                    .fold(0u32, |m, l| m | 1 << l);
                self.release_warpgroup(w, me, runnable)?;
                continue;
            }
            let taking_part = me.mask & existing & !exited;
            let complete = taking_part & !waiting == 0
                && (0..32)
                    .filter(|l| taking_part & (1 << l) != 0)
                    .all(|l| wait_of(l).is_some_and(|o| o.matches(&me)));
            if !complete {
                pending &= !(1 << lane);
                continue;
            }
            pending &= !taking_part;
            let mut waits = [None; 32];
            for l in 0..32 {
                if taking_part & (1 << l) != 0 {
                    waits[l as usize] = wait_of(l);
                }
            }
            let mut out = [0u64; 32];
            let wide_op = me.op.is_wide();
            let mut wide = [[0u32; WIDE]; 32];
            if wide_op {
                for l in 0..32 {
                    if taking_part & (1 << l) != 0 {
                        wide[l as usize] = self.slots[(base + l) as usize].wide.get();
                    }
                }
            }
            if let Err((l, detail)) = warp::results(taking_part, &waits, &mut out, &mut wide) {
                return Err(self.divergent(format!(
                    "{} at {}: {detail}",
                    self.who_lane(base + l),
                    src_loc_by_id(waits[l as usize].map_or(me.site, |w| w.site))
                )));
            }
            if self.checks {
                self.merge_clocks(base, taking_part);
            }
            for l in 0..32 {
                if taking_part & (1 << l) != 0 {
                    let slot = &self.slots[(base + l) as usize];
                    slot.result.set(out[l as usize]);
                    if wide_op {
                        slot.wide.set(wide[l as usize]);
                    }
                    slot.state.set(State::Running);
                    runnable.push(base + l);
                }
            }
        }
        Ok(())
    }

    /// A warpgroup collective (`wgmma`, `setmaxnreg`) that a lane of warp `w` waits at:
    /// released once every thread of the warpgroup waits at it (with the full mask), an
    /// error when one of them has exited or does not exist.
    fn release_warpgroup(&self, w: u32, me: WarpWait, runnable: &mut Vec<u32>) -> Result<()> {
        let first = w / 4 * 128;
        let name = me.op.name();
        let at = src_loc_by_id(me.site);
        if first + 128 > self.size {
            return Err(self.divergent(format!(
                "{} calls {name} at {at}: it needs the 128 threads of warpgroup {} (threads \
                 {first}..{}), and the block has {} threads (a warpgroup collective needs a \
                 block of a multiple of 128 threads)",
                self.who_lane(w * 32),
                w / 4,
                first + 128,
                self.size
            )));
        }
        for t in first..first + 128 {
            match self.slots[t as usize].state.get() {
                State::Warp(o) if o.matches(&me) => {}
                State::Exited => {
                    return Err(self.divergent(format!(
                        "{} calls {name} at {at}: every thread of its warpgroup must, and {} \
                         has exited",
                        self.who_lane(w * 32),
                        self.who_lane(t)
                    )))
                }
                _ => return Ok(()),
            }
        }
        for t in first..first + 128 {
            let slot = &self.slots[t as usize];
            slot.result.set(0);
            slot.state.set(State::Running);
            runnable.push(t);
        }
        Ok(())
    }

    /// Every participant of a collective learns what every other knew; then each one's own
    /// clock moves on, so its later accesses are not ordered before the others' by this.
    fn merge_clocks(&self, base: u32, mask: u32) {
        let lanes = || (0..32u32).filter(move |l| mask & (1 << l) != 0);
        let warp = self.clocks[(base / 32) as usize].get_or_init(|| {
            // A thread's own clock starts at 1: nobody has synchronised with it yet.
            (0..32 * 32)
                .map(|i| Cell::new(u32::from(i / 32 == i % 32)))
                .collect()
        });
        let row = |lane: u32| &warp[(lane * 32) as usize..][..32];
        let mut merged = [0u32; 32];
        for l in lanes() {
            for (m, c) in merged.iter_mut().zip(row(l)) {
                *m = (*m).max(c.get());
            }
        }
        for l in lanes() {
            for (c, m) in row(l).iter().zip(&merged) {
                c.set(*m);
            }
            let own = &row(l)[l as usize];
            own.set(own.get() + 1);
        }
    }

    /// Every live thread waits at a barrier: releases it, or reports divergent barriers.
    /// At a grid sync nothing is released: the block waits for the grid.
    fn release_barrier(&self, runnable: &mut Vec<u32>) -> Result<Progress> {
        let mut first: Option<(u32, BarrierWait)> = None;
        let (mut waiters, mut count) = (0u32, 0u32);
        for (t, slot) in self.slots.iter().enumerate() {
            let State::Barrier(b) = slot.state.get() else {
                continue;
            };
            let t = t as u32;
            match first {
                None => first = Some((t, b)),
                Some((t0, b0)) if b0.kind != b.kind || b0.site != b.site => {
                    let (mut w0, mut w) = (self.waits_at(t0), self.waits_at(t));
                    if w0 == w {
                        // Two sites on one line: name the columns too.
                        let at = |site: u32, kind: BarrierKind| {
                            format!("{} at {:?}", kind.name(), src_loc_by_id(site))
                        };
                        (w0, w) = (at(b0.site, b0.kind), at(b.site, b.kind));
                    }
                    return Err(self.divergent(format!(
                        "threads of the block wait at different barriers: {} at {w0} and {} at \
                         {w} (every thread must reach the same barrier)",
                        self.who(t0),
                        self.who(t),
                    )));
                }
                Some(_) => {}
            }
            waiters += 1;
            count += u32::from(b.pred);
            runnable.push(t);
        }
        let Some((_, b0)) = first else {
            return Ok(Progress::Running);
        };
        // Tiles some thread's wait has seen land are every thread's after this barrier.
        self.cp_pending.forget_seen(|bar| self.barriers.seen(bar));
        // Writes after this barrier cannot race with an uninitialised read before it.
        if let Some(err) = self.uninitialized.borrow_mut().take() {
            return Err(err);
        }
        if b0.kind == BarrierKind::Grid {
            runnable.clear();
            if matches!(self.slots[0].state.get(), State::Exited) {
                return Err(self.divergent(format!(
                    "{} has returned, but the other threads of the block wait at {}: thread \
                     (0, 0, 0) of each block signals the block's arrival at a grid sync (as in \
                     CUDA's own grid.sync()), so on the GPU this hangs",
                    self.who(0),
                    self.waits_at(first_at_barrier(&self.slots)),
                )));
            }
            return Ok(Progress::AtGridSync(b0.site));
        }
        let result = match b0.kind {
            BarrierKind::Grid => unreachable!("handled above"),
            BarrierKind::Plain => 0,
            BarrierKind::Count => u64::from(count),
            BarrierKind::And => u64::from(count == waiters),
            BarrierKind::Or => u64::from(count > 0),
        };
        for &t in runnable.iter() {
            let slot = &self.slots[t as usize];
            slot.result.set(result);
            slot.state.set(State::Running);
        }
        if self.checks {
            self.next_epoch()?;
        }
        Ok(Progress::Running)
    }

    /// The grid sync every live thread of the block waits at is released: they go on, in
    /// the block's next grid phase.
    fn release_grid(&self, runnable: &mut Vec<u32>) -> Result<()> {
        for (t, slot) in self.slots.iter().enumerate() {
            if let State::Barrier(BarrierWait {
                kind: BarrierKind::Grid,
                ..
            }) = slot.state.get()
            {
                slot.result.set(0);
                slot.state.set(State::Running);
                runnable.push(t as u32);
            }
        }
        self.grid_phase.set(self.grid_phase.get() + 1);
        if self.checks {
            self.next_epoch()?;
        }
        Ok(())
    }

    /// Nothing can run and nothing can be released: says who waits for whom.
    fn deadlock(&self) -> Error {
        // A collective waiting for a lane that is somewhere else.
        for (t, slot) in self.slots.iter().enumerate() {
            let State::Warp(me) = slot.state.get() else {
                continue;
            };
            let t = t as u32;
            let base = t / 32 * 32;
            for l in 0..32 {
                if me.mask & (1 << l) == 0 {
                    continue;
                }
                let other = base + l;
                match self.slots[other as usize].state.get() {
                    State::Warp(o) if o.matches(&me) => continue,
                    State::Warp(_) => {
                        return self.divergent(format!(
                            "lanes of one mask wait at different warp collectives: {} at {} and \
                             {} at {} (every lane of a mask must call the same collective with the \
                             same mask)",
                            self.who_lane(t),
                            self.waits_at(t),
                            self.who_lane(other),
                            self.waits_at(other)
                        ))
                    }
                    _ => {
                        return self.divergent(format!(
                            "deadlock: {} waits at {} for lane {l}, but {} waits at {}",
                            self.who_lane(t),
                            self.waits_at(t),
                            self.who_lane(other),
                            self.waits_at(other)
                        ))
                    }
                }
            }
        }
        // A warpgroup collective waiting for a thread of its warpgroup that is elsewhere.
        for (t, slot) in self.slots.iter().enumerate() {
            let State::Warp(me) = slot.state.get() else {
                continue;
            };
            if !me.op.is_warpgroup() {
                continue;
            }
            let t = t as u32;
            let first = t / 128 * 128;
            for other in first..(first + 128).min(self.size) {
                match self.slots[other as usize].state.get() {
                    State::Warp(o) if o.matches(&me) => {}
                    _ => {
                        return self.divergent(format!(
                            "threads of one warpgroup are not at the same warpgroup collective: \
                             {} waits at {}, and {} waits at {} (every thread of the warpgroup \
                             must reach it)",
                            self.who_lane(t),
                            self.waits_at(t),
                            self.who_lane(other),
                            self.waits_at(other)
                        ))
                    }
                }
            }
        }
        // A barrier waiting for threads stuck elsewhere.
        let at = |pred: fn(&State) -> bool| {
            self.slots
                .iter()
                .position(|s| pred(&s.state.get()))
                .map(|t| t as u32)
        };
        match (
            at(|s| matches!(s, State::Barrier(_))),
            at(|s| !matches!(s, State::Barrier(_) | State::Exited)),
        ) {
            (Some(b), Some(o)) => self.divergent(format!(
                "deadlock: {} waits at {}, but {} waits at {}",
                self.who(b),
                self.waits_at(b),
                self.who(o),
                self.waits_at(o)
            )),
            (None, _) if at(|s| matches!(s, State::Mbarrier(_))).is_some() => {
                let t = at(|s| matches!(s, State::Mbarrier(_))).unwrap_or(0);
                self.divergent(format!(
                    "deadlock: {} waits at {}: no thread that could arrive on it or complete its \
                     bytes is left running",
                    self.who(t),
                    self.waits_at(t)
                ))
            }
            _ => self.divergent("deadlock: no thread can go on".into()),
        }
    }
}

/// The first thread waiting at a barrier.
fn first_at_barrier(slots: &[Slot]) -> u32 {
    slots
        .iter()
        .position(|s| matches!(s.state.get(), State::Barrier(_)))
        .map_or(0, |t| t as u32)
}

/// The threads of one block, run one round at a time.
pub(crate) struct Runner<'a> {
    block: &'a Block<'a>,
    /// Each thread's future, `None` once it has returned.
    tasks: Vec<Option<SimFuture<'a>>>,
    /// The threads to poll in the next round.
    runnable: Vec<u32>,
    /// Threads that have not returned.
    live: u32,
    rng: Option<Shuffler>,
}

impl<'a> Runner<'a> {
    /// `tasks` holds one future per thread of `block`, in thread order.
    pub(crate) fn new(block: &'a Block<'a>, tasks: Vec<Option<SimFuture<'a>>>) -> Runner<'a> {
        Runner {
            block,
            tasks,
            runnable: (0..block.size).collect(),
            live: block.size,
            rng: block
                .launch
                .options
                .seed
                .map(|seed| Shuffler::new(seed, block.linear)),
        }
    }

    /// Polls the threads' futures until all complete (a plain launch: a grid sync cannot
    /// be reached); the first failure stops the block.
    pub(crate) fn run_to_end(&mut self) -> Result<()> {
        loop {
            match self.round()? {
                Progress::Done | Progress::Stopped => return Ok(()),
                Progress::Running => {}
                Progress::AtGridSync(site) => {
                    return Err(self.block.divergent(format!(
                        "the block waits at this_grid().sync() at {}, outside a cooperative \
                         launch",
                        src_loc_by_id(site)
                    )))
                }
            }
        }
    }

    /// Polls every runnable thread once, then releases what can go on.
    pub(crate) fn round(&mut self) -> Result<Progress> {
        let block = self.block;
        let mut cx = Context::from_waker(Waker::noop());
        if let Some(rng) = &mut self.rng {
            rng.shuffle(&mut self.runnable);
        }
        for &t in &self.runnable {
            let slot = &block.slots[t as usize];
            slot.state.set(State::Running);
            let Some(task) = self.tasks[t as usize].as_mut() else {
                continue;
            };
            match catch_unwind(AssertUnwindSafe(|| task.as_mut().poll(&mut cx))) {
                Ok(Poll::Ready(())) => {
                    self.tasks[t as usize] = None;
                    slot.state.set(State::Exited);
                    self.live -= 1;
                }
                Ok(Poll::Pending) => {
                    if matches!(slot.state.get(), State::Running) {
                        slot.state.set(State::Yielded);
                    }
                }
                Err(payload) => {
                    return Err(block.prefer_uninitialized(panic_to_error(
                        block.launch.kernel.name,
                        payload,
                        block.idx,
                        block.thread_idx(t),
                    )))
                }
            }
        }
        self.runnable.clear();
        if block.launch.stopped() {
            return Ok(Progress::Stopped);
        }
        if self.live == 0 {
            return match block.uninitialized.borrow_mut().take() {
                Some(err) => Err(err),
                None => Ok(Progress::Done),
            };
        }
        block
            .release(self.live, &mut self.runnable)
            .map_err(|err| block.prefer_uninitialized(err))
    }

    /// Lets the block's threads go on past the grid sync they wait at (every block of the
    /// grid has arrived).
    pub(crate) fn release_grid(&mut self) -> Result<()> {
        self.block.release_grid(&mut self.runnable)
    }
}

/// Shuffles the poll order of a round, deterministically from the seed and the block.
struct Shuffler(u64);

impl Shuffler {
    fn new(seed: u64, block: u64) -> Shuffler {
        // splitmix64 of the pair, never 0 (xorshift's fixed point).
        let mut z = seed ^ block.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Shuffler((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn shuffle(&mut self, items: &mut [u32]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}
