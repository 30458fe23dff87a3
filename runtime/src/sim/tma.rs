//! `tma_load_2d` on the simulator: a box of a [`TensorMap`](crate::TensorMap) copied into
//! shared memory, landing when the phase of its mbarrier completes.
//!
//! The copy reads its source when it is issued (elements outside the tensor read as zero,
//! as the TMA unit fills them) and records a write of every destination element then (so
//! an unordered access earlier in the barrier interval is a race, as for `cp_async`).
//! It completes the box's bytes on the mbarrier, and its data lands, swizzled, when a
//! thread looks at the barrier and its phase waits for nothing else (sim/mbarrier.rs);
//! until then every destination element is pending: any access to one by any thread is a data race naming the
//! `tma_load_2d` line and the access's line. The swizzle is [`swizzle_byte_offset`] of the
//! element's byte offset in its shared array, which the C declares 1024-byte aligned, as
//! the GPU applies it to the shared-memory address.

use super::check::{raise, Failure};
use super::ctx::ThreadCtx;
use super::handles::{Slice, SliceMut};
use super::mbarrier::{Landing, MbarrierRef};
use super::shadow::AccessKind;
use super::site::SrcLoc;
use super::track::{Track, Tracked};
use crate::scalar::{Arg, KernelScalar, TmaArg};
use crate::swizzle::{swizzle_byte_offset, Swizzle};

/// A `&TensorMap<T>` parameter inside a simulated kernel: the tensor's memory and the
/// map's geometry.
pub struct SimTensorMap<T> {
    data: Slice<T>,
    rows: usize,
    cols: usize,
    pitch: usize,
    box_rows: usize,
    box_cols: usize,
    swizzle: Swizzle,
}

impl<T> Clone for SimTensorMap<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimTensorMap<T> {}

impl<T: KernelScalar> SimTensorMap<T> {
    fn new(arg: &TmaArg) -> SimTensorMap<T> {
        let (rows, cols, pitch) = (arg.rows as usize, arg.cols as usize, arg.pitch as usize);
        let len = if rows == 0 {
            0
        } else {
            (rows - 1) * pitch + cols
        };
        SimTensorMap {
            data: Slice::new(arg.addr as usize as *const T, len, Track::NONE),
            rows,
            cols,
            pitch,
            box_rows: arg.box_rows as usize,
            box_cols: arg.box_cols as usize,
            swizzle: arg.swizzle,
        }
    }
}

impl ThreadCtx<'_> {
    /// Tensor-map argument `i` (`&TensorMap<T>`).
    pub fn arg_tensor_map<T: KernelScalar>(&self, i: usize) -> SimTensorMap<T> {
        match self.arg(i) {
            Arg::TensorMap(t) => SimTensorMap::new(t),
            _ => panic!("kernel ABI mismatch: argument {i} is not a tensor map"),
        }
    }
}

/// `tma_load_2d(dst, map, row, col, bar)` of thread `ctx` at `at`: the box whose top-left
/// element is `(row, col)` into `dst`, completing its bytes on `bar`.
pub(crate) fn load_2d<T: KernelScalar>(
    ctx: &ThreadCtx<'_>,
    dst: SliceMut<T>,
    map: SimTensorMap<T>,
    row: i32,
    col: i32,
    bar: MbarrierRef,
    at: &'static SrcLoc,
) {
    let size = std::mem::size_of::<T>();
    let (br, bc) = (map.box_rows, map.box_cols);
    let n = br * bc;
    if dst.len() != n {
        bad(dst.len(), n, at);
    }
    let align = tile_alignment(map.swizzle);
    let base = dst.as_slice().offset() * size;
    if !base.is_multiple_of(align) {
        bad(base, align, at);
    }
    // The box's first column must sit at a 16-byte boundary of its row: the GPU's TMA
    // faults otherwise (an illegal instruction, measured on an H100).
    let col_rem = (i64::from(col) * size as i64).rem_euclid(16) as usize;
    if col_rem != 0 {
        bad(col_rem, 16, at);
    }
    let mut values = Vec::with_capacity(n);
    for r in 0..br {
        for c in 0..bc {
            let (gr, gc) = (i64::from(row) + r as i64, i64::from(col) + c as i64);
            let inside = (0..map.rows as i64).contains(&gr) && (0..map.cols as i64).contains(&gc);
            values.push(if inside {
                map.data
                    .load(ctx, gr as usize * map.pitch + gc as usize, at)
            } else {
                T::from_bits128(0)
            });
        }
    }
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
        .insert(&keys, ctx.tid(), at, "tma_load_2d");
    let swizzle = map.swizzle;
    let land = Box::new(move || {
        for (k, v) in values.into_iter().enumerate() {
            let at_byte = swizzle_byte_offset(swizzle, base + k * size);
            dst.store_untracked(at_byte / size - base / size, v);
        }
    });
    let bytes = (n * size) as u32;
    bar.start_copy(ctx, Landing { bytes, keys, land }, at);
}

/// The alignment a TMA destination needs in shared memory: 128 bytes, 1024 under the
/// 128-byte swizzle (its pattern repeats every 1024 bytes).
pub(crate) fn tile_alignment(swizzle: Swizzle) -> usize {
    match swizzle {
        Swizzle::B128 => 1024,
        _ => 128,
    }
}

/// A tile of the wrong length (index its length, length the box's elements), misaligned
/// (index its byte offset in its array, length the alignment), or a box whose first column
/// is not 16-byte aligned (index its byte offset mod 16, length 16): an index out of bounds at
/// the call, as on the GPU (docs/tensor-cores.md).
#[cold]
fn bad(index: usize, len: usize, at: &'static SrcLoc) -> ! {
    raise(Failure::OutOfBounds {
        at,
        index: index as u64,
        len: len as u64,
    })
}
