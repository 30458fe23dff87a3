use core::sync::atomic::Ordering;
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(counts: &mut [u32]) {
    counts[0].fetch_add(1, Ordering::Relaxed);
}

fn main() {}
