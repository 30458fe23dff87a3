use warpspeed::prelude::*;

#[gpu_device]
fn both(a: &mut [u32], b: &mut [u32]) {
    a[0] = b[0];
}

#[gpu_device]
fn copy(from: &[u32], to: &mut [u32]) {
    to[0] = from[0];
}

#[gpu_kernel]
fn k(out: &mut [u32]) {
    both(&mut out[..4], &mut out[2..]);
    let head = &out[..2];
    copy(head, &mut out[..]);
    // The halves of one split are disjoint; the whole is not disjoint from either.
    let (lo, hi) = out.split_at_mut(2);
    both(lo, hi);
    both(lo, &mut out[..]);
}

fn main() {}
