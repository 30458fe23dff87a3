//! The tile-scan kernel, written once as a template for every operator (the library's and
//! a user's, through [`operator!`](crate::operator!)) and for every range a block scans, as
//! the range-reduce template is: the three-launch scan's chunks and the segmented scan's
//! segments are its two instances.
//!
//! A scan of `n` elements is three launches over `B` chunks of `chunk` consecutive
//! elements (`B` at most 1024, `chunk` a multiple of the 4096-element tile; the scans take
//! `SHARED_ELEMS` elements of dynamic shared memory):
//!
//! 1. the operator's reduce kernel (algorithms/src/template/range_reduce.rs): block `b`
//!    combines its chunk into `totals[b]`.
//! 2. `chunk_scan` with one block over `totals`, exclusive: `prefixes[b]` is what comes
//!    before chunk `b`.
//! 3. `chunk_scan` with `B` blocks over `x`: block `b` scans its chunk tile by tile,
//!    starting from `prefixes[b]` and carrying each tile's total into the next.
//!
//! A segmented scan is one launch of `segment_scan`: block `s` scans
//! `x[offsets[s]..offsets[s + 1]]` tile by tile as the third launch scans a chunk, from
//! nothing (a segment has no carry).
//!
//! No block waits for another inside a launch, so the kernels need nothing of the memory
//! model but the launch order, run the same on the simulator (whose race checks see
//! nothing to report), and are deterministic: the combining order is a function of the
//! length (of the input, or of the segment) alone.

/// `__scan_kernels!(name $(<T: Bound>)?, T, [x, b] params [p: P, ..] $(skip (K))?
/// range (S, E) $(carry (H, V))? |a, b| C, init I, options [..])`: kernel
/// `name(x: &[T], out: &mut [T], p: P, .., inclusive: bool)`, the tile scan with the
/// combining step `C`. Block `b` (the name the caller gives it, bound to `block_idx().x`
/// for `K`, `S`, `E`, `H` and `V`) does nothing where `K` holds (optional: what shows
/// the bounds prover the loads of `S` and `E`, such as `b + 1 >= offsets.len()`), else
/// scans `x[S..E]` (`E` clamped to `x.len()`) into `out[S..E]`, inclusively or
/// exclusively, after `V` when `H` holds (`carry`, optional: the chunk scan's prefix;
/// without it, or where `H` fails, the range is scanned from nothing); `out` outside the
/// range is not written. `I` fills the lanes past the end and
/// is the exclusive scan's first element without a carry: the identity, or, for an
/// idempotent operator without one, `x[0]` (which may be combined into a range's total
/// any number of times; such an operator has no exclusive scan, which the host refuses).
#[doc(hidden)]
#[macro_export]
macro_rules! __scan_kernels {
    (
        $scan:ident $(<$tp:ident: $bound:ident>)?, $t:ty,
        [$x:ident, $blk:ident] params [$($p:ident: $pt:ty),*]
        $(skip ($skip:expr))? range ($s:expr, $e:expr) $(carry ($has:expr, $cv:expr))?
        |$a:ident, $b:ident| $combine:expr, init $init:expr,
        options [$($opt:ident),*]
    ) => {
        /// A tile scan (algorithms/src/template/scan.rs): block `b` scans its range of `x`
        /// into `out` (the chunk scan's second and third launches: `x[b * chunk..]`, at
        /// most `chunk` elements, after `carry[b]` when `b > 0`; the segmented scan's:
        /// `x[offsets[b]..offsets[b + 1]]`); `inclusive` or exclusive. Tile by tile (4096
        /// elements, 512 a warp): each warp loads its 512 coalesced into its part of the
        /// dynamic shared memory (element `s` at `s + s / 32`, so that neither the striped
        /// loads nor the lanes' 16 consecutive reads conflict), each lane scans its 16 in
        /// registers, a Kogge-Stone scan of the lanes' totals within the warp and the
        /// warps' totals give each lane what comes before it, and the results go back
        /// through shared memory to coalesced stores. Dynamic shared memory: 4480
        /// elements (`scan::SHARED_ELEMS`), 8 warps' 528 and 8 warps' 32 lane totals.
        #[gpu_kernel(block = (256, 1, 1) $(, $opt)*)]
        pub fn $scan $(<$tp: $bound>)? ($x: &[$t], out: &mut [$t] $(, $p: $pt)*, inclusive: bool) {
            let __stage = dynamic_shared::<$t>();
            let __t = thread_idx().x as usize;
            let __lane = __t & 31;
            let __warp = (__t / 32) & 7;
            let $blk = block_idx().x as usize;
            let __n = $x.len();
            if __n == 0 {
                return;
            }
            $(
            if $skip {
                return;
            }
            )?
            let __start: usize = $s;
            let mut __end: usize = $e;
            if __end > __n {
                __end = __n;
            }
            if __start >= __end {
                return;
            }
            // A launch with less shared memory than the kernel uses (`launches` gives the
            // right amount) does nothing; saying so also proves every shared index below.
            if __stage.len() < 4480 {
                return;
            }
            let __init: $t = $init;
            // What comes before this block's next tile, and whether anything does.
            let mut __carry = __init;
            let mut __has_carry = false;
            $(
            if $has {
                __carry = $cv;
                __has_carry = true;
            }
            )?
            let __own = 528 * __warp;
            let __mine = __own + 16 * __lane + __lane / 2;
            let __sums = 4224 + 32 * __warp;
            let mut __tile = __start;
            while __tile < __end {
                // 1. The warp's 512 elements, coalesced (the init past the range's end).
                let __wbase = __tile + 512 * __warp;
                let mut __j = 0usize;
                while __j < 16 {
                    let __g = __wbase + __lane + 32 * __j;
                    let mut __e = __init;
                    if __g < __end && __g < __n {
                        __e = $x[__g];
                    }
                    __stage[__own + __lane + 33 * (__j & 15)] = __e;
                    __j += 1;
                }
                sync_warp(0xffff_ffff);
                // 2. This lane's 16 consecutive elements, scanned in registers.
                let mut __v = [__init; 16];
                __v[0] = __stage[__mine];
                let mut __k = 1usize;
                while __k < 16 {
                    let ($a, $b) = (__v[(__k - 1) & 15], __stage[__mine + (__k & 15)]);
                    __v[__k & 15] = $combine;
                    __k += 1;
                }
                // 3. The lanes' totals scanned within the warp.
                __stage[__sums + __lane] = __v[15];
                sync_warp(0xffff_ffff);
                let mut __d = 1usize;
                while __d < 32 {
                    let mut __y = __init;
                    if __lane >= __d {
                        __y = __stage[__sums + __lane - __d];
                    }
                    sync_warp(0xffff_ffff);
                    if __lane >= __d {
                        let ($a, $b) = (__y, __stage[__sums + __lane]);
                        __stage[__sums + __lane] = $combine;
                    }
                    sync_warp(0xffff_ffff);
                    __d *= 2;
                }
                let mut __lane_before = __init;
                if __lane > 0 {
                    __lane_before = __stage[__sums + __lane - 1];
                }
                sync_threads();
                // 4. What comes before this lane: the carry, the warps before, the lanes
                // before; and the tile's total.
                let mut __before = __carry;
                let mut __has_before = __has_carry;
                let mut __total = __init;
                let mut __w = 0usize;
                while __w < 8 {
                    let __wt = __stage[4224 + 32 * (__w & 7) + 31];
                    if __w < __warp {
                        if __has_before {
                            let ($a, $b) = (__before, __wt);
                            __before = $combine;
                        } else {
                            __before = __wt;
                        }
                        __has_before = true;
                    }
                    if __w == 0 {
                        __total = __wt;
                    } else {
                        let ($a, $b) = (__total, __wt);
                        __total = $combine;
                    }
                    __w += 1;
                }
                if __lane > 0 {
                    if __has_before {
                        let ($a, $b) = (__before, __lane_before);
                        __before = $combine;
                    } else {
                        __before = __lane_before;
                    }
                    __has_before = true;
                }
                // 5. The results, back through shared memory to coalesced stores.
                let mut __k = 0usize;
                while __k < 16 {
                    let mut __r = __v[__k & 15];
                    if !inclusive {
                        // The element before this one, scanned; the init before the first.
                        if __k > 0 {
                            __r = __v[(__k - 1) & 15];
                        } else {
                            __r = __init;
                        }
                    }
                    if __has_before {
                        if inclusive || __k > 0 {
                            let ($a, $b) = (__before, __r);
                            __r = $combine;
                        } else {
                            __r = __before;
                        }
                    }
                    __stage[__mine + (__k & 15)] = __r;
                    __k += 1;
                }
                sync_warp(0xffff_ffff);
                let mut __j = 0usize;
                while __j < 16 {
                    let __g = __wbase + __lane + 32 * __j;
                    if __g < __end && __g < out.len() {
                        out[__g] = __stage[__own + __lane + 33 * (__j & 15)];
                    }
                    __j += 1;
                }
                // 6. The tile's total joins the carry; every warp has read the totals and
                // its stage before the next tile writes them.
                if __has_carry {
                    let ($a, $b) = (__carry, __total);
                    __carry = $combine;
                } else {
                    __carry = __total;
                }
                __has_carry = true;
                sync_threads();
                __tile += 4096;
            }
        }
    };
}
