//! The kernels of `sort::top_k`'s radix select, for every sort key type (each over the
//! key's ordered bits, `crate::kernels::sort`'s `ordered_*`):
//!
//! - `digit_counts_*`: counts, by the digit `(bits >> shift) & 255`, the keys whose bits
//!   agree with `prefix` under `mask` (the digits chosen so far). 256 threads a block,
//!   any grid (a grid-stride loop), 256 zeroed counts; each block counts in shared memory
//!   and adds its counts to the global ones once.
//! - `at_least_*`: keeps, in order, the keys whose bits are at least `threshold`, with
//!   their positions in `heads` (an instance of the one-pass select template,
//!   algorithms/src/template/select.rs, which says how to launch it).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use warpspeed_core::prelude::*;

/// The two kernels of one key type (`$opts`: `[unchecked]` or `[]`).
macro_rules! radix_select_kernels {
    ($counts:ident, $at_least:ident, $k:ty, $u:ty, $ordered:ident; $($opt:ident)?) => {
        /// The keys whose ordered bits agree with `prefix` under `mask`, counted by the
        /// digit `(bits >> shift) & 255` into `counts` (256, added to).
        #[gpu_kernel($($opt,)? block = (256, 1, 1))]
        pub fn $counts(
            keys: &[$k],
            prefix: $u,
            mask: $u,
            shift: u32,
            #[len(256)] counts: &[AtomicU32],
        ) {
            let bins = SharedArray::<AtomicU32, 256>::new();
            let tid = thread_idx().x as usize;
            bins[tid].store(0, Ordering::Relaxed);
            sync_threads();
            let n = keys.len();
            let stride = grid_stride_1d();
            let mut i = grid_1d();
            while i < n {
                let bits = $ordered(keys[i]);
                if bits & mask == prefix {
                    let digit = (bits >> shift) as usize & 255;
                    bins[digit].fetch_add(1, Ordering::Relaxed);
                }
                i += stride;
            }
            sync_threads();
            let c = bins[tid].load(Ordering::Relaxed);
            if c > 0 {
                counts[tid].fetch_add(c, Ordering::Relaxed);
            }
        }

        crate::__select_kernel!($at_least, $k, [x, i, v] keep $ordered(v) >= threshold,
            params [threshold: $u], items 16 tile 4096 mask 4095, blocks_per_sm [4], options [$($opt),*]);
    };
}

/// Every key type's kernels (`$opts`: `[unchecked]` or `[]`).
macro_rules! radix_select_family {
    ($($opt:ident)?) => {
        use crate::kernels::sort::{
            ordered_f32, ordered_f64, ordered_i16, ordered_i32, ordered_i64, ordered_i8,
            ordered_u16, ordered_u32, ordered_u64, ordered_u8, ordered_usize,
        };
        radix_select_kernels!(digit_counts_u8, at_least_u8, u8, u8, ordered_u8; $($opt)?);
        radix_select_kernels!(digit_counts_u16, at_least_u16, u16, u16, ordered_u16; $($opt)?);
        radix_select_kernels!(digit_counts_u32, at_least_u32, u32, u32, ordered_u32; $($opt)?);
        radix_select_kernels!(digit_counts_u64, at_least_u64, u64, u64, ordered_u64; $($opt)?);
        radix_select_kernels!(digit_counts_usize, at_least_usize, usize, u64, ordered_usize; $($opt)?);
        radix_select_kernels!(digit_counts_i8, at_least_i8, i8, u8, ordered_i8; $($opt)?);
        radix_select_kernels!(digit_counts_i16, at_least_i16, i16, u16, ordered_i16; $($opt)?);
        radix_select_kernels!(digit_counts_i32, at_least_i32, i32, u32, ordered_i32; $($opt)?);
        radix_select_kernels!(digit_counts_i64, at_least_i64, i64, u64, ordered_i64; $($opt)?);
        radix_select_kernels!(digit_counts_f32, at_least_f32, f32, u32, ordered_f32; $($opt)?);
        radix_select_kernels!(digit_counts_f64, at_least_f64, f64, u64, ordered_f64; $($opt)?);
    };
}

radix_select_family!();

/// The same kernels `#[gpu_kernel(unchecked)]`, for the bench.
pub mod unchecked {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
    use warpspeed_core::prelude::*;
    radix_select_family!(unchecked);
}
