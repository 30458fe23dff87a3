// m16n8k32 takes 8-bit operands only, each into its own accumulator: i8 and u8 into i32,
// e4m3 and e5m2 into f32; A and B both integers or both fp8; no ldmatrix of 8-bit
// fragments.
use warpspeed::prelude::*;

#[gpu_kernel]
fn f16_operands(out: &mut [f32]) {
    let a = FragmentA::<f16, M16N8K32>::zeroed();
    out[0] = f32::from(a.x[0]);
}

#[gpu_kernel]
fn int_into_f32(out: &mut [f32]) {
    let mut acc = FragmentAcc::<f32, M16N8K32>::zeroed();
    let a = FragmentA::<i8, M16N8K32>::zeroed();
    let b = FragmentB::<i8, M16N8K32>::zeroed();
    acc.mma_sync(a, b);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn fp8_into_i32(out: &mut [i32]) {
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    let a = FragmentA::<e4m3, M16N8K32>::zeroed();
    let b = FragmentB::<e4m3, M16N8K32>::zeroed();
    acc.mma_sync(a, b);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn fp8_by_int(out: &mut [f32]) {
    let mut acc = FragmentAcc::<f32, M16N8K32>::zeroed();
    let a = FragmentA::<e4m3, M16N8K32>::zeroed();
    let b = FragmentB::<u8, M16N8K32>::zeroed();
    acc.mma_sync(a, b);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn k16_operands_into_k32(out: &mut [i32]) {
    let mut acc = FragmentAcc::<i32, M16N8K32>::zeroed();
    let a = FragmentA::<f16, M16N8K16>::zeroed();
    let b = FragmentB::<i8, M16N8K32>::zeroed();
    acc.mma_sync(a, b);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn i8_in_k16(out: &mut [i32]) {
    let b = FragmentB::<i8, M16N8K16>::zeroed();
    out[0] = i32::from(b.x[0]);
}

#[gpu_kernel]
fn ldmatrix_8bit(out: &mut [i32]) {
    let tile = SharedArray::<i8, 512>::new();
    let mut a = FragmentA::<i8, M16N8K32>::zeroed();
    a.ldmatrix(&tile, 0);
    out[0] = i32::from(a.x[0]);
}

fn main() {}
