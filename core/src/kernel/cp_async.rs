//! Asynchronous copies from global to shared memory (`cp.async`, sm_80 and later), for
//! multi-stage pipelines: each thread issues copies, closes them into a group with
//! [`cp_async_commit`], and later waits for all but its newest `n` groups with
//! [`cp_async_wait`]. A destination element is not to be read or written before the wait
//! that covers its copy (and, by other threads, before that wait and a barrier): the
//! simulator reports such an access as a data race naming both lines. docs/tensor-cores.md
//! ("Asynchronous copies") has the rules.

use super::outside_kernel;

/// Starts copying `src` into `dst` (CUDA's `cp.async.ca.shared.global`, `.cg` for 16
/// bytes): `dst` a sub-slice of a `SharedArray` this kernel declares (`&mut tile[a..b]`),
/// `src` a sub-slice of a global buffer (`&input[c..d]`), both of `4`, `8` or `16` bytes
/// (`dst.len() == src.len()`), each aligned to its size. Both ranges are checked as any
/// sub-slice; a length that is not 4, 8 or 16 bytes, or differs between the two, is
/// [`Error::OutOfBounds`](crate::Error::OutOfBounds) at this line (index `dst.len()`, length
/// `src.len()` for a mismatch; index the byte length, length 16, for a bad size), and
/// nothing is copied. The copy belongs to the group the next [`cp_async_commit`] closes.
pub fn cp_async<T>(dst: &mut [T], src: &[T]) {
    let _ = (dst, src);
    outside_kernel("cp_async")
}

/// Closes this thread's open group of [`cp_async`] copies (`cp.async.commit_group`); an
/// empty group is a group too, which keeps the count of a pipeline's stages regular.
pub fn cp_async_commit() {
    outside_kernel("cp_async_commit")
}

/// Waits until at most `n` of this thread's committed groups are still in flight (the
/// newest `n`): `cp.async.wait_group n`. The copies of the groups it completes are then in
/// shared memory for this thread; other threads see them after a barrier
/// ([`sync_threads`](super::sync_threads)) that follows it. `n` past 7 waits as 7 does
/// (more than asked, never less). Copies not yet committed are not waited for.
pub fn cp_async_wait(n: u32) {
    let _ = n;
    outside_kernel("cp_async_wait")
}

/// Waits for every [`cp_async`] this thread issued, committed or not
/// (`cp.async.wait_all`).
pub fn cp_async_wait_all() {
    outside_kernel("cp_async_wait_all")
}
