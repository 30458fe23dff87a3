// tf32 `wgmma` (`FragmentAcc<f32, M64N{N}K8>`, f32 tiles): tiles of a 16-bit type into a K8
// accumulator, a constant `k` past 3, an f16 K8 accumulator. Each mistake is refused at its
// own tokens. (f32 tiles into a K16 accumulator: wgmma-misuse.rs `f32_tile`.)
use warpspeed::prelude::*;

#[gpu_kernel]
fn bf16_tiles_into_k8(out: &mut [f32]) {
    let sa = SharedArray::<bf16, 4096>::new();
    let mut acc = FragmentAcc::<f32, M64N64K8>::zeroed();
    acc.wgmma(&sa[0..2048], &sa[0..2048], 0);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn k_past_three(out: &mut [f32]) {
    let sa = SharedArray::<f32, 2048>::new();
    let mut acc = FragmentAcc::<f32, M64N64K8>::zeroed();
    acc.wgmma(&sa[0..2048], &sa[0..2048], 4);
    out[0] = acc.x[0];
}

#[gpu_kernel]
fn f16_accumulator(out: &mut [f32]) {
    let acc = FragmentAcc::<f16, M64N64K8>::zeroed();
    out[0] = 0.0;
}

fn main() {}
