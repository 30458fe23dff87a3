//! The kernels of tests/fault_*.rs: `wild`, an `unchecked` kernel whose thread 0 writes at
//! index `far` (2^40 faults on a GPU), and `fill`, which writes `value` everywhere.

use warpspeed::prelude::*;

/// Thread 0 writes `out[far]`, unchecked.
#[gpu_kernel(unchecked)]
pub fn wild(out: &mut [u32], far: usize) {
    if grid_1d() == 0 {
        out[far] = 1;
    }
}

/// Every element of `out` becomes `value`.
#[gpu_kernel]
pub fn fill(out: &mut [u32], value: u32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = value;
    }
}
