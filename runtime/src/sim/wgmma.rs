//! `wgmma` on the simulator (docs/tensor-cores.md, "Hopper: warpgroup MMA").
//!
//! `acc.wgmma(a, b, k)` is a warpgroup collective: the block releases it once all 128
//! threads of the warpgroup wait at it (sim/block.rs). Then each thread computes its own
//! accumulator elements ([`wgmma_owner`]): it reads the rows of A and of B it needs, slab `k`
//! (32 bytes of K: 16 16-bit elements, 8 tf32 ones), through the 128-byte swizzle of their
//! byte offsets (the tiles' starts are taken as 1024-byte aligned in shared memory, as the C
//! declares them), with checked, race-tracked loads, reads each element as the instruction's
//! type ([`MmaElem`]: tf32 ignores an f32's low 13 mantissa bits), and sums the products in
//! f64, rounded once to f32.
//!
//! On the GPU the async proxy reads the tiles at some moment before the
//! `wgmma_wait_group` that covers the `wgmma`'s group: so until then the elements a thread
//! read are *pending* in the block, and a write to one by any thread is a data race with
//! the `wgmma` (both lines reported). Each thread's `wgmma`s are a FIFO of groups as
//! `cp_async`'s: `wgmma_commit_group` closes the open group, `wgmma_wait_group(n)` ends all
//! but the newest `n` (capped at 7, as the GPU's immediate).

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use super::check::{raise, Failure};
use super::ctx::ThreadCtx;
use super::handles::Slice;
use super::mma::{Fragment, MmaElem, MmaScalar, WIDE};
use super::site::SrcLoc;
use super::track::Tracked;
use super::warp::WarpOp;
use crate::mma::{is_wgmma_n, wgmma_owner};
use crate::swizzle::{swizzle_byte_offset, Swizzle};

/// A shared element: its region and its index there.
type Element = (u32, usize);

/// One thread's `wgmma`s in flight: the elements each read, in the open group and in the
/// committed ones, oldest first.
#[derive(Default)]
pub(crate) struct Queue {
    open: Vec<Element>,
    groups: VecDeque<Vec<Element>>,
}

/// A pending element: how many `wgmma`s in flight read it, and the first one's thread and
/// line (the report names it).
type Readers = (u32, u32, &'static SrcLoc);

/// The shared elements `wgmma`s in flight read, block-wide.
#[derive(Default)]
pub(crate) struct Pending(RefCell<HashMap<Element, Readers>>);

impl Pending {
    /// A `wgmma` in flight that reads `element` of `region`: its thread and line.
    #[inline]
    pub(crate) fn get(&self, region: u32, element: usize) -> Option<(u32, &'static SrcLoc)> {
        let map = self.0.borrow();
        if map.is_empty() {
            return None;
        }
        map.get(&(region, element)).map(|&(_, tid, at)| (tid, at))
    }
}

/// The bytes of one tile row: 64 16-bit elements of K, or 32 tf32 ones.
const ROW_BYTES: usize = 128;

/// The bytes of one slab of K (`k` picks one of the row's 4).
const SLAB_BYTES: usize = 32;

/// Where `acc.wgmma(a, ..)` takes A from: a 64-row tile in shared memory, or this
/// thread's 8 elements of a `FragmentA<T, M64N{N}K16>` in registers
/// ([`wgmma_a_owner`](crate::mma::wgmma_a_owner)).
pub enum WgmmaA<T> {
    Tile(Slice<T>),
    Regs([T; 8]),
}

impl ThreadCtx<'_> {
    /// `acc.wgmma(a, b, k)` (`trans_b` false) and `acc.wgmma_trans_b(a, b, k)` (true):
    /// `D = A * B + D` for slab `k` of K (`kw` = 32 bytes of `T` wide: 16 for bf16 and
    /// f16, 8 for tf32), `acc` this thread's N / 2 elements, `elem` the instruction's
    /// operand type (`Tf32` for f32 tiles). A warpgroup collective (every thread of the
    /// warpgroup calls it).
    /// - A: a 64-row tile at the start of `a` (K-major rows of 128 bytes, 128B-swizzled;
    ///   its slab `k`), or a `FragmentA` (the slab itself).
    /// - B, K-major: the N-row tile at the start of `b`, row `n` holding `B[.][n]` (its
    ///   slab `k`). MN-major (`trans_b`): `b` is N / 64 column blocks of `rows = b.len() /
    ///   N` rows of 64 elements of N, each 128B-swizzled; slab `k` is rows `16 k .. 16 k +
    ///   16` of every block.
    #[allow(clippy::too_many_arguments)]
    pub async fn wgmma<T: MmaScalar, const NX: usize>(
        &self,
        acc: &mut Fragment<f32, NX>,
        a: WgmmaA<T>,
        b: Slice<T>,
        k: usize,
        trans_b: bool,
        elem: MmaElem,
        at: &'static SrcLoc,
    ) {
        let n = 2 * NX;
        assert!(is_wgmma_n(n), "the macro passes wgmma shapes only");
        let size = std::mem::size_of::<T>();
        let (row_len, kw) = (ROW_BYTES / size, SLAB_BYTES / size);
        if let WgmmaA::Tile(a) = &a {
            if a.len() < 64 * row_len {
                bad(64 * row_len, a.len(), at);
            }
        }
        // An MN-major B's rows (of 64 elements of N) in each column block.
        let rows = b.len() / n;
        let (bneed, slabs) = match trans_b {
            false => (n * row_len, 4),
            true => (
                16 * n,
                (rows / 16).min(if matches!(a, WgmmaA::Tile(_)) {
                    4
                } else {
                    usize::MAX
                }),
            ),
        };
        if b.len() < bneed {
            bad(bneed, b.len(), at);
        }
        if k >= slabs {
            bad(k, slabs, at);
        }
        let tiles = match &a {
            WgmmaA::Tile(a) => vec![("A", a), ("B", &b)],
            WgmmaA::Regs(_) => vec![("B", &b)],
        };
        for (what, tile) in tiles {
            let byte = tile.offset() * size;
            if !byte.is_multiple_of(Swizzle::B128.atom_bytes()) {
                panic!(
                    "wgmma at {at}: the {what} tile starts at byte {byte} of its shared array, \
                     which is not 1024-byte aligned (a 128B-swizzled tile must start at a \
                     multiple of 1024 bytes)"
                );
            }
        }
        if trans_b && n > 64 && !rows.is_multiple_of(8) {
            panic!(
                "wgmma_trans_b at {at}: the B tile's column blocks of {rows} rows (its length \
                 {} / N {n}) do not start at multiples of 1024 bytes: rows must be a multiple \
                 of 8",
                b.len()
            );
        }
        let t = self.tid() % 128;
        // Byte `byte` of a tile, swizzled in its 1024-byte atom, as an element index.
        let at_byte = |byte: usize| swizzle_byte_offset(Swizzle::B128, byte) / size;
        let mut read = Vec::new();
        // kw elements of `tile` at element indices `index(j)` (the rest of the 16 zero).
        let mut gather = |tile: &Slice<T>, index: &dyn Fn(usize) -> usize| -> [f64; 16] {
            std::array::from_fn(|j| {
                if j >= kw {
                    return 0.0;
                }
                let i = index(j);
                let (track, element) = tile.tracked(i);
                if let Tracked::Shared(region) = track.get() {
                    read.push((region, element));
                }
                elem.value(tile.load(self, i, at).to_bits() as u32)
            })
        };
        // This thread's rows of A (two) and its columns of B (n / 4).
        let mut a_rows: HashMap<usize, [f64; 16]> = HashMap::new();
        let mut b_cols: HashMap<usize, [f64; 16]> = HashMap::new();
        for i in 0..NX {
            let (r, c) = wgmma_owner(n, t, i);
            if let WgmmaA::Tile(a) = &a {
                a_rows.entry(r).or_insert_with(|| {
                    gather(a, &|j| at_byte(r * ROW_BYTES + (kw * k + j) * size))
                });
            }
            b_cols.entry(c).or_insert_with(|| match trans_b {
                false => gather(&b, &|j| at_byte(c * ROW_BYTES + (kw * k + j) * size)),
                true => gather(&b, &|j| {
                    at_byte(
                        (c / 64) * rows * ROW_BYTES + (16 * k + j) * ROW_BYTES + (c % 64) * size,
                    )
                }),
            });
        }
        if let WgmmaA::Regs(regs) = a {
            // The warp's lanes hand each other the rows of A they hold.
            let mut wide = [0u32; WIDE];
            for (w, v) in wide.iter_mut().zip(regs) {
                *w = v.to_bits() as u32;
            }
            self.slot().wide.set(wide);
            self.warp(WarpOp::WgmmaA, u32::MAX, 0, 0, 32, at).await;
            let got = self.slot().wide.get();
            let w = 16 * (t as usize / 32);
            let g = (t as usize % 32) / 4;
            for h in 0..2 {
                let row: [f64; 16] = std::array::from_fn(|j| {
                    let word = got[8 * h + j / 2];
                    elem.value((word >> (16 * (j % 2))) & 0xffff)
                });
                a_rows.insert(w + g + 8 * h, row);
            }
        }
        // Every thread reads its rows before the warpgroup meets, so that all 128 threads'
        // reads precede anything a thread does after its wgmma (an arrival that frees the
        // stage, say), as on the GPU, where the warpgroup's wgmma reads its tiles at once.
        self.warp(WarpOp::Wgmma, u32::MAX, 0, 0, 32, at).await;
        for (i, x) in acc.x.iter_mut().enumerate() {
            let (r, c) = wgmma_owner(n, t, i);
            let (ar, bc) = (&a_rows[&r], &b_cols[&c]);
            let sum: f64 = (0..kw).map(|j| ar[j] * bc[j]).sum();
            *x = (f64::from(*x) + sum) as f32;
        }
        if self.block().checks && !read.is_empty() {
            let mut map = self.block().wgmma_pending.0.borrow_mut();
            for e in &read {
                map.entry(*e)
                    .and_modify(|v| v.0 += 1)
                    .or_insert((1, self.tid(), at));
            }
            drop(map);
            self.wgmma_queue().borrow_mut().open.extend(read);
        }
    }

    /// `wgmma_fence()`: orders this thread's register and shared-memory accesses before the
    /// `wgmma`s after it; nothing to do here, where a `wgmma` reads its operands when it is
    /// issued.
    pub fn wgmma_fence(&self) {}

    /// `wgmma_commit_group()`: closes this thread's open group of `wgmma`s.
    pub fn wgmma_commit_group(&self) {
        let mut q = self.wgmma_queue().borrow_mut();
        let group = std::mem::take(&mut q.open);
        q.groups.push_back(group);
    }

    /// `wgmma_wait_group(n)`: ends all but this thread's newest `n` committed groups: the
    /// tiles they read may be written again.
    pub fn wgmma_wait_group(&self, n: u32) {
        let done: Vec<Element> = {
            let mut q = self.wgmma_queue().borrow_mut();
            let keep = n.min(7) as usize;
            let end = q.groups.len().saturating_sub(keep);
            q.groups.drain(..end).flatten().collect()
        };
        if done.is_empty() {
            return;
        }
        let mut map = self.block().wgmma_pending.0.borrow_mut();
        for e in done {
            if let Some(v) = map.get_mut(&e) {
                v.0 -= 1;
                if v.0 == 0 {
                    map.remove(&e);
                }
            }
        }
    }

    /// `setmaxnreg_inc(n)`: a warpgroup collective; the simulator has no registers to move.
    pub async fn setmaxnreg_inc(&self, n: u32, at: &'static SrcLoc) {
        let _ = n;
        self.warp(WarpOp::SetMaxNReg(true), u32::MAX, 0, 0, 32, at)
            .await;
    }

    /// `setmaxnreg_dec(n)`: as [`ThreadCtx::setmaxnreg_inc`].
    pub async fn setmaxnreg_dec(&self, n: u32, at: &'static SrcLoc) {
        let _ = n;
        self.warp(WarpOp::SetMaxNReg(false), u32::MAX, 0, 0, 32, at)
            .await;
    }
}

/// A tile shorter than the shape or a `k` past 3: an index out of bounds at the call.
#[cold]
fn bad(index: usize, len: usize, at: &'static SrcLoc) -> ! {
    raise(Failure::OutOfBounds {
        at,
        index: index as u64,
        len: len as u64,
    })
}
