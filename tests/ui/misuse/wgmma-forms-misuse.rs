// `acc.wgmma(a, &b_tile, k)` with A in registers, `acc.wgmma_trans_b(a, &b_tile, k)` (B
// MN-major) and `a.load_acc(acc, j)`: each mistake is refused at its tokens.
use warpspeed::prelude::*;

#[gpu_kernel]
fn trans_b_n_not_a_multiple_of_64(out: &mut [f32]) {
    let sa = SharedArray::<bf16, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N32K16>::zeroed();
    acc.wgmma_trans_b(&sa[0..4096], &sa[0..2048], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn trans_b_tf32(out: &mut [f32]) {
    let sa = SharedArray::<f32, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N64K8>::zeroed();
    acc.wgmma_trans_b(&sa[0..2048], &sa[0..2048], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn register_a_of_another_shape(out: &mut [f32]) {
    let sb = SharedArray::<bf16, 8192>::new();
    let a = FragmentA::<bf16, M64N64K16>::zeroed();
    let mut acc = FragmentAcc::<f32, M64N128K16>::zeroed();
    acc.wgmma(a, &sb[0..8192], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn register_a_of_another_type(out: &mut [f32]) {
    let sb = SharedArray::<bf16, 4096>::new();
    let a = FragmentA::<f16, M64N64K16>::zeroed();
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    acc.wgmma(a, &sb[0..4096], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn load_acc_slab_past_the_end(out: &mut [f32]) {
    let acc = FragmentAcc::<f32, M64N32K16>::zeroed();
    let mut a = FragmentA::<bf16, M64N32K16>::zeroed();
    a.load_acc(acc, 2);
    out[0] = a.x[0].to_f32();
}

#[gpu_kernel]
fn load_acc_of_an_mma_sync_accumulator(out: &mut [f32]) {
    let acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    let mut a = FragmentA::<bf16, M64N32K16>::zeroed();
    a.load_acc(acc, 0);
    out[0] = a.x[0].to_f32();
}

#[gpu_kernel]
fn load_acc_into_an_mma_sync_fragment(out: &mut [f32]) {
    let acc = FragmentAcc::<f32, M64N32K16>::zeroed();
    let mut a = FragmentA::<bf16, M16N8K16>::zeroed();
    a.load_acc(acc, 0);
    out[0] = a.x[0].to_f32();
}

#[gpu_kernel]
fn tf32_register_a(out: &mut [f32]) {
    let a = FragmentA::<f32, M64N64K8>::zeroed();
    out[0] = a.x[0];
}

fn main() {}
