use core::sync::atomic::{AtomicU32, Ordering};
use warpspeed::prelude::*;

#[gpu_kernel]
fn k(flags: &[AtomicU32], out: &mut [u32]) {
    out[0] = flags[0].load(Ordering::Release);
    flags[1].store(1, Ordering::Acquire);
}

fn main() {}
