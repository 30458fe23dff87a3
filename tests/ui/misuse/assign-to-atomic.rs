use core::sync::atomic::AtomicU32;
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(counts: &[AtomicU32]) {
    counts[0] = 1;
}

fn main() {}
