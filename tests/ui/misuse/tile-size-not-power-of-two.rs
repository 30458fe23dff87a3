use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let tile = tiled_partition::<12>(this_thread_block());
    out[0] = tile.thread_rank();
}

fn main() {}
