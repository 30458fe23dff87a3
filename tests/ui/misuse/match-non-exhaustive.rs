use warpspeed::prelude::*;

// Exhaustiveness as rustc decides it; an arm with a guard covers nothing for sure.
#[gpu_kernel]
fn k(out: &mut [i32], n: i32, b: u8, f: bool, z: usize, s: isize) {
    out[0] = match n {
        1..=10 => 1,
    };
    out[1] = match b {
        0..5 => 1,
        6..=u8::MAX => 2,
    };
    out[2] = match f {
        true => 1,
    };
    // usize has no fixed maximum here: `0..=usize::MAX` leaves `usize::MAX..` out.
    out[3] = match z {
        0..=usize::MAX => 1,
    };
    out[4] = match s {
        0 => 1,
        x if x > 0 => 2,
        ..0 => 3,
    };
    out[5] = match n {
        0 => 1,
        2 => 2,
        4 => 3,
        6 => 4,
        8.. => 5,
    };
}

fn main() {}
