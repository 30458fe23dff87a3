//! Hopper's asynchronous transaction barriers and tensor copies (sm_90): [`Mbarrier`]s in
//! shared memory and [`tma_load_2d`], which copies a box of a
//! [`TensorMap`](crate::TensorMap) into shared memory and completes its bytes on an
//! mbarrier. docs/tensor-cores.md ("Hopper: mbarriers and TMA") has the rules and a
//! pipeline; the simulator runs the phases and reports a tile touched before its phase
//! completes as a data race naming both lines.

use super::outside_kernel;
use crate::{KernelScalar, TensorMap};

/// An mbarrier: the 8-byte barrier object of shared memory that Hopper's asynchronous
/// copies complete on (PTX `mbarrier`). Declared as an array,
/// `let full = SharedArray::<Mbarrier, 4>::new();`, and used by element:
/// `full[i].init(1)`, `full[i].arrive()`, `full[i].wait(phase)`.
///
/// A barrier counts *phases*. Each phase waits for `count` arrivals (set by
/// [`init`](Mbarrier::init)) and for its transaction bytes: [`arrive_expect_tx`] adds
/// bytes, each [`tma_load_2d`] on the barrier completes its box's bytes. When both reach
/// zero the phase completes, and the next one starts with `count` arrivals again.
/// [`wait`](Mbarrier::wait)`(parity)` waits for the phase of that parity (0 for the
/// first phase, then 1, 0, ...) to complete. An arrival is a release and a completed wait
/// an acquire (CTA scope): what a thread wrote before it arrived, and what the copies
/// brought, is visible to a thread whose wait on that phase has returned.
///
/// [`arrive_expect_tx`]: Mbarrier::arrive_expect_tx
pub struct Mbarrier {
    _private: (),
}

impl Mbarrier {
    /// Initialises the barrier for `count` arrivals a phase, 1 to 2^20 - 1
    /// (`mbarrier.init.shared::cta.b64`). One thread does it once, then
    /// [`fence_mbarrier_init`] and `sync_threads()` before any use; a second `init`, or
    /// a use before the first, stops the simulator naming the line.
    pub fn init(&self, count: u32) {
        let _ = count;
        outside_kernel("Mbarrier::init")
    }

    /// Arrives on the barrier (`mbarrier.arrive.release.cta.shared::cta.b64`): one of the
    /// phase's `count` arrivals. More arrivals than the phase has left is an error on the
    /// simulator (undefined on the GPU).
    pub fn arrive(&self) {
        outside_kernel("Mbarrier::arrive")
    }

    /// Adds `bytes` to the phase's expected transaction bytes, then arrives
    /// (`mbarrier.arrive.expect_tx.release.cta.shared::cta.b64`): the producer's call
    /// before (or after) its [`tma_load_2d`]s of `bytes` in all.
    pub fn arrive_expect_tx(&self, bytes: u32) {
        let _ = bytes;
        outside_kernel("Mbarrier::arrive_expect_tx")
    }

    /// Waits until the phase of parity `parity` (0 or 1) has completed: a loop on
    /// `mbarrier.try_wait.parity.acquire.cta.shared::cta.b64`. The phase before the
    /// current one counts as completed, so waiting on the parity of the phase before the
    /// first returns at once (the usual start of an "empty" barrier).
    pub fn wait(&self, parity: u32) {
        let _ = parity;
        outside_kernel("Mbarrier::wait")
    }

    /// Whether the phase of parity `parity` has completed, without waiting
    /// (`mbarrier.try_wait.parity`); `true` acquires as [`wait`](Mbarrier::wait) does.
    pub fn try_wait(&self, parity: u32) -> bool {
        let _ = parity;
        outside_kernel("Mbarrier::try_wait")
    }
}

/// Makes the [`Mbarrier::init`]s before it visible to the asynchronous proxy (the TMA
/// unit): `fence.mbarrier_init.release.cluster`. Call it after the inits, then
/// `sync_threads()`.
pub fn fence_mbarrier_init() {
    outside_kernel("fence_mbarrier_init")
}

/// Orders this thread's earlier writes to shared memory before later asynchronous-proxy
/// accesses of it (`fence.proxy.async.shared::cta`): needed where a TMA copy follows
/// generic writes to the same memory.
pub fn fence_proxy_async() {
    outside_kernel("fence_proxy_async")
}

/// Copies the box of `map` whose top-left element is (`row`, `col`) into `dst` and
/// completes its bytes on `bar`
/// (`cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`). One
/// thread issues it. Elements of the box outside the tensor (negative coordinates, or
/// past the end) are zero. `dst` is a sub-slice of a `SharedArray` the kernel declares or
/// of `dynamic_shared::<T>()`, of exactly the box's elements, at a multiple of 128 bytes
/// (1024 under [`Swizzle::B128`](crate::swizzle::Swizzle::B128)); otherwise the call is
/// [`Error::OutOfBounds`](crate::Error::OutOfBounds) at this line and nothing is copied.
/// Under a swizzle, box element (r, c) lands at byte
/// `swizzle_byte_offset(mode, base + (r * box_cols + c) * size)` of the array.
/// `dst` is not to be touched before a wait on `bar` sees the phase complete.
pub fn tma_load_2d<T: KernelScalar>(
    dst: &mut [T],
    map: &TensorMap<'_, T>,
    row: i32,
    col: i32,
    bar: &Mbarrier,
) {
    let _ = (dst, map, row, col, bar);
    outside_kernel("tma_load_2d")
}
