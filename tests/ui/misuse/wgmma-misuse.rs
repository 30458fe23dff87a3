// `acc.wgmma(&a_tile, &b_tile, k)`: the receiver is a warpgroup accumulator
// (`FragmentAcc<f32, M64N{N}K16>`), the tiles slices of shared memory of one 16-bit float
// type (f32 ones go to K8), a constant `k` is in 0..4. Each mistake is refused at its tokens.
use warpspeed::prelude::*;

#[gpu_kernel]
fn mma_accumulator(out: &mut [f32]) {
    let sa = SharedArray::<bf16, 4096>::new();
    let mut acc = FragmentAcc::<f32, M16N8K16>::zeroed();
    acc.wgmma(&sa[0..4096], &sa[0..4096], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn global_tile(out: &mut [f32], a: &[bf16]) {
    let sb = SharedArray::<bf16, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    acc.wgmma(&a[0..4096], &sb[0..4096], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn f32_tile(out: &mut [f32]) {
    let sa = SharedArray::<f32, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    acc.wgmma(&sa[0..4096], &sa[0..4096], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn mixed_types(out: &mut [f32]) {
    let sa = SharedArray::<bf16, 4096>::new();
    let sb = SharedArray::<f16, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    acc.wgmma(&sa[0..4096], &sb[0..4096], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn k_past_three(out: &mut [f32]) {
    let sa = SharedArray::<bf16, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    acc.wgmma(&sa[0..4096], &sa[0..4096], 4);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn mma_sync_on_wgmma(out: &mut [f32]) {
    let mut acc = FragmentAcc::<f32, M64N64K16>::zeroed();
    let a = FragmentA::<f16, M16N8K16>::zeroed();
    let b = FragmentB::<f16, M16N8K16>::zeroed();
    acc.mma_sync(a, b);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn wgmma_operand_fragment(out: &mut [f32]) {
    let b = FragmentB::<bf16, M64N64K16>::zeroed();
    out[0] = 0.0;
}

#[gpu_kernel]
fn f16_accumulator(out: &mut [f32]) {
    let acc = FragmentAcc::<f16, M64N64K16>::zeroed();
    out[0] = 0.0;
}

#[gpu_kernel]
fn no_such_shape(out: &mut [f32]) {
    let acc = FragmentAcc::<f32, M64N12K16>::zeroed();
    out[0] = 0.0;
}

fn main() {}
