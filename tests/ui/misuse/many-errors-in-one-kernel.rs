use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], a: &[i32], b: i64) {
    let i = grid_1d();
    let s = a[i] + b;
    let f = |x: i32| x;
    let y: u8 = 300;
    out[i] = undefined_var;
    a[i] = 1;
    let z = match s { _ => 0 };
}

fn main() {}
