use warpspeed::prelude::*;

// The intrinsics take their types from their arguments: a turbofish there is refused
// (only `dynamic_shared::<T>()`, `tiled_partition::<N>()` and device functions take one).
#[gpu_kernel]
fn k(out: &mut [u32]) {
    let v = shfl_sync::<u32>(0xffff_ffff, 1u32, 0);
    out[grid_1d::<4>()] = v;
}

fn main() {}
