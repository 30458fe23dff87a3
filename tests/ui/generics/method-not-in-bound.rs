use warpspeed::prelude::*;

// Every float has `to_bits`, but `Float` does not offer it (its result is u16, u32 or u64
// by type): rustc says so through the generic simulator body.
#[gpu_kernel]
fn bits<T: Float>(out: &mut [u64], x: &[T]) {
    let i = grid_1d();
    out[i] = x[i].to_bits() as u64;
}

// Every integer has `abs_diff`, but `Int` does not offer it (its result type differs per
// type): rustc says so through the generic simulator body.
#[gpu_kernel]
fn dist<T: Int>(out: &mut [u64], x: &[T], y: &[T]) {
    let i = grid_1d();
    out[i] = x[i].abs_diff(y[i]).to_u64();
}

fn main() {}
