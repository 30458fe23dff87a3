// `tma_load_2d` copies a box of a `&TensorMap<T>` parameter into a shared tile of the same
// element type and completes its bytes on `&bars[i]` of a `SharedArray::<Mbarrier, N>`;
// an mbarrier is used only through its methods.
use warpspeed::prelude::*;

#[gpu_kernel]
fn into_global(map: &TensorMap<u32>, out: &mut [u32]) {
    let bars = SharedArray::<Mbarrier, 1>::new();
    tma_load_2d(&mut out[0..64], map, 0, 0, &bars[0]);
    bars[0].wait(0);
}

#[gpu_kernel]
fn map_of_another_type(map: &TensorMap<f32>, out: &mut [u32]) {
    let bars = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<u32, 64>::new();
    tma_load_2d(&mut tile[0..64], map, 0, 0, &bars[0]);
    bars[0].wait(0);
    out[0] = tile[0];
}

#[gpu_kernel]
fn slice_as_map(src: &[u32], out: &mut [u32]) {
    let bars = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<u32, 64>::new();
    tma_load_2d(&mut tile[0..64], src, 0, 0, &bars[0]);
    bars[0].wait(0);
    out[0] = tile[0];
}

#[gpu_kernel]
fn plain_barrier(map: &TensorMap<u32>, out: &mut [u32]) {
    let flags = SharedArray::<u64, 1>::new();
    let tile = SharedArray::<u32, 64>::new();
    tma_load_2d(&mut tile[0..64], map, 0, 0, &flags[0]);
    out[0] = tile[0];
}

#[gpu_kernel]
fn mbarrier_by_value(out: &mut [u32]) {
    let bars = SharedArray::<Mbarrier, 2>::new();
    let b = bars[1];
    out[0] = 1;
}

#[gpu_kernel]
fn unknown_method(out: &mut [u32]) {
    let bars = SharedArray::<Mbarrier, 2>::new();
    bars[0].sync();
    out[0] = 1;
}

#[gpu_kernel]
fn vector_map(map: &TensorMap<f32x4>, out: &mut [u32]) {
    out[0] = 1;
}

#[gpu_device]
fn device_with_map(map: &TensorMap<u32>) -> u32 {
    1
}

fn main() {}
