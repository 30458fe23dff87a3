//! `cp.async` on the simulator: each thread's copies in flight, and the shared elements
//! they will write.
//!
//! A copy reads its source when it is issued (a checked, race-tracked read of global
//! memory) and writes its destination when a wait covers its group: the destination's
//! stores are the issuing thread's, at the wait, recorded at the `cp_async` line. Between
//! the two the destination elements are *pending* in the block: any access to one (by any
//! thread, the issuing one included) is a data race with the copy, reported with both
//! lines, since on the GPU the copy may land at any moment of that span. The issue also
//! records a write of each element (without storing), so an unordered access earlier in
//! the same barrier interval is a race too. A thread's groups are a FIFO: `commit` closes
//! the open group, `wait(n)` lands all but the newest `n` (`n` capped at 7, as the GPU's
//! `wait_group` immediate; waiting more is allowed), `wait_all` lands every copy.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use super::check::{raise, Failure};
use super::ctx::ThreadCtx;
use super::handles::{Slice, SliceMut};
use super::shadow::AccessKind;
use super::site::SrcLoc;
use super::track::Tracked;
use crate::scalar::KernelScalar;

/// One copy in flight: the stores it does when it lands, and its pending elements.
struct Copy {
    land: Box<dyn FnOnce(&ThreadCtx<'_>)>,
    /// `(shared region, element)` of each destination element (race checks on).
    keys: Vec<Element>,
}

/// One thread's copies: the open group and the committed ones, oldest first.
#[derive(Default)]
pub(crate) struct Queue {
    open: Vec<Copy>,
    groups: VecDeque<Vec<Copy>>,
}

/// A shared element: its region and its index there.
pub(crate) type Element = (u32, usize);

/// Who will write a pending element: the issuing thread, the copy's line, and which copy
/// it is (`"cp_async"`, `"tma_load_2d"`, as [`RaceAccess::kind`](crate::RaceAccess) says).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Writer {
    pub(crate) tid: u32,
    pub(crate) site: &'static SrcLoc,
    pub(crate) kind: &'static str,
    /// A `tma_load_2d` copy that has landed with phase `.1` (a count of completed phases)
    /// of the mbarrier at address `.0`: visible to the threads that have seen that phase
    /// complete (sim/mbarrier.rs), pending for the others.
    pub(crate) landed: Option<(usize, u64)>,
}

/// The shared elements copies in flight will write, block-wide (`cp_async`'s and
/// `tma_load_2d`'s), and the TMA copies landed but not yet seen by every thread.
#[derive(Default)]
pub(crate) struct Pending(RefCell<HashMap<Element, Writer>>);

impl Pending {
    /// Marks `keys` pending until they land, written by thread `tid` at `at`.
    pub(crate) fn insert(
        &self,
        keys: &[Element],
        tid: u32,
        at: &'static SrcLoc,
        kind: &'static str,
    ) {
        let mut map = self.0.borrow_mut();
        for k in keys {
            let w = Writer {
                tid,
                site: at,
                kind,
                landed: None,
            };
            map.insert(*k, w);
        }
    }

    /// The TMA copy of `keys` landed with phase `phase` of the mbarrier at `bar`.
    pub(crate) fn landed(&self, keys: &[Element], bar: usize, phase: u64) {
        let mut map = self.0.borrow_mut();
        for k in keys {
            if let Some(w) = map.get_mut(k) {
                w.landed = Some((bar, phase));
            }
        }
    }

    /// At a block barrier: forgets the landed copies whose phase some thread has seen
    /// (`seen(bar)`: the most phases of that barrier a thread has seen complete), which
    /// every thread is now ordered after.
    pub(crate) fn forget_seen(&self, seen: impl Fn(usize) -> u64) {
        let mut map = self.0.borrow_mut();
        if map.is_empty() {
            return;
        }
        map.retain(|_, w| !matches!(w.landed, Some((bar, phase)) if seen(bar) >= phase));
    }

    /// The copy in flight that will write `element` of `region`, if any.
    #[inline]
    pub(crate) fn get(&self, region: u32, element: usize) -> Option<Writer> {
        let map = self.0.borrow();
        if map.is_empty() {
            return None;
        }
        map.get(&(region, element)).copied()
    }
}

/// The sizes `cp.async` copies.
const SIZES: [usize; 3] = [4, 8, 16];

/// `cp_async(dst, src)` of thread `ctx` at `at`.
pub(crate) fn issue<T: KernelScalar>(
    ctx: &ThreadCtx<'_>,
    dst: SliceMut<T>,
    src: Slice<T>,
    at: &'static SrcLoc,
) {
    let n = dst.len();
    if n != src.len() {
        bad(n, src.len(), at);
    }
    let bytes = n * std::mem::size_of::<T>();
    if !SIZES.contains(&bytes) {
        bad(bytes, 16, at);
    }
    let size = std::mem::size_of::<T>();
    for (what, offset) in [
        ("destination", dst.as_slice().offset()),
        ("source", src.offset()),
    ] {
        if !(offset * size).is_multiple_of(bytes) {
            panic!(
                "cp_async at {at}: the {what} starts at element {offset} of its array, which is \
                 not {bytes}-byte aligned (a copy of {bytes} bytes must be)"
            );
        }
    }
    let values: Vec<T> = (0..n).map(|i| src.load(ctx, i, at)).collect();
    let mut keys = Vec::new();
    for i in 0..n {
        let (track, element) = dst.tracked(i);
        if track.is_none() {
            continue;
        }
        ctx.check(track, element, AccessKind::Write, at);
        if let Tracked::Shared(region) = track.get() {
            keys.push((region, element));
        }
    }
    ctx.block()
        .cp_pending
        .insert(&keys, ctx.tid(), at, "cp_async");
    let land = Box::new(move |ctx: &ThreadCtx<'_>| {
        for (i, v) in values.into_iter().enumerate() {
            dst.store(ctx, i, v, at);
        }
    });
    ctx.cp_queue().borrow_mut().open.push(Copy { land, keys });
}

/// `cp_async_commit()`: closes the open group (an empty one too).
pub(crate) fn commit(ctx: &ThreadCtx<'_>) {
    let mut q = ctx.cp_queue().borrow_mut();
    let group = std::mem::take(&mut q.open);
    q.groups.push_back(group);
}

/// `cp_async_wait(n)` (`None`: `cp_async_wait_all()`, the open group included).
pub(crate) fn wait(ctx: &ThreadCtx<'_>, n: Option<u32>) {
    let done: Vec<Copy> = {
        let mut q = ctx.cp_queue().borrow_mut();
        let keep = match n {
            Some(n) => n.min(7) as usize,
            None => {
                let open = std::mem::take(&mut q.open);
                q.groups.push_back(open);
                0
            }
        };
        let land = q.groups.len().saturating_sub(keep);
        q.groups.drain(..land).flatten().collect()
    };
    for c in done {
        {
            let mut map = ctx.block().cp_pending.0.borrow_mut();
            for k in &c.keys {
                map.remove(k);
            }
        }
        (c.land)(ctx);
    }
}

/// A copy whose lengths do not match or are not 4, 8 or 16 bytes: reported as an index
/// out of bounds at the call (docs/tensor-cores.md).
#[cold]
fn bad(index: usize, len: usize, at: &'static SrcLoc) -> ! {
    raise(Failure::OutOfBounds {
        at,
        index: index as u64,
        len: len as u64,
    })
}
