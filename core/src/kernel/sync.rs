//! Barriers and memory fences. A barrier must be reached by every thread it names (all of
//! the block, or every lane of the mask): the simulator reports one that some threads skip
//! as a divergent barrier, naming the line.

use super::outside_kernel;

/// Block barrier, CUDA's `__syncthreads()`: every thread of the block waits here, and the
/// shared-memory writes before it are seen by every thread after it.
pub fn sync_threads() {
    outside_kernel("sync_threads")
}

/// Block barrier that also counts the threads whose `predicate` holds
/// (`__syncthreads_count`).
pub fn sync_threads_count(predicate: bool) -> u32 {
    let _ = predicate;
    outside_kernel("sync_threads_count")
}

/// Block barrier that also tells whether `predicate` holds on every thread
/// (`__syncthreads_and`).
pub fn sync_threads_and(predicate: bool) -> bool {
    let _ = predicate;
    outside_kernel("sync_threads_and")
}

/// Block barrier that also tells whether `predicate` holds on some thread
/// (`__syncthreads_or`).
pub fn sync_threads_or(predicate: bool) -> bool {
    let _ = predicate;
    outside_kernel("sync_threads_or")
}

/// Barrier of the lanes in `mask` (`__syncwarp`); each of them must call it with the same
/// mask.
pub fn sync_warp(mask: u32) {
    let _ = mask;
    outside_kernel("sync_warp")
}

/// Memory fence at device scope (`__threadfence`): this thread's writes before it are
/// seen by every thread of the device before its writes after it.
pub fn thread_fence() {
    outside_kernel("thread_fence")
}

/// Memory fence at block scope (`__threadfence_block`).
pub fn thread_fence_block() {
    outside_kernel("thread_fence_block")
}

/// Memory fence at system scope (`__threadfence_system`): ordered for the host too.
pub fn thread_fence_system() {
    outside_kernel("thread_fence_system")
}
