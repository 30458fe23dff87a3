use warpspeed::prelude::*;

// The macro takes a constant's type from its uses; rustc checks it against the item.
const M: i32 = 5;
const L: u32 = 4;
const NAME: &str = "x";
const SCALE: f64 = 0.5;

#[gpu_kernel]
fn k(out: &mut [u32], f: &mut [f32]) {
    let x: u32 = M;
    let a = [0u32; L];
    let n: u32 = NAME;
    f[0] = SCALE * 2.0;
    out[0] = x + a[0] + n;
}

fn main() {}
