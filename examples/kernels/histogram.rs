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
//! - (e) (c) reading 4 bytes per load (the bytes viewed as little-endian `u32` words);
//! - (f) 256 bins only: 32 copies of the bins per block, one per lane (a warp's atomics hit
//!   32 different banks whatever the bytes), 4 independent words per thread and round, one
//!   atomic for 16 equal bytes; its own grid, [`lanes_config`] (docs/histogram.md).
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
/// Threads per block of (f) `histogram_lanes_bytes`: its 32 KiB of shared bins serve 32
/// warps.
pub const LANES_BLOCK: u32 = 1024;
/// Blocks of (f) per multiprocessor: 2 x 1024 threads (every thread an SM holds, with 16
/// bytes each: 32 KiB of loads in flight per SM) and 64 KiB of shared memory. With up to
/// 32 registers per thread the grid is one wave; with up to 64, two equal waves, never a
/// third of one.
pub const LANES_BLOCKS_PER_SM: u32 = 2;

/// The launch configuration of (f): [`LANES_BLOCKS_PER_SM`] blocks of [`LANES_BLOCK`]
/// threads per multiprocessor.
pub fn lanes_config(dev: &warpspeed::Device) -> warpspeed::LaunchConfig {
    let blocks = LANES_BLOCKS_PER_SM * dev.limits().multiprocessor_count;
    warpspeed::LaunchConfig::new(blocks.max(1), LANES_BLOCK)
}

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
        ///
        /// The run's bin is kept as a `u8` (every binning here has at most 256 bins), so
        /// `histo_s[prev as usize]` is provably below 256 and the byte kernel keeps no
        /// check; it starts at bin 0 with an empty run, which counts what the seed's
        /// `prev = -1` counts (an empty run is never added).
        #[gpu_kernel($($opt)*)]
        pub fn $aggregated(buffer: &[u8], histo: &[AtomicU32]) {
            let histo_s = SharedArray::<AtomicU32, $bins>::new();
            let tid = thread_idx().x as usize;
            for b in (tid..$bins).step_by(block_dim().x as usize) {
                histo_s[b].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let mut prev = 0u8;
            let mut accumulator = 0u32;
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < buffer.len() {
                let bin: i32 = $bin(buffer[i]);
                if bin >= 0 {
                    if bin != prev as i32 {
                        if accumulator > 0 {
                            histo_s[prev as usize].fetch_add(accumulator, Ordering::Relaxed);
                        }
                        prev = bin as u8;
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
        /// of the `len / 4` full words, and the first thread the 0 to 3 bytes of the last,
        /// partial word (a tail test inside the loop cost the unchecked kernel 5 registers
        /// more, and so 2 of its 8 blocks per multiprocessor: a second wave).
        #[gpu_kernel($($opt)*)]
        pub fn $words(words: &[u32], len: usize, histo: &[AtomicU32]) {
            let histo_s = SharedArray::<AtomicU32, $bins>::new();
            let tid = thread_idx().x as usize;
            for b in (tid..$bins).step_by(block_dim().x as usize) {
                histo_s[b].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let full = (len / 4).min(words.len());
            let mut i = grid_1d();
            let stride = grid_stride_1d();
            while i < full {
                let w = words[i];
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
                i += stride;
            }
            if grid_1d() == 0 && full < words.len() {
                let w = words[full];
                for k in 0..len % 4 {
                    let bin: i32 = $bin((w >> (8 * k as u32)) as u8);
                    if bin >= 0 {
                        histo_s[bin as usize].fetch_add(1, Ordering::Relaxed);
                    }
                }
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

        /// (f) Per-lane columns, 16 bytes in flight per thread: each block keeps 32 copies
        /// of the 256 bins in shared memory, one per lane of a warp, bin `b` of lane `l` at
        /// `cols[b * 32 + l]` (in bank `l`), so the 32 atomics of a warp instruction always
        /// go to 32 different banks, whatever the bytes. Each round a thread loads 4
        /// independent words (words `i`, `i + stride`, `i + 2 * stride`, `i + 3 * stride`:
        /// each load of a warp reads 128 consecutive bytes) before it counts any, and 16
        /// bytes that are all one value count with one atomic of 16. Launch it with
        /// [`lanes_config`]: [`LANES_BLOCKS_PER_SM`] blocks of [`LANES_BLOCK`] threads per
        /// multiprocessor. docs/histogram.md says why it is fast on any data.
        #[gpu_kernel($($opt)*)]
        pub fn histogram_lanes_bytes(words: &[u32], len: usize, #[len(256)] histo: &[AtomicU32]) {
            let cols = SharedArray::<AtomicU32, 8192>::new();
            let tid = thread_idx().x as usize;
            let lane = tid & 31;
            for k in (tid..8192).step_by(block_dim().x as usize) {
                cols[k].store(0, Ordering::Relaxed);
            }
            sync_threads();
            let full = (len / 4).min(words.len());
            // The grid's threads, as a product of index intrinsics so that the prover
            // knows `3 * stride` cannot wrap (grid_stride_1d() is the same value).
            let stride = grid_dim().x as usize * block_dim().x as usize;
            let mut i = grid_1d();
            if 3 * stride < full {
                // While i < limit, the 4 words i, ..., i + 3 * stride are full words.
                let limit = full - 3 * stride;
                while i < limit {
                    let w = [
                        words[i],
                        words[i + stride],
                        words[i + 2 * stride],
                        words[i + 3 * stride],
                    ];
                    // Zero when the 16 bytes are all the byte w[0] & 255.
                    let mut diff = w[0] ^ (w[0] & 255) * 0x0101_0101;
                    #[unroll]
                    for j in 1..4 {
                        diff |= w[j] ^ w[0];
                    }
                    if diff == 0 {
                        cols[(w[0] & 255) as usize * 32 + lane].fetch_add(16, Ordering::Relaxed);
                    } else {
                        #[unroll]
                        for j in 0..4 {
                            #[unroll]
                            for k in 0..4 {
                                let bin = (w[j] >> (8 * k)) & 255;
                                cols[bin as usize * 32 + lane].fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                    i += 4 * stride;
                }
            }
            while i < full {
                let w = words[i];
                #[unroll]
                for k in 0..4 {
                    let bin = (w >> (8 * k)) & 255;
                    cols[bin as usize * 32 + lane].fetch_add(1, Ordering::Relaxed);
                }
                i += stride;
            }
            // The 0 to 3 bytes of a last, partial word.
            if grid_1d() == 0 && full < words.len() {
                let w = words[full];
                for k in 0..len % 4 {
                    let bin = (w >> (8 * k as u32)) & 255;
                    cols[bin as usize * 32 + lane].fetch_add(1, Ordering::Relaxed);
                }
            }
            sync_threads();
            // Bin b sums its 32 columns, starting at column b % 32 so that the 32 lanes
            // of a warp read 32 different banks.
            for b in (tid..256).step_by(block_dim().x as usize) {
                let mut count = 0u32;
                for l in 0..32 {
                    count += cols[b * 32 + ((b + l) & 31)].load(Ordering::Relaxed);
                }
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

/// The same kernels `#[gpu_kernel(unchecked)]` (and `#[gpu_device(unchecked)]`). Not
/// `use super::*`: that would import `checked`'s `letter_bin` (re-exported below) beside
/// this module's own, which rustc calls ambiguous for the macro a kernel asks for a device
/// function's signature (docs/language.md, "Across modules and crates").
pub mod unchecked {
    use core::sync::atomic::{AtomicU32, Ordering};
    use warpspeed::prelude::*;
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
