use warpspeed::prelude::*;
use warpspeed::TensorMap;
#[gpu_kernel]
fn box_to_global_bf16(map: &TensorMap<bf16>, out: &mut [bf16], row: i32, col: i32) {
    let bar = SharedArray::<Mbarrier, 1>::new();
    let tile = SharedArray::<bf16, 2048>::new();
    let t = thread_idx().x as usize;
    let n = out.len();
    if t == 0 {
        bar[0].init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        bar[0].arrive_expect_tx((n * 2) as u32);
        tma_load_2d(&mut tile[0..n], map, row, col, &bar[0]);
    }
    bar[0].wait(0);
    let mut i = t;
    while i < n {
        out[i] = tile[i];
        i += block_dim().x as usize;
    }
}
fn main() {
    let src = box_to_global_bf16::KERNEL.source.as_str();
    std::fs::write("/tmp/tma_dbg.cu", src).unwrap();
    let ptx = warpspeed::compile::compile_ptx(src, (9, 0), box_to_global_bf16::KERNEL.options).unwrap();
    std::fs::write("/tmp/tma_dbg.ptx", ptx).unwrap();
}
