use warpspeed::prelude::*;

#[gpu_kernel]
fn k(counts: &mut [std::sync::atomic::AtomicU32]) {
    counts[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

fn main() {}
