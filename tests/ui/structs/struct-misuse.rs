use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct V {
    x: f32,
}

#[gpu_kernel]
fn k(a: V, b: V, o: &mut [u32]) {
    let c = a + b;
    let same = a == b;
    let n = a as u32;
    let w = 1u32 as V;
    gpu_print!("{}", a);
    let m = a.min(b);
    let s = shfl_sync(0xffffffff, a, 0);
    let l: V = 1;
    o[0] = -a;
}

fn main() {}
