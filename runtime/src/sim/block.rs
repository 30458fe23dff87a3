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
//! - a block barrier is released when every live (non-exited) thread waits at one, all
//!   at the same site and of the same kind, else the launch fails naming both sites;
//! - when nothing can be released and no thread can run, the launch fails with a
//!   description of who waits where (a deadlock).
//!
//! Per-block state lives on the block's OS thread only: `Cell`s, no locks.

use std::cell::{Cell, OnceCell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::task::{Context, Poll, Waker};

use super::check::panic_to_error;
use super::shared::SharedMem;
use super::site::src_loc_by_id;
use super::warp::{self, WarpWait};
use super::Launch;
use crate::error::{Error, Result};
use crate::kernel_abi::{Dim3, SimFuture};

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
}

impl BarrierKind {
    fn name(self) -> &'static str {
        match self {
            BarrierKind::Plain => "sync_threads",
            BarrierKind::Count => "sync_threads_count",
            BarrierKind::And => "sync_threads_and",
            BarrierKind::Or => "sync_threads_or",
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
    Exited,
}

/// A thread's place in the block state: what it waits for, and what it gets back.
pub(crate) struct Slot {
    pub(crate) state: Cell<State>,
    pub(crate) result: Cell<u64>,
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
                })
                .collect(),
            checks,
            epoch: Cell::new(0),
            clocks,
            shared: SharedMem::default(),
            scratch: RefCell::new(std::array::from_fn(|_| vec![0; warps])),
            held: RefCell::new(vec![0; warps]),
            uninitialized: RefCell::new(None),
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
        match self.launch.epochs.start(self.linear) {
            Some(id) => {
                self.epoch.set(id);
                Ok(())
            }
            None => Err(Error::KernelPanic {
                kernel: self.launch.kernel.rust_name.to_string(),
                message: "the launch ran more than 2^32 barrier intervals, more than the race \
                          checks can count; set WARPSPEED_SIM_RACES=off"
                    .into(),
                block: self.idx,
                thread: Dim3::default(),
            }),
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
            kernel: self.launch.kernel.rust_name.to_string(),
            block: self.idx,
            detail,
        }
    }

    /// Polls the threads' futures until all complete; the first failure stops the block.
    pub(crate) fn execute(&self, tasks: &mut [Option<SimFuture<'_>>]) -> Result<()> {
        let mut cx = Context::from_waker(Waker::noop());
        let mut runnable: Vec<u32> = (0..self.size).collect();
        let mut live = self.size;
        let mut rng = self
            .launch
            .options
            .seed
            .map(|seed| Shuffler::new(seed, self.linear));
        loop {
            if let Some(rng) = &mut rng {
                rng.shuffle(&mut runnable);
            }
            for &t in &runnable {
                let slot = &self.slots[t as usize];
                slot.state.set(State::Running);
                let Some(task) = tasks[t as usize].as_mut() else {
                    continue;
                };
                match catch_unwind(AssertUnwindSafe(|| task.as_mut().poll(&mut cx))) {
                    Ok(Poll::Ready(())) => {
                        tasks[t as usize] = None;
                        slot.state.set(State::Exited);
                        live -= 1;
                    }
                    Ok(Poll::Pending) => {
                        if matches!(slot.state.get(), State::Running) {
                            slot.state.set(State::Yielded);
                        }
                    }
                    Err(payload) => {
                        return Err(self.prefer_uninitialized(panic_to_error(
                            self.launch.kernel.rust_name,
                            payload,
                            self.idx,
                            self.thread_idx(t),
                        )))
                    }
                }
            }
            runnable.clear();
            if self.launch.stopped() {
                return Ok(());
            }
            if live == 0 {
                return match self.uninitialized.borrow_mut().take() {
                    Some(err) => Err(err),
                    None => Ok(()),
                };
            }
            self.release(live, &mut runnable)
                .map_err(|err| self.prefer_uninitialized(err))?;
        }
    }

    /// After a round: makes runnable what can go on, or reports why nothing can.
    fn release(&self, live: u32, runnable: &mut Vec<u32>) -> Result<()> {
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
                State::ActiveMask(_) => asking[w] |= bit,
                State::Barrier(_) => at_barrier += 1,
                State::Exited => exited[w] |= bit,
            }
        }
        let mut held = self.held.borrow_mut();
        for w in 0..waiting.len() {
            if asking[w] != 0 {
                // Lanes still running (yielded at an atomic) may be on their way to the
                // same active_mask() call; a lane spinning for good has diverged.
                if running[w] == 0 || held[w] >= MAX_HELD_ROUNDS {
                    held[w] = 0;
                    self.release_active_mask(w as u32, asking[w], runnable);
                } else {
                    held[w] += 1;
                }
            }
            if waiting[w] != 0 {
                self.release_warp(w as u32, waiting[w], exited[w], runnable)?;
            }
        }
        if !runnable.is_empty() {
            return Ok(());
        }
        if at_barrier == live {
            return self.release_barrier(runnable);
        }
        Err(self.deadlock())
    }

    /// Answers `active_mask()` in warp `w`, whose lanes are all suspended or exited: each
    /// lane gets the lanes waiting at `active_mask()` at the same site (the lanes that
    /// would be converged there on the GPU; lanes elsewhere have diverged).
    fn release_active_mask(&self, w: u32, asking: u32, runnable: &mut Vec<u32>) {
        let base = w * 32;
        let site = |lane: u32| match self.slots[(base + lane) as usize].state.get() {
            State::ActiveMask(site) => site,
            _ => unreachable!("a lane at active_mask"),
        };
        let lanes = || (0..32u32).filter(move |l| asking & (1 << l) != 0);
        for l in lanes() {
            let here = site(l);
            let mask = lanes()
                .filter(|&o| site(o) == here)
                .fold(0u32, |m, o| m | 1 << o);
            let slot = &self.slots[(base + l) as usize];
            slot.result.set(u64::from(mask));
            runnable.push(base + l);
        }
        for l in lanes() {
            self.slots[(base + l) as usize].state.set(State::Running);
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
        let mut pending = waiting;
        while pending != 0 {
            let lane = pending.trailing_zeros();
            let me = wait_of(lane).expect("a waiting lane");
            let gone = me.mask & exited;
            if gone != 0 {
                let l = gone.trailing_zeros();
                return Err(self.divergent(format!(
                    "{} waits at {}, but lane {l} of the mask ({}) has exited",
                    self.who_lane(base + lane),
                    self.waits_at(base + lane),
                    self.who(base + l)
                )));
            }
            let complete = me.mask & !waiting == 0
                && (0..32)
                    .filter(|l| me.mask & (1 << l) != 0)
                    .all(|l| wait_of(l).is_some_and(|o| o.matches(&me)));
            if !complete {
                pending &= !(1 << lane);
                continue;
            }
            pending &= !me.mask;
            let mut waits = [None; 32];
            for l in 0..32 {
                if me.mask & (1 << l) != 0 {
                    waits[l as usize] = wait_of(l);
                }
            }
            let mut out = [0u64; 32];
            if let Err((l, detail)) = warp::results(me.mask, &waits, &mut out) {
                return Err(self.divergent(format!(
                    "{} at {}: {detail}",
                    self.who_lane(base + l),
                    src_loc_by_id(waits[l as usize].map_or(me.site, |w| w.site))
                )));
            }
            if self.checks {
                self.merge_clocks(base, me.mask);
            }
            for l in 0..32 {
                if me.mask & (1 << l) != 0 {
                    let slot = &self.slots[(base + l) as usize];
                    slot.result.set(out[l as usize]);
                    slot.state.set(State::Running);
                    runnable.push(base + l);
                }
            }
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
    fn release_barrier(&self, runnable: &mut Vec<u32>) -> Result<()> {
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
            return Ok(());
        };
        // Writes after this barrier cannot race with an uninitialised read before it.
        if let Some(err) = self.uninitialized.borrow_mut().take() {
            return Err(err);
        }
        let result = match b0.kind {
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
            _ => self.divergent("deadlock: no thread can go on".into()),
        }
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
