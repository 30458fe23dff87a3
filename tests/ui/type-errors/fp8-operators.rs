use warpspeed::prelude::*;

#[gpu_kernel]
fn ops(a: &[e4m3], b: &[e5m2], out: &mut [e4m3], flags: &mut [u32]) {
    let i = grid_1d();
    out[i] = a[i] + a[i];
    if b[i] < b[i] {
        flags[i] = 1;
    }
    out[i] = -a[i];
    let mut x = a[i];
    x *= a[i];
    out[i] = x;
    gpu_print!("{}", b[i]);
}

fn main() {}
