use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(lock: &[AtomicU32]) {
    let r = lock[0].compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed);
}

fn main() {}
