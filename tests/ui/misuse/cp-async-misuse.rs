// `cp_async` copies from global memory into a shared array of the kernel, one element type:
// not into global memory, not from shared memory, not between element types.
use warpspeed::prelude::*;

#[gpu_kernel]
fn into_global(src: &[u32], out: &mut [u32]) {
    cp_async(&mut out[0..4], &src[0..4]);
    cp_async_wait_all();
}

#[gpu_kernel]
fn from_shared(out: &mut [u32]) {
    let a = SharedArray::<u32, 8>::new();
    let b = SharedArray::<u32, 8>::new();
    cp_async(&mut a[0..4], &b[0..4]);
    cp_async_wait_all();
    out[0] = a[0];
}

#[gpu_kernel]
fn mixed_types(src: &[f32], out: &mut [u32]) {
    let tile = SharedArray::<u32, 8>::new();
    cp_async(&mut tile[0..4], &src[0..4]);
    cp_async_wait_all();
    out[0] = tile[0];
}

#[gpu_kernel]
fn read_only_destination(src: &[u32], out: &mut [u32]) {
    let tile = SharedArray::<u32, 8>::new();
    cp_async(&tile[0..4], &src[0..4]);
    cp_async_wait(1);
    out[0] = tile[0];
}

fn main() {}
