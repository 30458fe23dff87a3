//! Swizzled shared-memory tiles (docs/tensor-cores.md, "Swizzled tiles"): where element
//! `i` of a tile lives when its 16-byte chunks are permuted as TMA's swizzles permute them.
//! A tile of 128-byte rows read by `ldmatrix` (8 rows, the same 16 bytes of each) hits one
//! group of 4 banks 8 times; swizzled, the 8 rows' chunks fall in 8 different groups. Writes
//! (`cp_async`, stores) and reads (`ldmatrix`, `x[i]`) go through the same function, and a
//! tile that `tma_load_2d` wrote with `Swizzle::B128` is read with [`swizzle_128b`].
//!
//! Unlike the rest of this module these are plain functions: the host may call them too,
//! to lay a tile out (they are [`swizzle_index`](crate::swizzle::swizzle_index)).

use crate::swizzle::{swizzle_index, Swizzle};

/// The index of element `i` of a 128B-swizzled tile of `size`-byte elements: within each
/// 128-byte row the 16-byte chunks are XORed with the row's index among 8 (byte offset bits
/// 4..7 ^= bits 7..10). `size` is an integer literal 1, 2, 4, 8 or 16 (2 for `bf16`/`f16`,
/// 4 for `f32`); the tile starts at a multiple of 1024 bytes of its shared array (a
/// `SharedArray` starts at one). An element stays in its 128-byte row, and a chunk-aligned
/// run of `16 / size` elements stays whole, so `ldmatrix`'s row address of 8 `bf16`s is
/// `swizzle_128b(r * 64 + c, 2)` for `c` a multiple of 8.
///
/// ```
/// # extern crate warpspeed_core as warpspeed;
/// # use warpspeed::prelude::*;
/// #[gpu_kernel]
/// fn scatter(out: &mut [u32]) {
///     let mut tile = SharedArray::<u32, 256>::new();
///     let t = thread_idx().x as usize; // 256 threads
///     tile[swizzle_128b(t, 4)] = t as u32;
///     sync_threads();
///     out[t] = tile[t]; // the element whose swizzled home is t
/// }
/// ```
pub fn swizzle_128b(i: usize, size: usize) -> usize {
    swizzle_index(Swizzle::B128, i, size)
}

/// [`swizzle_128b`] for the 64-byte swizzle: the 4 chunks of each 64-byte row XORed with
/// the row's index among 4 pairs (bits 4..6 ^= bits 7..9).
pub fn swizzle_64b(i: usize, size: usize) -> usize {
    swizzle_index(Swizzle::B64, i, size)
}

/// [`swizzle_128b`] for the 32-byte swizzle: the 2 chunks of each 32-byte row swapped on
/// every other row pair (bit 4 ^= bit 7).
pub fn swizzle_32b(i: usize, size: usize) -> usize {
    swizzle_index(Swizzle::B32, i, size)
}
