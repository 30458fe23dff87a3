// `stmatrix` writes the shared array: it takes `&mut tile`, not `&tile`.
use warpspeed::prelude::*;

#[gpu_kernel]
fn read_only_borrow(out: &mut [f16]) {
    let tile = SharedArray::<f16, 256>::new();
    let a = FragmentA::<f16, M16N8K16>::zeroed();
    a.stmatrix(&tile, 0);
    out[0] = tile[0];
}

fn main() {}
