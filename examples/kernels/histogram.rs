//! Histogram kernels of seed 004, shared by the `histogram` and `sim_speed` examples, with
//! their CPU reference.

#![allow(dead_code)]

use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;

/// Letters per bin in the seed's text histogram: a..z in bins of 4 letters (7 bins).
pub const LETTERS_PER_BIN: u32 = 4;
pub const LETTER_BINS: usize = 7;

/// Seed 004's privatised histogram: each block counts into its own bins in shared memory
/// (interleaved partitioning: thread i reads bytes i, i + stride, ...), then adds them to the
/// global bins with one atomic per bin and block.
#[gpu_kernel]
pub fn histogram_privatized(buffer: &[u8], histo: &[AtomicU32]) {
    let histo_s = SharedArray::<AtomicU32, 7>::new();
    let tid = thread_idx().x as usize;
    let mut bin = tid;
    while bin < 7 {
        histo_s[bin].store(0, Ordering::Relaxed);
        bin += block_dim().x as usize;
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
    let mut bin = tid;
    while bin < 7 {
        let count = histo_s[bin].load(Ordering::Relaxed);
        histo[bin].fetch_add(count, Ordering::Relaxed);
        bin += block_dim().x as usize;
    }
}

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
