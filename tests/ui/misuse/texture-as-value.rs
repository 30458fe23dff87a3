// A texture is only the receiver of its methods: not an argument of a device function,
// not an operand, not printed.
use warpspeed::prelude::*;

#[gpu_device]
fn first(s: &[i32]) -> i32 {
    s[0]
}

#[gpu_kernel]
fn k(out: &mut [i32], tex: &Texture2D<i32>) {
    out[0] = first(tex);
    out[1] = tex + 1;
    gpu_print!("{}", tex);
    if tex == tex {
        out[2] = 1;
    }
}

fn main() {}
