//! Stream order on the simulator: [`StreamOrder`] checks that two operations on different
//! streams that touch the same memory, at least one of them writing, are ordered by an
//! event wait or a synchronisation, and reports them as [`Error::UnorderedStreams`]
//! otherwise (naming both operations and their streams).
//!
//! The simulator runs each operation when it is queued, so its results follow the order
//! the host queued them in; on a GPU, streams run concurrently and the same program may
//! race. This file is how the simulator tells: vector clocks. Each stream counts its
//! operations; what a stream is known to run after is a clock (stream -> count). An
//! event carries its stream's clock at the record; a wait joins it into the waiting
//! stream's clock; a host synchronisation (of a stream or an event) joins it into the
//! host's clock, which every operation queued afterwards inherits (the host queues it
//! after it saw the work finish). The device's own queue (id [`DEVICE_QUEUE`]) behaves as
//! CUDA's legacy default stream, Numba's stream 0: its operations, like
//! `Device::synchronize`, order everything before them before everything after them
//! ([`StreamOrder::barrier`]). docs/host-api.md, "Streams", states the rule.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{Error, Result};

/// A stream of a simulated device; [`DEVICE_QUEUE`] is the device's own queue.
pub(crate) type StreamId = u64;

/// The device's own queue, which operations on a `Device` (not a `Stream`) go on.
pub(crate) const DEVICE_QUEUE: StreamId = 0;

/// For each stream, how many of its operations are known to come before.
type Clock = HashMap<StreamId, u64>;

/// Memory an operation touches: bytes `bytes` of the allocation `alloc`
/// ([`HostAlloc::id`](super::HostAlloc::id)), and whether it writes them.
#[derive(Clone, Debug)]
pub(crate) struct Access {
    pub(crate) alloc: u64,
    pub(crate) bytes: Range<usize>,
    pub(crate) write: bool,
}

/// A stream's clock at an event's record: what a stream that waits for it runs after.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventClock(Arc<Clock>);

/// The order of one simulated device's streams (see the module's comment).
#[derive(Default)]
pub(crate) struct StreamOrder {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Streams created so far (ids from 1).
    streams: u64,
    /// For each stream: its own count is its operations so far; the others, what it waited
    /// for.
    clocks: HashMap<StreamId, Clock>,
    /// What the host has seen finish.
    host: Clock,
    /// Memory accesses not yet known to be ordered before every later operation.
    pending: Vec<Recorded>,
}

/// An access of an operation on `stream`, the `seq`-th operation there, whose stream's
/// clock after it was `clock`.
struct Recorded {
    access: Access,
    stream: StreamId,
    seq: u64,
    clock: Arc<Clock>,
    op: String,
}

impl StreamOrder {
    /// A new stream's id.
    pub(crate) fn new_stream(&self) -> StreamId {
        let mut state = self.lock();
        state.streams += 1;
        state.streams
    }

    /// Checks the operation `op` on `stream` that makes `accesses` against every earlier
    /// access on another stream, and records it: [`Error::UnorderedStreams`] (and nothing
    /// recorded) when one of them touches the same bytes, one of the two writes, and no
    /// event or synchronisation orders the earlier before this one.
    pub(crate) fn enqueue(
        &self,
        stream: StreamId,
        op: impl FnOnce() -> String,
        accesses: &[Access],
    ) -> Result<()> {
        if stream == DEVICE_QUEUE {
            self.barrier();
            return Ok(());
        }
        let mut state = self.lock();
        let host = state.host.clone();
        let clock = state.clocks.entry(stream).or_default();
        join(clock, &host);
        let knows = clock.clone();
        let conflict = state.pending.iter().find(|r| {
            r.stream != stream
                && knows.get(&r.stream).copied().unwrap_or(0) < r.seq
                && accesses.iter().any(|a| r.access.conflicts(a))
        });
        if let Some(earlier) = conflict {
            let later = accesses
                .iter()
                .find(|a| earlier.access.conflicts(a))
                .expect("found above");
            return Err(Error::UnorderedStreams {
                earlier: earlier.op.clone(),
                earlier_stream: earlier.stream,
                earlier_writes: earlier.access.write,
                later: op(),
                later_stream: stream,
                later_writes: later.write,
            });
        }
        let clock = state.clocks.get_mut(&stream).expect("inserted above");
        let seq = clock.get(&stream).copied().unwrap_or(0) + 1;
        clock.insert(stream, seq);
        let clock = Arc::new(clock.clone());
        // An access ordered before this operation and covered by it can go: every later
        // operation that conflicts with it conflicts with this one and is unordered with
        // this one too (this one writes, or both are reads).
        state.pending.retain(|r| {
            let before = r.stream == stream || clock.get(&r.stream).copied().unwrap_or(0) >= r.seq;
            !(before && accesses.iter().any(|a| a.covers(&r.access)))
        });
        let op = op();
        state.pending.extend(accesses.iter().map(|access| Recorded {
            access: access.clone(),
            stream,
            seq,
            clock: clock.clone(),
            op: op.clone(),
        }));
        Ok(())
    }

    /// An event recorded on `stream` now: its clock.
    pub(crate) fn record(&self, stream: StreamId) -> EventClock {
        if stream == DEVICE_QUEUE {
            // After a barrier nothing earlier is pending: an empty clock says as much.
            return EventClock::default();
        }
        let mut state = self.lock();
        let host = state.host.clone();
        let clock = state.clocks.entry(stream).or_default();
        join(clock, &host);
        EventClock(Arc::new(clock.clone()))
    }

    /// `stream` waits for `event`: what it runs from now on comes after the event's work.
    pub(crate) fn wait(&self, stream: StreamId, event: &EventClock) {
        if stream == DEVICE_QUEUE {
            return;
        }
        let mut state = self.lock();
        join(state.clocks.entry(stream).or_default(), &event.0);
    }

    /// The host waited for `event` (an event or a stream synchronisation): what it queues
    /// from now on comes after the event's work.
    pub(crate) fn host_waits(&self, event: &EventClock) {
        let mut state = self.lock();
        join(&mut state.host, &event.0);
        state.forget_finished();
    }

    /// The host waited for every operation that touches the allocation `alloc` (pinned
    /// memory's accessors wait so).
    pub(crate) fn host_waits_for(&self, alloc: u64) {
        let mut state = self.lock();
        let clocks: Vec<Arc<Clock>> = state
            .pending
            .iter()
            .filter(|r| r.access.alloc == alloc)
            .map(|r| r.clock.clone())
            .collect();
        for clock in clocks {
            join(&mut state.host, &clock);
        }
        state.forget_finished();
    }

    /// Everything queued so far comes before everything queued later: an operation on the
    /// device's own queue, or `Device::synchronize`.
    pub(crate) fn barrier(&self) {
        let mut state = self.lock();
        if state.pending.is_empty() {
            return;
        }
        let clocks: Vec<Arc<Clock>> = state.pending.iter().map(|r| r.clock.clone()).collect();
        for clock in clocks {
            join(&mut state.host, &clock);
        }
        state.pending.clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Drops the accesses the host has seen finish: every later operation comes after them.
    fn forget_finished(&mut self) {
        let host = &self.host;
        self.pending
            .retain(|r| host.get(&r.stream).copied().unwrap_or(0) < r.seq);
    }
}

impl Access {
    /// Whether `self` and `other` touch a common byte and one of them writes.
    fn conflicts(&self, other: &Access) -> bool {
        self.alloc == other.alloc
            && (self.write || other.write)
            && self.bytes.start < other.bytes.end
            && other.bytes.start < self.bytes.end
    }

    /// Whether `self` touches every byte `other` does, and writes if `other` does.
    fn covers(&self, other: &Access) -> bool {
        self.alloc == other.alloc
            && (self.write || !other.write)
            && self.bytes.start <= other.bytes.start
            && other.bytes.end <= self.bytes.end
    }
}

/// `into` learns everything `from` knows.
fn join(into: &mut Clock, from: &Clock) {
    for (&stream, &seq) in from {
        let known = into.entry(stream).or_insert(0);
        *known = (*known).max(seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(alloc: u64, bytes: Range<usize>) -> Access {
        Access {
            alloc,
            bytes,
            write: true,
        }
    }

    fn read(alloc: u64, bytes: Range<usize>) -> Access {
        Access {
            alloc,
            bytes,
            write: false,
        }
    }

    fn op(name: &'static str) -> impl FnOnce() -> String {
        move || name.to_string()
    }

    #[test]
    fn a_write_then_an_unordered_read_on_another_stream_is_reported() {
        let order = StreamOrder::default();
        let (a, b) = (order.new_stream(), order.new_stream());
        order.enqueue(a, op("produce"), &[write(7, 0..64)]).unwrap();
        match order.enqueue(b, op("consume"), &[read(7, 32..40)]) {
            Err(Error::UnorderedStreams {
                earlier,
                earlier_stream,
                later,
                later_stream,
                earlier_writes: true,
                later_writes: false,
            }) => {
                assert_eq!((earlier.as_str(), earlier_stream), ("produce", a));
                assert_eq!((later.as_str(), later_stream), ("consume", b));
            }
            other => panic!("expected UnorderedStreams, got {other:?}"),
        }
    }

    #[test]
    fn an_event_wait_a_synchronisation_or_a_barrier_orders_them() {
        let order = StreamOrder::default();
        let (a, b) = (order.new_stream(), order.new_stream());
        order.enqueue(a, op("produce"), &[write(7, 0..64)]).unwrap();
        let event = order.record(a);
        order.wait(b, &event);
        order.enqueue(b, op("consume"), &[read(7, 0..64)]).unwrap();
        // b now writes; a reads again only after the host synchronised b.
        order
            .enqueue(b, op("overwrite"), &[write(7, 0..8)])
            .unwrap();
        assert!(order.enqueue(a, op("reread"), &[read(7, 0..8)]).is_err());
        order.host_waits(&order.record(b));
        order.enqueue(a, op("reread"), &[read(7, 0..8)]).unwrap();
        order.enqueue(a, op("rewrite"), &[write(7, 0..8)]).unwrap();
        order.barrier();
        order
            .enqueue(b, op("after the barrier"), &[write(7, 0..64)])
            .unwrap();
    }

    #[test]
    fn a_write_after_an_unordered_read_or_write_is_reported_too() {
        let order = StreamOrder::default();
        let (a, b) = (order.new_stream(), order.new_stream());
        order.enqueue(a, op("read"), &[read(4, 0..16)]).unwrap();
        let err = order.enqueue(b, op("overwrite"), &[write(4, 8..24)]);
        assert!(
            matches!(
                &err,
                Err(Error::UnorderedStreams {
                    earlier_writes: false,
                    later_writes: true,
                    ..
                })
            ),
            "{err:?}"
        );
        order
            .enqueue(b, op("elsewhere"), &[write(4, 16..24)])
            .unwrap();
        let err = order.enqueue(a, op("again"), &[write(4, 20..21)]);
        assert!(
            matches!(
                &err,
                Err(Error::UnorderedStreams {
                    earlier_writes: true,
                    later_writes: true,
                    ..
                })
            ),
            "{err:?}"
        );
    }

    #[test]
    fn disjoint_ranges_reads_and_one_stream_need_no_order() {
        let order = StreamOrder::default();
        let (a, b) = (order.new_stream(), order.new_stream());
        order.enqueue(a, op("left"), &[write(1, 0..32)]).unwrap();
        order.enqueue(b, op("right"), &[write(1, 32..64)]).unwrap();
        order.enqueue(a, op("read x"), &[read(2, 0..8)]).unwrap();
        order
            .enqueue(b, op("read x too"), &[read(2, 0..8)])
            .unwrap();
        order
            .enqueue(a, op("left again"), &[write(1, 0..32)])
            .unwrap();
        // Another allocation at the same bytes is another buffer.
        order
            .enqueue(b, op("other buffer"), &[write(3, 0..32)])
            .unwrap();
    }

    #[test]
    fn waiting_for_a_later_stream_operation_orders_what_it_waited_for() {
        // a writes; b waits for a and reads; the host waits for b's read (through the
        // pinned memory it used): a's write is then ordered before c's use.
        let order = StreamOrder::default();
        let (a, b, c) = (order.new_stream(), order.new_stream(), order.new_stream());
        order.enqueue(a, op("produce"), &[write(1, 0..8)]).unwrap();
        order.wait(b, &order.record(a));
        order
            .enqueue(b, op("download"), &[read(1, 0..8), write(9, 0..8)])
            .unwrap();
        order.host_waits_for(9);
        order
            .enqueue(c, op("overwrite"), &[write(1, 0..8)])
            .unwrap();
    }
}
