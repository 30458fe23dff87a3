use warpspeed::prelude::*;

#[gpu_kernel]
fn lower<const n: usize>(out: &mut [u32]) {
}

#[gpu_kernel]
fn defaulted<const N: usize = 4>(out: &mut [u32]) {
}

#[gpu_kernel]
fn char_param<const C: char>(out: &mut [u32]) {
}

fn main() {}
