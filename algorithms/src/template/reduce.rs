//! The block-reduce kernel, written once as a template for every reduction: the library's
//! generic `sum`/`min`/`max` kernels, its `min_max`/`arg_min`/`arg_max` kernels, and the
//! kernels [`operator!`](crate::operator) writes into a user's crate for a user's
//! operator. A `macro_rules!` (exported, hidden) because the kernel must be expanded where
//! the operator's `#[gpu_device]` function is in scope, which for a user's operator is the
//! user's crate.

/// `__block_reduce_kernel!(name<T: Bound>, In => Acc, [x, n, j] load L, |a, b| C, init I,
/// empty E, options [unchecked])` (or `options []`): one partial a block, `partial[b]` = the block's share of `x`
/// mapped by `L` (which reads `x[j]`) and combined by `C`.
///
/// - `I` starts each thread's four accumulators: the operator's identity, or, for an
///   idempotent operator without one (min, max, arg-min), `L` at `j = 0`, which combining
///   any number of times leaves unchanged.
/// - `E` says when the kernel does nothing (an empty `x` where `I` reads `x[0]`; the host
///   refuses that input first).
///
/// The order of the combining steps is a function of the length and the grid alone (the
/// module docs of `reduce` spell it out), so a float reduction is the same run to run and on
/// both backends.
#[doc(hidden)]
#[macro_export]
macro_rules! __block_reduce_kernel {
    (
        $name:ident $(<$tp:ident: $bound:ident>)?, $in:ty => $acc:ty,
        [$x:ident, $n:ident, $j:ident] load $load:expr,
        |$a:ident, $b:ident| $combine:expr, init $init:expr, empty $empty:expr,
        options [$($opt:ident),*]
    ) => {
        /// One partial a block: each thread combines a grid-stride share of `x`, then the
        /// block combines its threads' results in a shared-memory tree; thread 0 writes it.
        #[gpu_kernel(block = (256, 1, 1) $(, $opt)*)]
        pub fn $name $(<$tp: $bound>)? ($x: &[$in], partial: &mut [$acc]) {
            let __tile = SharedArray::<$acc, 256>::new();
            let __t = thread_idx().x as usize;
            let $n = $x.len();
            if $empty {
                return;
            }
            // Four elements a step, into four accumulators, so that four loads a thread
            // are in flight (one chain of dependent steps left the memory system a quarter
            // idle: 74% of copy bandwidth on an H100). The four are consecutive, so that
            // `j + 3 < n` shows the bounds prover all four in bounds; the thread whose
            // step reaches past the end takes the last (up to 3) elements one at a time.
            let __init: $acc = $init;
            let (mut __a0, mut __a1, mut __a2, mut __a3) = (__init, __init, __init, __init);
            let mut __i = 4 * grid_1d();
            let __step = 4 * grid_stride_1d();
            while __i + 3 < $n {
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
            while __i < $n {
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
            sync_threads();
            let mut __half = 128;
            while __half > 0 {
                if __t < __half {
                    // `& 255`: the same index (`t < half <= 128`), which the bounds
                    // prover sees below 256.
                    let ($a, $b) = (__tile[__t], __tile[(__t + __half) & 255]);
                    __tile[__t] = $combine;
                }
                sync_threads();
                __half /= 2;
            }
            let __blk = block_idx().x as usize;
            if __t == 0 && __blk < partial.len() {
                partial[__blk] = __tile[0];
            }
        }
    };
}
