use warpspeed::prelude::*;

#[gpu_kernel]
fn k(out: &mut [i32], n: i32, b: u8) {
    out[0] = match n {
        0 => 1,
        _ => 2.0,
    };
    out[1] = match b {
        300 => 1,
        _ => 2,
    };
    out[2] = match b {
        5u16 => 1,
        _ => 2,
    };
    out[3] = match n {
        true => 1,
        _ => 2,
    };
    out[4] = match n {
        9..=3 => 1,
        4..4 => 2,
        _ => 3,
    };
}

fn main() {}
