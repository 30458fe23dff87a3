use warpspeed::prelude::*;

// `match` takes integer and bool patterns and constants; tuples, floats and paths that are
// no constant are refused; a constant pattern covers nothing for sure.
const LIMIT: i32 = 4;

#[gpu_kernel]
fn k(out: &mut [i32], n: i32, x: f32) {
    let (a, b) = grid_2d();
    out[0] = match (a, b) {
        (0, 0) => 1,
        _ => 2,
    };
    out[1] = match n {
        0..=core::i32::lower => 1,
        _ => 2,
    };
    out[2] = match n {
        Big => 1,
    };
    out[3] = match n {
        0..=core::i32::MAX => 1,
        1.5 => 3,
        _ => 2,
    };
    out[4] = match x {
        _ => 1,
    };
}

fn main() {}
