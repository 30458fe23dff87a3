//! The simulator's collectives: the ranks of one world, threads of one process, meet at
//! each collective. A rank's `k`-th collective joins the world's `k`-th round; the last
//! rank to arrive checks that every rank called the same collective (kind, element type,
//! length, root), computes every rank's result (`reduce_op::reduce`: rank order), and wakes
//! the others.
//!
//! Nothing hangs: a rank that waits longer than the world's timeout gets an `Err` naming
//! the ranks that never arrived and where the others called from; so does a rank that
//! waits for one that has left the world (dropped its communicator). Ranks that disagree
//! all get an `Err` naming each rank's call and its Rust line (`#[track_caller]`).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::mailbox::Mailbox;
use super::reduce_op::{reduce, CollectiveScalar, ReduceOp};
use crate::error::{Error, Result};

/// Which collective a rank calls, with what it must agree on besides the type and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    AllReduce(ReduceOp),
    Broadcast { root: usize },
    Reduce { op: ReduceOp, root: usize },
    AllGather,
    ReduceScatter(ReduceOp),
}

impl Kind {
    pub(crate) fn describe(self) -> String {
        match self {
            Kind::AllReduce(op) => format!("all_reduce({})", op.name()),
            Kind::Broadcast { root } => format!("broadcast(root {root})"),
            Kind::Reduce { op, root } => format!("reduce({}, root {root})", op.name()),
            Kind::AllGather => "all_gather".into(),
            Kind::ReduceScatter(op) => format!("reduce_scatter({})", op.name()),
        }
    }
}

/// One rank's call: what it agrees on, its data (`Vec<T>`), where it was made.
struct Call {
    kind: Kind,
    type_id: TypeId,
    type_name: &'static str,
    len: usize,
    at: &'static Location<'static>,
    data: Box<dyn Any + Send>,
}

impl Call {
    fn describe(&self) -> String {
        let (kind, len, ty, at) = (self.kind.describe(), self.len, self.type_name, self.at);
        format!("{kind} of {len} {ty} at {at}")
    }
}

/// Every rank's result of a round (a `Vec<T>` each, taken once), or the error all get.
type Outcome = std::result::Result<Vec<Option<Box<dyn Any + Send>>>, String>;

/// One collective of the world: the calls so far, then every rank's result (or the
/// error every rank gets).
#[derive(Default)]
struct Round {
    calls: Vec<Option<Call>>,
    outcome: Option<Outcome>,
    /// Ranks that have taken their result; the round is dropped when all have.
    done: usize,
}

#[derive(Default)]
struct State {
    /// Per rank: collectives entered so far (the next one's round number).
    entered: Vec<u64>,
    /// Per rank: where it left the world, once it has.
    left: Vec<Option<&'static Location<'static>>>,
    rounds: HashMap<u64, Round>,
    /// The message of each round that failed, for the ranks that reach it late.
    failed: HashMap<u64, String>,
}

/// The meeting point of a world of simulated ranks (shared by their communicators).
pub(crate) struct Rendezvous {
    /// The world's point-to-point transfers (`mailbox.rs`).
    pub(crate) mailbox: Mailbox,
    ranks: usize,
    timeout: Duration,
    state: Mutex<State>,
    changed: Condvar,
}

impl Rendezvous {
    /// A world of `ranks` ranks whose waits end in an `Err` after `timeout`.
    pub(crate) fn new(ranks: usize, timeout: Duration) -> Arc<Rendezvous> {
        Arc::new(Rendezvous {
            mailbox: Mailbox::new(ranks, timeout),
            ranks,
            timeout,
            state: Mutex::new(State {
                entered: vec![0; ranks],
                left: vec![None; ranks],
                rounds: HashMap::new(),
                failed: HashMap::new(),
            }),
            changed: Condvar::new(),
        })
    }

    /// The ranks of the world.
    pub(crate) fn ranks(&self) -> usize {
        self.ranks
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A rank that panicked while holding the lock left a consistent state (every
        // change under it is a single assignment): go on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `rank` leaves the world (its communicator is dropped): ranks waiting for it, now
    /// or later, get an `Err` instead of waiting out the timeout.
    pub(crate) fn leave(&self, rank: usize, at: &'static Location<'static>) {
        let mut s = self.lock();
        if rank < self.ranks && s.left[rank].is_none() {
            s.left[rank] = Some(at);
        }
        drop(s);
        self.changed.notify_all();
        self.mailbox.leave(rank, at);
    }

    /// Rank `rank`'s call of the collective `kind` with `data`: every rank's result once
    /// all have called (all_reduce: the reduction; broadcast: the root's data; reduce: the
    /// reduction at the root, the rank's own data elsewhere; all_gather: every rank's data
    /// in rank order; reduce_scatter: the rank's `len / ranks` elements of the reduction).
    pub(crate) fn meet<T: CollectiveScalar>(
        &self,
        rank: usize,
        kind: Kind,
        data: Vec<T>,
        at: &'static Location<'static>,
    ) -> Result<Vec<T>> {
        let what = || format!("rank {rank}'s {} at {at}", kind.describe());
        if rank >= self.ranks {
            return Err(Error::InvalidArgument {
                what: what(),
                reason: format!("rank {rank} of a world of {} ranks", self.ranks),
            });
        }
        let call = Call {
            kind,
            type_id: TypeId::of::<T>(),
            type_name: T::NAME,
            len: data.len(),
            at,
            data: Box::new(data),
        };
        let mut s = self.lock();
        let round_no = s.entered[rank];
        s.entered[rank] += 1;
        if let Some(message) = s.failed.get(&round_no) {
            // Arrived after the round failed (the others gave up waiting for it).
            return Err(Error::Collective {
                message: message.clone(),
            });
        }
        let round = s.rounds.entry(round_no).or_default();
        if round.calls.is_empty() {
            round.calls.resize_with(self.ranks, || None);
        }
        round.calls[rank] = Some(call);
        if round.outcome.is_none() && round.calls.iter().all(Option::is_some) {
            round.outcome = Some(settle::<T>(round_no, &mut round.calls, self.ranks));
            self.changed.notify_all();
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let state = &mut *s;
            let round = state
                .rounds
                .get_mut(&round_no)
                .expect("a round lives until all take it");
            let taken = match &mut round.outcome {
                Some(Ok(results)) => Some(Ok(results[rank].take())),
                Some(Err(message)) => Some(Err(message.clone())),
                None => None,
            };
            if let Some(taken) = taken {
                finish(state, round_no, self.ranks);
                return match taken {
                    Ok(mine) => {
                        let mine = mine.expect("each rank takes its result once");
                        Ok(*mine
                            .downcast::<Vec<T>>()
                            .expect("settled with the callers' type"))
                    }
                    Err(message) => Err(Error::Collective { message }),
                };
            }
            let missing: Vec<usize> = (0..self.ranks)
                .filter(|&r| round.calls[r].is_none())
                .collect();
            let gone: Vec<String> = missing
                .iter()
                .filter_map(|&r| state.left[r].map(|at| format!("rank {r} left at {at}")))
                .collect();
            let now = Instant::now();
            if !gone.is_empty() || now >= deadline {
                let message = stuck(state, round_no, &missing, &gone, self.timeout);
                // The others waiting in this round, and the ranks that come late to it,
                // get the same error.
                state.failed.insert(round_no, message.clone());
                let round = state.rounds.get_mut(&round_no).expect("present");
                round.outcome = Some(Err(message.clone()));
                finish(state, round_no, self.ranks);
                self.changed.notify_all();
                return Err(Error::Collective { message });
            }
            s = self
                .changed
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A rank has taken round `round_no`'s outcome; the last one drops the round.
fn finish(s: &mut State, round_no: u64, ranks: usize) {
    let round = s.rounds.get_mut(&round_no).expect("present");
    round.done += 1;
    // A failed round may be abandoned by ranks that never arrive: it is dropped when
    // every rank that called has taken the error.
    let called = round.calls.iter().filter(|c| c.is_some()).count();
    if round.done >= ranks || (matches!(round.outcome, Some(Err(_))) && round.done >= called) {
        s.rounds.remove(&round_no);
    }
}

/// The message of a round that cannot complete: who never came, who waits where.
fn stuck(
    s: &State,
    round_no: u64,
    missing: &[usize],
    gone: &[String],
    timeout: Duration,
) -> String {
    let round = &s.rounds[&round_no];
    let waiting: Vec<String> = round
        .calls
        .iter()
        .enumerate()
        .filter_map(|(r, c)| c.as_ref().map(|c| format!("rank {r}: {}", c.describe())))
        .collect();
    let never: Vec<String> = missing
        .iter()
        .map(|&r| format!("rank {r} (after {} collectives)", s.entered[r]))
        .collect();
    let why = if gone.is_empty() {
        format!("not reached within {timeout:?}")
    } else {
        format!("never to be reached ({})", gone.join(", "))
    };
    format!(
        "collective #{round_no} {why} by {}; waiting: {}",
        never.join(", "),
        waiting.join("; ")
    )
}

/// Round `round_no` with every rank's call: the agreement checks, then each rank's result.
fn settle<T: CollectiveScalar>(round_no: u64, calls: &mut [Option<Call>], ranks: usize) -> Outcome {
    let first = calls[0].as_ref().expect("all present");
    let agree = calls
        .iter()
        .flatten()
        .all(|c| c.kind == first.kind && c.type_id == first.type_id && c.len == first.len);
    let describe_all = || {
        let each: Vec<String> = calls
            .iter()
            .enumerate()
            .map(|(r, c)| format!("rank {r}: {}", c.as_ref().expect("present").describe()))
            .collect();
        each.join("; ")
    };
    if !agree {
        return Err(format!(
            "collective #{round_no}: the ranks disagree on the collective, type or length: {}",
            describe_all()
        ));
    }
    let (kind, len) = (first.kind, first.len);
    if let Kind::Broadcast { root } | Kind::Reduce { root, .. } = kind {
        if root >= ranks {
            return Err(format!(
                "collective #{round_no}: root {root} of a world of {ranks} ranks: {}",
                describe_all()
            ));
        }
    }
    if matches!(kind, Kind::ReduceScatter(_)) && len % ranks != 0 {
        return Err(format!(
            "collective #{round_no}: reduce_scatter of {len} elements over {ranks} ranks \
             (a multiple of the rank count, each rank's share): {}",
            describe_all()
        ));
    }
    let data: Vec<Vec<T>> = calls
        .iter_mut()
        .map(|c| {
            let c = c.as_mut().expect("present");
            let taken = std::mem::replace(&mut c.data, Box::new(()));
            *taken.downcast::<Vec<T>>().expect("type ids agree")
        })
        .collect();
    let slices: Vec<&[T]> = data.iter().map(Vec::as_slice).collect();
    let results: Vec<Vec<T>> = match kind {
        Kind::AllReduce(op) => vec![reduce(&slices, op); ranks],
        Kind::Broadcast { root } => vec![data[root].clone(); ranks],
        Kind::Reduce { op, root } => {
            let total = reduce(&slices, op);
            let mut out = data.clone();
            out[root] = total;
            out
        }
        Kind::AllGather => vec![data.concat(); ranks],
        Kind::ReduceScatter(op) => {
            let total = reduce(&slices, op);
            total.chunks(len / ranks).map(<[T]>::to_vec).collect()
        }
    };
    Ok(results
        .into_iter()
        .map(|r| Some(Box::new(r) as Box<dyn Any + Send>))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(ranks: usize, ms: u64) -> Arc<Rendezvous> {
        Rendezvous::new(ranks, Duration::from_millis(ms))
    }

    /// `f(rank)` on one thread a rank; the results in rank order.
    fn each_rank<R: Send>(ranks: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..ranks)
                .map(|r| {
                    scope.spawn({
                        let f = &f;
                        move || f(r)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn every_collective_gives_each_rank_its_part() {
        let w = world(3, 10_000);
        let here = Location::caller();
        let out = each_rank(3, |r| {
            let mine: Vec<i64> = (0..6).map(|i| (r * 10 + i) as i64).collect();
            let sum = w
                .meet(r, Kind::AllReduce(ReduceOp::Sum), mine.clone(), here)
                .unwrap();
            let b = w
                .meet(r, Kind::Broadcast { root: 2 }, mine.clone(), here)
                .unwrap();
            let red = w
                .meet(
                    r,
                    Kind::Reduce {
                        op: ReduceOp::Max,
                        root: 1,
                    },
                    mine.clone(),
                    here,
                )
                .unwrap();
            let g = w
                .meet(r, Kind::AllGather, mine[..2].to_vec(), here)
                .unwrap();
            let rs = w
                .meet(r, Kind::ReduceScatter(ReduceOp::Sum), mine.clone(), here)
                .unwrap();
            (mine, sum, b, red, g, rs)
        });
        let sum: Vec<i64> = (0..6).map(|i| 30 + 3 * i).collect();
        for (r, (mine, s, b, red, g, rs)) in out.into_iter().enumerate() {
            assert_eq!(s, sum);
            assert_eq!(b, (20..26).collect::<Vec<i64>>());
            assert_eq!(red, if r == 1 { (20..26).collect() } else { mine });
            assert_eq!(g, vec![0, 1, 10, 11, 20, 21]);
            assert_eq!(rs, sum[2 * r..2 * r + 2].to_vec());
        }
    }

    #[test]
    fn disagreeing_ranks_all_get_an_error_naming_each_call() {
        let w = world(2, 10_000);
        let out = each_rank(2, |r| {
            let len = if r == 0 { 4 } else { 5 };
            w.meet(
                r,
                Kind::AllReduce(ReduceOp::Sum),
                vec![1.0f32; len],
                Location::caller(),
            )
        });
        for e in out {
            let e = e.unwrap_err().to_string();
            assert!(e.contains("rank 0: all_reduce(sum) of 4 f32 at"), "{e}");
            assert!(e.contains("rank 1: all_reduce(sum) of 5 f32"), "{e}");
            assert!(e.contains("rendezvous.rs"), "{e}");
        }
        // Another type on one rank.
        let w = world(2, 10_000);
        let out = each_rank(2, |r| {
            let here = Location::caller();
            if r == 0 {
                w.meet(r, Kind::AllGather, vec![1u32; 3], here).map(|_| ())
            } else {
                w.meet(r, Kind::AllGather, vec![1i32; 3], here).map(|_| ())
            }
        });
        assert!(out
            .iter()
            .all(|e| e.as_ref().unwrap_err().to_string().contains("i32")));
    }

    #[test]
    fn a_rank_that_never_comes_is_an_error_not_a_hang() {
        let w = world(3, 200);
        let start = Instant::now();
        let out = each_rank(3, |r| {
            if r == 2 {
                return Ok(Vec::new()); // skips the collective, keeps its communicator
            }
            w.meet(
                r,
                Kind::AllReduce(ReduceOp::Max),
                vec![r as u8; 2],
                Location::caller(),
            )
        });
        assert!(start.elapsed() < Duration::from_secs(5));
        for e in &out[..2] {
            let e = e.as_ref().unwrap_err().to_string();
            assert!(e.contains("collective #0 not reached within"), "{e}");
            assert!(e.contains("by rank 2 (after 0 collectives)"), "{e}");
        }
    }

    #[test]
    fn a_rank_that_leaves_fails_the_waiters_at_once() {
        let w = world(2, 60_000);
        let start = Instant::now();
        let out = each_rank(2, |r| {
            if r == 1 {
                w.leave(1, Location::caller());
                return Ok(Vec::new());
            }
            w.meet(
                r,
                Kind::Broadcast { root: 0 },
                vec![1.5f64],
                Location::caller(),
            )
        });
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "it waited out the timeout"
        );
        let e = out[0].as_ref().unwrap_err().to_string();
        assert!(e.contains("never to be reached (rank 1 left at"), "{e}");
    }

    #[test]
    fn bad_roots_and_uneven_scatters_are_errors_on_every_rank() {
        let w = world(2, 10_000);
        let out = each_rank(2, |r| {
            let here = Location::caller();
            let a = w
                .meet(r, Kind::Broadcast { root: 2 }, vec![0u64; 1], here)
                .unwrap_err();
            let b = w
                .meet(r, Kind::ReduceScatter(ReduceOp::Sum), vec![0u64; 3], here)
                .unwrap_err();
            let c = w
                .meet(r, Kind::AllReduce(ReduceOp::Sum), vec![r as u64], here)
                .unwrap();
            (a.to_string(), b.to_string(), c)
        });
        for (a, b, c) in out {
            assert!(a.contains("root 2 of a world of 2 ranks"), "{a}");
            assert!(
                b.contains("reduce_scatter of 3 elements over 2 ranks"),
                "{b}"
            );
            assert_eq!(c, vec![1], "a failed collective leaves the world usable");
        }
    }
}
