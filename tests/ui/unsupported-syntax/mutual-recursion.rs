use warpspeed::prelude::*;

// `even` and `odd` call each other; `a`, `b` and `c` make a cycle of three. The macro of
// one function cannot see the others: rustc walks their C dependencies at compile time.
#[gpu_device]
fn even(n: u32) -> bool {
    if n == 0 {
        return true;
    }
    let r: bool = odd(n - 1);
    r
}

#[gpu_device]
fn odd(n: u32) -> bool {
    if n == 0 {
        return false;
    }
    let r: bool = even(n - 1);
    r
}

#[gpu_device]
fn a(x: u32) -> u32 {
    let y: u32 = b(x);
    y + 1
}

#[gpu_device]
fn b(x: u32) -> u32 {
    let y: u32 = c(x);
    y * 2
}

#[gpu_device]
fn c(x: u32) -> u32 {
    if x > 10 {
        return x;
    }
    let y: u32 = a(x + 1);
    y
}

#[gpu_kernel]
fn k(out: &mut [u32]) {
    let e: bool = even(7);
    out[0] = a(1) + e as u32;
}

fn main() {}
