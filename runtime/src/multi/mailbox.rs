//! The simulator's point-to-point transfers: a send posts its data to the receiver's
//! queue from that sender (in order, as NCCL matches sends and receives between two ranks
//! in order), and a receive takes the first message, waiting for it at most the world's
//! timeout. A message of another type or length than the receive's is an `Err` naming
//! both Rust lines; a sender that left the world with nothing posted fails the receive at
//! once.
//!
//! Sends do not wait for their receive here; on GPUs a send outside a group may (NCCL
//! buffers small messages only), which is why `Communicator::group` exists.

use std::any::{Any, TypeId};
use std::collections::{HashMap, VecDeque};
use std::panic::Location;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::reduce_op::CollectiveScalar;
use crate::error::{Error, Result};

/// One posted send.
struct Message {
    type_id: TypeId,
    type_name: &'static str,
    len: usize,
    at: &'static Location<'static>,
    data: Box<dyn Any + Send>,
}

#[derive(Default)]
struct State {
    /// Messages by (sender, receiver), oldest first.
    queues: HashMap<(usize, usize), VecDeque<Message>>,
    /// Per rank: where it left the world, once it has.
    left: Vec<Option<&'static Location<'static>>>,
}

/// The queues of a world of simulated ranks.
pub(crate) struct Mailbox {
    ranks: usize,
    timeout: Duration,
    state: Mutex<State>,
    changed: Condvar,
}

impl Mailbox {
    pub(crate) fn new(ranks: usize, timeout: Duration) -> Mailbox {
        Mailbox {
            ranks,
            timeout,
            state: Mutex::new(State {
                queues: HashMap::new(),
                left: vec![None; ranks],
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `rank` left the world: receives that wait for it fail once its queue is empty.
    pub(crate) fn leave(&self, rank: usize, at: &'static Location<'static>) {
        let mut s = self.lock();
        if rank < self.ranks && s.left[rank].is_none() {
            s.left[rank] = Some(at);
        }
        drop(s);
        self.changed.notify_all();
    }

    /// Rank `from` sends `data` to rank `to`.
    pub(crate) fn post<T: CollectiveScalar>(
        &self,
        from: usize,
        to: usize,
        data: Vec<T>,
        at: &'static Location<'static>,
    ) {
        let message = Message {
            type_id: TypeId::of::<T>(),
            type_name: T::NAME,
            len: data.len(),
            at,
            data: Box::new(data),
        };
        self.lock()
            .queues
            .entry((from, to))
            .or_default()
            .push_back(message);
        self.changed.notify_all();
    }

    /// Rank `to` receives `len` elements from rank `from`: the oldest message between
    /// them, once it is posted.
    pub(crate) fn take<T: CollectiveScalar>(
        &self,
        from: usize,
        to: usize,
        len: usize,
        at: &'static Location<'static>,
    ) -> Result<Vec<T>> {
        let deadline = Instant::now() + self.timeout;
        let mut s = self.lock();
        loop {
            if let Some(message) = s.queues.get_mut(&(from, to)).and_then(VecDeque::pop_front) {
                if message.type_id != TypeId::of::<T>() || message.len != len {
                    return Err(Error::Collective {
                        message: format!(
                            "rank {to} receives {len} {} from rank {from} at {at}, but rank \
                             {from} sent {} {} at {}",
                            T::NAME,
                            message.len,
                            message.type_name,
                            message.at
                        ),
                    });
                }
                return Ok(*message
                    .data
                    .downcast::<Vec<T>>()
                    .expect("the type id was checked"));
            }
            let now = Instant::now();
            let gone = s.left[from];
            if gone.is_some() || now >= deadline {
                let why = match gone {
                    Some(left) => format!("rank {from} left the world at {left}"),
                    None => format!("nothing came within {:?}", self.timeout),
                };
                return Err(Error::Collective {
                    message: format!(
                        "rank {to} receives {len} {} from rank {from} at {at}, but {why} \
                         (a send missing on rank {from}?)",
                        T::NAME
                    ),
                });
            }
            s = self
                .changed
                .wait_timeout(s, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
