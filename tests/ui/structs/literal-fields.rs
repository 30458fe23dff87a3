use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
struct Params {
    dt: f32,
    n: u32,
}

#[gpu_kernel]
fn missing(out: &mut [Params]) {
    out[0] = Params { dt: 1.0 };
}

#[gpu_kernel]
fn unknown(out: &mut [Params]) {
    out[0] = Params { dt: 1.0, n: 2, m: 3 };
}

#[gpu_kernel]
fn read_unknown(ps: &[Params], out: &mut [f32]) {
    out[0] = ps[0].speed;
}

#[gpu_kernel]
fn write_through_shared(ps: &[Params]) {
    ps[0].dt = 2.0;
}

fn main() {}
