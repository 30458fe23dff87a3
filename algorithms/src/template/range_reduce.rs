//! The range-reduce kernel, the one reduction kernel of the library: block `b` combines a
//! range of `x` (from the kernel's own parameters: chunk `b` of a reduce or a scan, a
//! segment `offsets[b]..offsets[b + 1]`) into `totals[b]`. The library's reductions and
//! scans and the kernels [`operator!`](crate::operator!) writes for a user's operator are
//! its instances.

/// `__range_reduce_kernel!(name $(<T: Bound>)?, In => Acc, [x, start, j, r] load L,
/// params [p: P, ..] $(skip (K))? range (S, E) $(warps (W))? |a, b| C, init I, empty V,
/// options [..])`: kernel `name(x: &[In], totals: &mut [Acc], p: P, ..)`; range `r`
/// combines `L` (which reads `x[j]`: `x[j]` itself, or a value made of it, such as
/// `(x[j], j)`) over `j` in `S..E` (`E` clamped to `x.len()`; both may read `r`) into
/// `totals[r]`, or writes `V` where the range is empty (without `empty V`, nothing). `I`
/// starts each accumulator (the identity, or for an idempotent operator `L` of an element
/// of the range, at `j = start`, with `start` bound to `S`); it is evaluated only for a
/// non-empty range. Where `K` (which may read `r`) is true the range has nothing to do
/// (a segment past the offsets: saying so proves the offsets' reads).
///
/// A block a range (`r` the block's index), or where `W` is true a warp a range (`r` is
/// `8 * block + warp`: short segments, which leave most of a block idle and pay for its
/// barrier). Each thread combines four consecutive elements a step (four loads in
/// flight, all proven in bounds by `i + 3 < end` and `i + 3 < n`), strided by the
/// threads' 1024 (a warp's 128), into four accumulators; then `(a0 ∘ a1) ∘ (a2 ∘ a3)`, a
/// shared-memory tree within each warp, and (a block a range) the 8 warps' results in
/// order: an order fixed by the range's length and `W` alone.
#[doc(hidden)]
#[macro_export]
macro_rules! __range_reduce_kernel {
    (
        $name:ident $(<$tp:ident: $bound:ident>)?, $in:ty => $t:ty,
        [$x:ident, $start:ident, $j:ident, $r:ident] load $load:expr,
        params [$($p:ident: $pt:ty),*] $(skip ($skip:expr))? range ($s:expr, $e:expr)
        $(warps ($warps:expr))? |$a:ident, $b:ident| $combine:expr, init $init:expr, $(empty $empty:expr,)?
        options [$($opt:ident),*]
    ) => {
        /// Block `b` combines its range of `x` into `totals[b]` (the template's docs,
        /// algorithms/src/template/range_reduce.rs, say how).
        #[gpu_kernel(block = (256, 1, 1) $(, $opt)*)]
        pub fn $name $(<$tp: $bound>)? ($x: &[$in], totals: &mut [$t] $(, $p: $pt)*) {
            let __tile = SharedArray::<$t, 256>::new();
            let __t = thread_idx().x as usize;
            let __lane = __t & 31;
            let __per_warp: bool = false $(|| $warps)?;
            // This thread's range, its first element in it and its step.
            let mut $r = block_idx().x as usize;
            let mut __first = 4 * __t;
            let mut __step = 1024usize;
            if __per_warp {
                $r = 8 * $r + __t / 32;
                __first = 4 * __lane;
                __step = 128;
            }
            if false $(|| $skip)? {
                return;
            }
            // The thread that writes the range's result.
            let __writer = (__per_warp && __lane == 0) || __t == 0;
            let __n = $x.len();
            let $start: usize = $s;
            let mut __end: usize = $e;
            if __end > __n {
                __end = __n;
            }
            if $start >= __end || $start >= __n {
                $(
                if __writer && $r < totals.len() {
                    totals[$r] = $empty;
                }
                )?
                return;
            }
            let __init: $t = $init;
            let (mut __a0, mut __a1, mut __a2, mut __a3) = (__init, __init, __init, __init);
            let mut __i = $start + __first;
            // `< n` beside `< end` (which is at most `n`) shows the bounds prover the loads.
            while __i + 3 < __end && __i + 3 < __n {
                let $j = __i;
                let ($a, $b) = (__a0, $load);
                __a0 = $combine;
                let $j = __i + 1;
                let ($a, $b) = (__a1, $load);
                __a1 = $combine;
                let $j = __i + 2;
                let ($a, $b) = (__a2, $load);
                __a2 = $combine;
                let $j = __i + 3;
                let ($a, $b) = (__a3, $load);
                __a3 = $combine;
                __i += __step;
            }
            while __i < __end && __i < __n {
                let $j = __i;
                let ($a, $b) = (__a0, $load);
                __a0 = $combine;
                __i += 1;
            }
            let ($a, $b) = (__a0, __a1);
            let __low = $combine;
            let ($a, $b) = (__a2, __a3);
            let __high = $combine;
            let ($a, $b) = (__low, __high);
            __tile[__t] = $combine;
            // Each warp's 32 in a tree ordered by `sync_warp` alone, then thread 0 combines
            // the 8 warps' results in order: one block barrier instead of eight (a short
            // segment, 1024 elements, spent most of its time in the block-wide tree).
            sync_warp(0xffff_ffff);
            let mut __half = 16;
            while __half > 0 {
                if __lane < __half {
                    // `& 255`: the same index (`lane < half <= 16`), which the bounds
                    // prover sees below 256.
                    let ($a, $b) = (__tile[__t], __tile[(__t + __half) & 255]);
                    __tile[__t] = $combine;
                }
                sync_warp(0xffff_ffff);
                __half /= 2;
            }
            if __per_warp {
                if __lane == 0 && $r < totals.len() {
                    totals[$r] = __tile[__t];
                }
                return;
            }
            sync_threads();
            if __t == 0 && $r < totals.len() {
                let mut __acc = __tile[0];
                let mut __w = 1usize;
                while __w < 8 {
                    let ($a, $b) = (__acc, __tile[(32 * __w) & 255]);
                    __acc = $combine;
                    __w += 1;
                }
                totals[$r] = __acc;
            }
        }
    };
}
