//! Histogram kernels of seed 004, shared by the `histogram` and `sim_speed` examples, with
//! their CPU references. Two binnings: the seed's text case (letters a..z in bins of four
//! letters, 7 bins, other bytes ignored) and bytes (256 bins, one per value). The seed's
//! sequence of kernels, for each binning:
//! - (a) global atomics, block partitioning: each thread counts a contiguous section;
//! - (b) global atomics, interleaved partitioning: thread i reads bytes i, i + stride, ...
//!   (a warp reads 32 consecutive bytes: coalesced);
//! - (c) privatised: each block counts into its own bins in shared memory, then adds them to
//!   the global bins (one atomic per bin and block);
//! - (d) (c) with aggregation: a thread counts a run of identical bins in a register and
//!   does one shared atomic per run;
//! - (e) (c) reading 4 bytes per load (the bytes viewed as little-endian `u32` words).
//!
//! Each kernel exists twice: [`checked`] (the default, bounds-checked; also re-exported
//! here under the same names) and [`unchecked`] (`#[gpu_kernel(unchecked)]`, calling the
//! `#[gpu_device(unchecked)]` binnings), written once by `histogram_all!`, so the bench can
//! time what the checks cost.

#![allow(dead_code, unused_imports)] // each example that includes this file uses a part of it

use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;

/// Letters per bin in the seed's text histogram: a..z in bins of 4 letters (7 bins).
pub const LETTERS_PER_BIN: u32 = 4;
pub const LETTER_BINS: usize = 7;
/// Bins of the byte histogram.
pub const BYTE_BINS: usize = 256;

/// Variants (a), (b), (d) and (e) for one binning (`$bin`, a `#[gpu_device]` fn from a byte
/// to a bin or -1) with `$bins` bins and the kernel options `$opt`; the kernel language has
/// no generics, so a `macro_rules!` writes them once for both binnings.
macro_rules! histogram_kernels {
    (
        [$($opt:tt)*]
        $block:ident,
        $interleaved:ident,
        $aggregated:ident,
        $words:ident,
        $bin:ident,
        $bins:tt
    ) => {
        /// (a) Global atomics, block partitioning: thread t counts the contiguous section
        /// `t * section .. (t + 1) * section` (the seed's first kernel). Good for a CPU's
        /// caches; on a GPU the 32 lanes of a warp read 32 far-apart bytes per load.
        #[gpu_kernel($($opt)*)]
        pub fn $block(buffer: &[u8], histo: &[AtomicU32]) {
            let n = buffer.len();
            let threads = grid_stride_1d();
            let section = (n + threads - 1) / threads;
            let start = grid_1d() * section;
            for k in 0..section {
                if start + k < n {
                    let bin: i32 = $bin(buffer[start + k]);
                    if bin >= 0 {
                        histo[bin as usize].fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }

        /// (b) Global atomics, interleaved partitioning (grid-stride loop): in each round
        /// the grid reads one contiguous stretch of `grid_stride_1d()` bytes.
        #[gpu_kernel($($opt)*)]
        pub fn $interleaved(buffer: &[u8], histo: &[AtomicU32]) {
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < buffer.len() {
                let bin: i32 = $bin(buffer[i]);
                if bin >= 0 {
                    histo[bin as usize].fetch_add(1, Ordering::Relaxed);
                }
                i += stride;
            }
        }

        /// (d) Privatised, with aggregation: a thread adds up a run of equal bins in
        /// `accumulator` and does one shared atomic when the bin changes (the seed's last
        /// kernel). Data with long runs (an image of sky) needs far fewer atomics.
        #[gpu_kernel($($opt)*)]
        pub fn $aggregated(buffer: &[u8], histo: &[AtomicU32]) {
            let histo_s = SharedArray::<AtomicU32, $bins>::new();
            let tid = thread_idx().x as usize;
            for b in (tid..$bins).step_by(block_dim().x as usize) {
                histo_s[b].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let mut prev: i32 = -1;
            let mut accumulator = 0u32;
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < buffer.len() {
                let bin: i32 = $bin(buffer[i]);
                if bin >= 0 {
                    if bin != prev {
                        if accumulator > 0 {
                            histo_s[prev as usize].fetch_add(accumulator, Ordering::Relaxed);
                        }
                        prev = bin;
                        accumulator = 1;
                    } else {
                        accumulator += 1;
                    }
                }
                i += stride;
            }
            if accumulator > 0 {
                histo_s[prev as usize].fetch_add(accumulator, Ordering::Relaxed);
            }
            sync_threads();
            for b in (tid..$bins).step_by(block_dim().x as usize) {
                let count = histo_s[b].load(Ordering::Relaxed);
                if count > 0 {
                    histo[b].fetch_add(count, Ordering::Relaxed);
                }
            }
        }

        /// (e) Privatised, reading 4 bytes per load: `words` holds the `len` bytes as
        /// little-endian u32 (the last word padded); thread i takes words i, i + stride, ...
        #[gpu_kernel($($opt)*)]
        pub fn $words(words: &[u32], len: usize, histo: &[AtomicU32]) {
            let histo_s = SharedArray::<AtomicU32, $bins>::new();
            let tid = thread_idx().x as usize;
            for b in (tid..$bins).step_by(block_dim().x as usize) {
                histo_s[b].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < words.len() {
                let w = words[i];
                if 4 * i + 4 <= len {
                    // The four bytes, unrolled (all but the last word take this path).
                    let b0: i32 = $bin(w as u8);
                    let b1: i32 = $bin((w >> 8) as u8);
                    let b2: i32 = $bin((w >> 16) as u8);
                    let b3: i32 = $bin((w >> 24) as u8);
                    if b0 >= 0 {
                        histo_s[b0 as usize].fetch_add(1, Ordering::Relaxed);
                    }
                    if b1 >= 0 {
                        histo_s[b1 as usize].fetch_add(1, Ordering::Relaxed);
                    }
                    if b2 >= 0 {
                        histo_s[b2 as usize].fetch_add(1, Ordering::Relaxed);
                    }
                    if b3 >= 0 {
                        histo_s[b3 as usize].fetch_add(1, Ordering::Relaxed);
                    }
                } else {
                    for k in 0..len - 4 * i {
                        let bin: i32 = $bin((w >> (8 * k as u32)) as u8);
                        if bin >= 0 {
                            histo_s[bin as usize].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                i += stride;
            }
            sync_threads();
            for b in (tid..$bins).step_by(block_dim().x as usize) {
                let count = histo_s[b].load(Ordering::Relaxed);
                if count > 0 {
                    histo[b].fetch_add(count, Ordering::Relaxed);
                }
            }
        }
    };
}

/// Every histogram kernel with the kernel options `$opt` (none: checked; `unchecked`).
macro_rules! histogram_all {
    ($($opt:tt)*) => {
        /// Seed 004's privatised histogram: each block counts into its own bins in shared memory
        /// (interleaved partitioning: thread i reads bytes i, i + stride, ...), then adds them to the
        /// global bins with one atomic per bin and block.
        #[gpu_kernel($($opt)*)]
        pub fn histogram_privatized(buffer: &[u8], histo: &[AtomicU32]) {
            let histo_s = SharedArray::<AtomicU32, 7>::new();
            let tid = thread_idx().x as usize;
            for bin in (tid..7).step_by(block_dim().x as usize) {
                histo_s[bin].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < buffer.len() {
                let position = buffer[i] as i32 - 97; // 'a'
                if position >= 0 && position < 26 {
                    histo_s[(position / 4) as usize].fetch_add(1, Ordering::Relaxed);
                }
                i += stride;
            }
            sync_threads();
            for bin in (tid..7).step_by(block_dim().x as usize) {
                let count = histo_s[bin].load(Ordering::Relaxed);
                histo[bin].fetch_add(count, Ordering::Relaxed);
            }
        }

        /// The text binning: letters a..z in bins of four, -1 for any other byte.
        #[gpu_device($($opt)*)]
        pub fn letter_bin(b: u8) -> i32 {
            let position = b as i32 - 97; // 'a'
            if position >= 0 && position < 26 {
                position / 4
            } else {
                -1
            }
        }

        /// The byte binning: one bin per value.
        #[gpu_device($($opt)*)]
        pub fn byte_bin(b: u8) -> i32 {
            b as i32
        }

        /// Sets every element of `buf` to `value` (the bins are zeroed on the device before each
        /// run, so a timed loop never waits for the host).
        #[gpu_kernel($($opt)*)]
        pub fn fill_u32(buf: &mut [u32], value: u32) {
            let i = grid_1d();
            if i < buf.len() {
                buf[i] = value;
            }
        }

        histogram_kernels!(
            [$($opt)*]
            histogram_global_block_text,
            histogram_global_interleaved_text,
            histogram_aggregated_text,
            histogram_words_text,
            letter_bin,
            7
        );
        histogram_kernels!(
            [$($opt)*]
            histogram_global_block_bytes,
            histogram_global_interleaved_bytes,
            histogram_aggregated_bytes,
            histogram_words_bytes,
            byte_bin,
            256
        );

        /// (c) for bytes: seed 004's privatised kernel with 256 bins.
        #[gpu_kernel($($opt)*)]
        pub fn histogram_privatized_bytes(buffer: &[u8], histo: &[AtomicU32]) {
            let histo_s = SharedArray::<AtomicU32, 256>::new();
            let tid = thread_idx().x as usize;
            for b in (tid..256).step_by(block_dim().x as usize) {
                histo_s[b].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < buffer.len() {
                histo_s[buffer[i] as usize].fetch_add(1, Ordering::Relaxed);
                i += stride;
            }
            sync_threads();
            for b in (tid..256).step_by(block_dim().x as usize) {
                let count = histo_s[b].load(Ordering::Relaxed);
                if count > 0 {
                    histo[b].fetch_add(count, Ordering::Relaxed);
                }
            }
        }
    };
}

/// The kernels with bounds checks (the default).
pub mod checked {
    use super::*;
    histogram_all!();
}

/// The same kernels `#[gpu_kernel(unchecked)]` (and `#[gpu_device(unchecked)]`).
pub mod unchecked {
    use super::*;
    histogram_all!(unchecked);
}

pub use checked::*;

/// The CPU reference: letters a..z counted in bins of four.
pub fn cpu_letter_histogram(text: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; LETTER_BINS];
    for &b in text {
        if b.is_ascii_lowercase() {
            bins[usize::from(b - b'a') / LETTERS_PER_BIN as usize] += 1;
        }
    }
    bins
}

/// The CPU reference: one bin per byte value.
pub fn cpu_byte_histogram(data: &[u8]) -> Vec<u32> {
    let mut bins = vec![0u32; BYTE_BINS];
    for &b in data {
        bins[usize::from(b)] += 1;
    }
    bins
}

/// The bytes as little-endian u32 words, the last one padded with zeros (for (e)).
pub fn to_words(data: &[u8]) -> Vec<u32> {
    data.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}
