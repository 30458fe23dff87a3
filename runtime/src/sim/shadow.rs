//! Race checks: the shadow state kept per element of simulated memory.
//!
//! Each touched element has an [`Entry`] (36 bytes): the last write and up to two reads
//! that are not ordered with each other (FastTrack style). An access is checked against
//! them, then recorded. Two accesses to one element by different threads *conflict* when
//! at least one writes and not both are atomic; they are *ordered* when
//! - they come from the same thread, or
//! - both come from one block and a block barrier was released between them: each
//!   barrier interval of each block has a launch-wide unique *epoch* id, so a record from
//!   another epoch of the same block is earlier and ordered, or
//! - a grid sync (cooperative launches) was released between them: each epoch also
//!   records how many grid syncs its block had passed (its *grid phase*), and a record of
//!   an earlier phase than the accessing thread's is ordered, whatever its block, or
//! - both come from one warp, in one epoch, and the later thread synchronised with the
//!   earlier one through a warp collective after the earlier access: every thread keeps
//!   a vector clock over the 32 lanes of its warp (its own entry counts its collectives,
//!   the others what it learnt at collectives), and a record keeps its thread's own clock.
//!
//! Other accesses from different blocks are never ordered (the simulator does not model
//! fences and flags between blocks). Shared memory has one shadow per
//! block and allocation, plain `Cell`s on the block's OS thread; global memory has one
//! shadow per slice argument and launch, in chunks allocated zeroed on first touch
//! (untouched parts cost nothing) and guarded by striped spin locks, since blocks run on
//! several workers.
//! A shared-memory read of an element no thread of the block has written is noted too;
//! the block reports it at its next barrier or at its end, unless a write by another
//! thread races with that read first (then the race is the report).

use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum AccessKind {
    Read = 1,
    Write = 2,
    /// An atomic load.
    AtomicRead = 3,
    /// An atomic store or swap (the old value is not looked at in a meaningful way).
    AtomicWrite = 4,
    /// An atomic read-modify-write (fetch_*, compare_exchange, inc/dec).
    AtomicRmw = 5,
}

impl AccessKind {
    fn from_bits(b: u32) -> AccessKind {
        match b {
            1 => AccessKind::Read,
            2 => AccessKind::Write,
            3 => AccessKind::AtomicRead,
            4 => AccessKind::AtomicWrite,
            _ => AccessKind::AtomicRmw,
        }
    }
    fn writes(self) -> bool {
        matches!(
            self,
            AccessKind::Write | AccessKind::AtomicWrite | AccessKind::AtomicRmw
        )
    }
    fn atomic(self) -> bool {
        matches!(
            self,
            AccessKind::AtomicRead | AccessKind::AtomicWrite | AccessKind::AtomicRmw
        )
    }
    /// Whether the access depends on the old value (an uninitialised read matters).
    fn reads_old(self) -> bool {
        matches!(
            self,
            AccessKind::Read | AccessKind::AtomicRead | AccessKind::AtomicRmw
        )
    }
    /// "read", "write" or "atomic", as [`RaceAccess`](crate::error::RaceAccess) says it.
    pub(crate) fn word(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
            _ => "atomic",
        }
    }
}

/// Whether two accesses to one element conflict (one writes, not both atomic).
fn conflict(a: AccessKind, b: AccessKind) -> bool {
    (a.writes() || b.writes()) && !(a.atomic() && b.atomic())
}

const TID_BITS: u32 = 10;
const KIND_BITS: u32 = 3;
const SITE_SHIFT: u32 = TID_BITS + KIND_BITS;
/// Sites beyond this id are recorded as this (reports then say "an unknown site").
pub(crate) const SITE_UNKNOWN: u32 = (1 << (32 - SITE_SHIFT)) - 1;

/// One recorded access: 12 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Rec {
    /// Epoch id of the access (0: no access recorded).
    epoch: u32,
    /// The accessing thread's own warp clock at the access.
    clock: u32,
    /// Thread (10 bits) | kind (3 bits) | site id (19 bits).
    meta: u32,
}

impl Rec {
    fn is_empty(self) -> bool {
        self.epoch == 0
    }
    /// The linear thread index in its block.
    pub(crate) fn tid(self) -> u32 {
        self.meta & ((1 << TID_BITS) - 1)
    }
    pub(crate) fn kind(self) -> AccessKind {
        AccessKind::from_bits((self.meta >> TID_BITS) & ((1 << KIND_BITS) - 1))
    }
    /// The site id, or [`SITE_UNKNOWN`].
    pub(crate) fn site(self) -> u32 {
        self.meta >> SITE_SHIFT
    }
    pub(crate) fn epoch(self) -> u32 {
        self.epoch
    }
    /// Whether `a` and `b` come from one warp of one epoch (no record tells more about
    /// threads synchronised with each other).
    fn same_group(a: Rec, b: Rec) -> bool {
        a.epoch == b.epoch && a.tid() / 32 == b.tid() / 32
    }
}

/// The shadow of one element: the last write and up to two concurrent reads (36 bytes).
/// All zeroes is "never accessed".
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct Entry {
    write: Rec,
    read1: Rec,
    read2: Rec,
}

/// The accessing thread, as the race rules see it.
pub(crate) struct Accessor<'a> {
    /// The current epoch id of its block.
    pub(crate) epoch: u32,
    /// Linear thread index in the block.
    pub(crate) tid: u32,
    /// Linear index of its block.
    pub(crate) block: u64,
    /// The grid syncs its block has passed (0 outside cooperative launches).
    pub(crate) grid_phase: u32,
    /// Its vector clock over the lanes of its warp (32 entries); `None` while its warp
    /// has had no collective: then its own entry is 1 and the others 0.
    pub(crate) clocks: Option<&'a [Cell<u32>]>,
    /// Site id of the access.
    pub(crate) site: u32,
}

impl Accessor<'_> {
    /// What this thread knows of the clock of `lane` of its warp.
    fn clock(&self, lane: u32) -> u32 {
        match self.clocks {
            Some(row) => row[lane as usize].get(),
            None => u32::from(lane == self.tid % 32),
        }
    }

    fn rec(&self, kind: AccessKind) -> Rec {
        Rec {
            epoch: self.epoch,
            clock: self.clock(self.tid % 32),
            meta: self.tid | (kind as u32) << TID_BITS | self.site.min(SITE_UNKNOWN) << SITE_SHIFT,
        }
    }

    /// Whether the recorded access `r` happened before this one. `epochs` is `None` for
    /// shared memory, where every record comes from this block.
    fn ordered(&self, r: Rec, epochs: Option<&EpochTable>) -> bool {
        if r.epoch == self.epoch {
            let t = r.tid();
            t == self.tid || (t / 32 == self.tid / 32 && self.clock(t % 32) >= r.clock)
        } else {
            match epochs {
                None => true,
                Some(table) => {
                    let (block, phase) = table.get(r.epoch);
                    block == self.block || phase < self.grid_phase
                }
            }
        }
    }
}

/// The outcome of a checked access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Ok,
    /// A conflicting, unordered earlier access.
    Race(Rec),
    /// A read of a shared element no thread of the block has written (yet); recorded.
    Uninitialized,
}

impl Entry {
    /// Checks the access `kind` of `me` against the record, then records it.
    fn access(
        &mut self,
        me: &Accessor<'_>,
        kind: AccessKind,
        epochs: Option<&EpochTable>,
        uninit_check: bool,
    ) -> Verdict {
        let w = self.write;
        // Recorded all the same: a write by another thread that follows without
        // synchronisation is a race, which explains the garbage better.
        let uninit = w.is_empty() && uninit_check && kind.reads_old();
        if !w.is_empty() && conflict(w.kind(), kind) && !me.ordered(w, epochs) {
            return Verdict::Race(w);
        }
        let rec = me.rec(kind);
        if kind.writes() {
            for r in [self.read1, self.read2] {
                if !r.is_empty() && conflict(r.kind(), kind) && !me.ordered(r, epochs) {
                    return Verdict::Race(r);
                }
            }
            self.write = rec;
            // Reads that conflict are ordered before this write (else it raced), so later
            // accesses ordered after it are ordered after them too: forget them. Atomic
            // reads under an atomic write are kept while they are not ordered before it.
            let keep =
                |r: Rec| !r.is_empty() && !conflict(r.kind(), kind) && !me.ordered(r, epochs);
            let (k1, k2) = (keep(self.read1), keep(self.read2));
            (self.read1, self.read2) = match (k1, k2) {
                (true, true) => (self.read1, self.read2),
                (true, false) => (self.read1, Rec::default()),
                (false, true) => (self.read2, Rec::default()),
                (false, false) => (Rec::default(), Rec::default()),
            };
        } else if self.read1.is_empty() || me.ordered(self.read1, epochs) {
            self.read1 = rec;
        } else if self.read2.is_empty() || me.ordered(self.read2, epochs) {
            self.read2 = rec;
        } else if Rec::same_group(self.read1, self.read2) && !Rec::same_group(self.read1, rec) {
            // Three concurrent reads: keep two from different warps or blocks, which a
            // later write is least likely to be ordered after both of.
            self.read2 = rec;
        }
        if uninit {
            Verdict::Uninitialized
        } else {
            Verdict::Ok
        }
    }
}

/// The shadow of one shared-memory allocation of one block.
pub(crate) struct SharedShadow {
    entries: Box<[Cell<Entry>]>,
}

impl SharedShadow {
    pub(crate) fn new(len: usize) -> SharedShadow {
        SharedShadow {
            entries: (0..len).map(|_| Cell::new(Entry::default())).collect(),
        }
    }

    /// Checks and records an access of element `index` (in bounds).
    pub(crate) fn access(&self, index: usize, me: &Accessor<'_>, kind: AccessKind) -> Verdict {
        let cell = &self.entries[index];
        let mut e = cell.get();
        let verdict = e.access(me, kind, None, true);
        cell.set(e);
        verdict
    }
}

/// Spin-lock stripes of a global shadow.
const STRIPES: usize = 64;

#[repr(align(64))]
#[derive(Default)]
struct Stripe(AtomicBool);

struct StripeGuard<'a>(&'a Stripe);

impl Stripe {
    fn lock(&self) -> StripeGuard<'_> {
        let mut spins = 0u32;
        while self
            .0
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        StripeGuard(self)
    }
}

impl Drop for StripeGuard<'_> {
    fn drop(&mut self) {
        self.0 .0.store(false, Ordering::Release);
    }
}

/// Entries per chunk of a global shadow (36 KiB: served from the heap, so the memory
/// of one launch's chunks is reused by the next without page faults).
const CHUNK: usize = 1024;

fn chunk_layout() -> Layout {
    Layout::array::<Entry>(CHUNK).expect("a chunk layout")
}

/// The shadow of one global slice argument for one launch, shared by every worker: chunks
/// of [`CHUNK`] entries, allocated zeroed on first touch.
pub(crate) struct GlobalShadow {
    len: usize,
    chunks: Box<[AtomicPtr<Entry>]>,
    stripes: Box<[Stripe]>,
}

// SAFETY: a chunk is installed once (compare-exchange) and freed on drop; its entries are
// only read or written under the stripe lock of the element.
unsafe impl Sync for GlobalShadow {}
// SAFETY: it owns its chunks.
unsafe impl Send for GlobalShadow {}

impl GlobalShadow {
    pub(crate) fn new(len: usize) -> GlobalShadow {
        GlobalShadow {
            len,
            chunks: (0..len.div_ceil(CHUNK))
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            stripes: (0..STRIPES).map(|_| Stripe::default()).collect(),
        }
    }

    /// The chunk holding element `index`, allocated on first use; `None` when memory ran
    /// out (that element goes unchecked).
    fn chunk(&self, index: usize) -> Option<NonNull<Entry>> {
        let slot = &self.chunks[index / CHUNK];
        if let Some(chunk) = NonNull::new(slot.load(Ordering::Acquire)) {
            return Some(chunk);
        }
        let fresh = ChunkPool::take()?;
        match slot.compare_exchange(
            std::ptr::null_mut(),
            fresh.as_ptr(),
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => Some(fresh),
            Err(theirs) => {
                ChunkPool::give(fresh);
                NonNull::new(theirs)
            }
        }
    }

    /// Checks and records an access of element `index` (< len).
    pub(crate) fn access(
        &self,
        index: usize,
        me: &Accessor<'_>,
        kind: AccessKind,
        epochs: &EpochTable,
    ) -> Verdict {
        assert!(index < self.len, "shadow index in bounds");
        let Some(chunk) = self.chunk(index) else {
            return Verdict::Ok;
        };
        // Consecutive elements share a stripe: a block usually touches a run of them.
        let _guard = self.stripes[(index >> 4) % STRIPES].lock();
        // SAFETY: index % CHUNK < CHUNK, the chunk lives as long as `self`, and the stripe
        // lock makes this the only reference to the entry.
        let e = unsafe { &mut *chunk.as_ptr().add(index % CHUNK) };
        e.access(me, kind, Some(epochs), false)
    }
}

impl Drop for GlobalShadow {
    fn drop(&mut self) {
        for slot in self.chunks.iter_mut() {
            if let Some(chunk) = NonNull::new(*slot.get_mut()) {
                ChunkPool::give(chunk);
            }
        }
    }
}

/// Chunks of finished launches, kept for the next ones (up to [`ChunkPool::KEEP`]):
/// handing memory back and forth to the allocator costs page faults and TLB shootdowns
/// on every large launch.
struct ChunkPool;

static POOL: Mutex<Vec<SendChunk>> = Mutex::new(Vec::new());

/// A chunk in the pool: owned memory, no other reference to it.
struct SendChunk(NonNull<Entry>);

// SAFETY: a pooled chunk is owned by the pool alone.
unsafe impl Send for SendChunk {}

impl ChunkPool {
    /// Chunks kept: 64 MiB of shadow.
    const KEEP: usize = (64 << 20) / (CHUNK * std::mem::size_of::<Entry>());

    /// A zeroed chunk; `None` when memory ran out.
    fn take() -> Option<NonNull<Entry>> {
        let pooled = POOL.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match pooled {
            Some(SendChunk(chunk)) => {
                // SAFETY: the chunk holds CHUNK entries and is ours; zero bytes are a
                // valid `Entry`.
                unsafe { std::ptr::write_bytes(chunk.as_ptr(), 0, CHUNK) };
                Some(chunk)
            }
            // SAFETY: the layout has a non-zero size; all-zero bytes are a valid `Entry`.
            None => {
                NonNull::new(unsafe { std::alloc::alloc_zeroed(chunk_layout()) }).map(NonNull::cast)
            }
        }
    }

    /// Takes back a chunk no one uses any more.
    fn give(chunk: NonNull<Entry>) {
        let mut pool = POOL.lock().unwrap_or_else(PoisonError::into_inner);
        if pool.len() < Self::KEEP {
            pool.push(SendChunk(chunk));
        } else {
            drop(pool);
            // SAFETY: allocated by `take` with this layout; no one else holds it.
            unsafe { std::alloc::dealloc(chunk.as_ptr().cast(), chunk_layout()) };
        }
    }
}

/// Which block, and which grid phase of it, each epoch id belongs to; ids are handed out
/// launch-wide, one per barrier interval of each block. Lock-free: segments of doubling
/// size, allocated on demand.
pub(crate) struct EpochTable {
    next: AtomicU32,
    segments: [OnceLock<Box<[EpochInfo]>>; SEGMENTS],
}

/// The block (`u64::MAX` until set) and grid phase of one epoch.
struct EpochInfo {
    block: AtomicU64,
    grid_phase: AtomicU32,
}

const SEGMENTS: usize = 23;
const FIRST_SEGMENT: usize = 1024;

impl EpochTable {
    pub(crate) fn new() -> EpochTable {
        EpochTable {
            next: AtomicU32::new(1),
            segments: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// (segment, offset) of id `id`.
    fn locate(id: u32) -> (usize, usize) {
        let i = id as usize;
        let q = i / FIRST_SEGMENT + 1;
        let k = (usize::BITS - 1 - q.leading_zeros()) as usize;
        (k, i - FIRST_SEGMENT * ((1 << k) - 1))
    }

    /// A new epoch id for `block` in its grid phase `grid_phase`; `None` when ids ran out
    /// (2^32 barrier intervals).
    pub(crate) fn start(&self, block: u64, grid_phase: u32) -> Option<u32> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if id == 0 || id == u32::MAX {
            self.next.store(u32::MAX, Ordering::Relaxed);
            return None;
        }
        let (k, off) = Self::locate(id);
        let seg = self.segments[k].get_or_init(|| {
            (0..FIRST_SEGMENT << k)
                .map(|_| EpochInfo {
                    block: AtomicU64::new(u64::MAX),
                    grid_phase: AtomicU32::new(0),
                })
                .collect()
        });
        seg[off].grid_phase.store(grid_phase, Ordering::Relaxed);
        seg[off].block.store(block, Ordering::Release);
        Some(id)
    }

    /// The block and grid phase of epoch `id` (handed out by [`EpochTable::start`]).
    pub(crate) fn get(&self, id: u32) -> (u64, u32) {
        let (k, off) = Self::locate(id);
        match self.segments[k].get() {
            Some(seg) => {
                let block = seg[off].block.load(Ordering::Acquire);
                (block, seg[off].grid_phase.load(Ordering::Relaxed))
            }
            None => (u64::MAX, 0),
        }
    }

    /// The block that epoch `id` belongs to.
    pub(crate) fn block_of(&self, id: u32) -> u64 {
        self.get(id).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(std::mem::size_of::<Rec>(), 12);
        assert_eq!(std::mem::size_of::<Entry>(), 36);
    }

    #[test]
    fn epoch_segments() {
        assert_eq!(EpochTable::locate(0), (0, 0));
        assert_eq!(EpochTable::locate(1023), (0, 1023));
        assert_eq!(EpochTable::locate(1024), (1, 0));
        assert_eq!(EpochTable::locate(3071), (1, 2047));
        assert_eq!(EpochTable::locate(3072), (2, 0));
        assert_eq!(EpochTable::locate(u32::MAX - 1).0, 22);
        let t = EpochTable::new();
        let a = t.start(7, 3).unwrap();
        let ids: Vec<u32> = (0..5000)
            .map(|b| t.start(b, b as u32 % 5).unwrap())
            .collect();
        assert_eq!(t.get(a), (7, 3));
        for (b, id) in ids.iter().enumerate() {
            assert_eq!(t.block_of(*id), b as u64);
            assert_eq!(t.get(*id).1, b as u32 % 5);
        }
    }

    fn clocks() -> Vec<Cell<u32>> {
        (0..64)
            .map(|i| Cell::new(u32::from(i % 32 == 0 || i == 33)))
            .collect()
    }

    #[test]
    fn write_then_unordered_read_races() {
        let c = clocks();
        let me = |tid: u32, epoch: u32| Accessor {
            epoch,
            tid,
            block: 0,
            grid_phase: 0,
            clocks: Some(&c[(tid as usize / 32) * 32..][..32]),
            site: 3,
        };
        let mut e = Entry::default();
        assert_eq!(
            e.access(&me(0, 1), AccessKind::Read, None, true),
            Verdict::Uninitialized
        );
        // A write by another thread after that read, unordered, races with it.
        let mut u = e;
        assert!(matches!(
            u.access(&me(33, 1), AccessKind::Write, None, true),
            Verdict::Race(r) if r.kind() == AccessKind::Read
        ));
        assert_eq!(
            e.access(&me(0, 1), AccessKind::Write, None, true),
            Verdict::Ok
        );
        assert_eq!(
            e.access(&me(0, 1), AccessKind::Read, None, true),
            Verdict::Ok
        );
        match e.access(&me(33, 1), AccessKind::Read, None, true) {
            Verdict::Race(r) => {
                assert_eq!((r.tid(), r.kind(), r.site()), (0, AccessKind::Write, 3))
            }
            other => panic!("{other:?}"),
        }
        // After a barrier (new epoch) the read is ordered.
        assert_eq!(
            e.access(&me(33, 2), AccessKind::Read, None, true),
            Verdict::Ok
        );
        // Atomics do not race with atomics.
        let mut a = Entry::default();
        assert_eq!(
            a.access(&me(0, 1), AccessKind::AtomicWrite, None, true),
            Verdict::Ok
        );
        assert_eq!(
            a.access(&me(33, 1), AccessKind::AtomicRmw, None, true),
            Verdict::Ok
        );
        assert!(matches!(
            a.access(&me(0, 1), AccessKind::Read, None, true),
            Verdict::Race(_)
        ));
    }
}
