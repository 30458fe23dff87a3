use warpspeed::prelude::*;

#[derive(Clone, Copy)]
struct Plain {
    dt: f32,
}

// A plain struct as a local's type and as a #[gpu_struct]'s field: one error each.
#[gpu_kernel]
fn k(out: &mut [f32]) {
    let p: Plain = Plain { dt: 1.0 };
    out[0] = p.dt;
}

#[gpu_struct]
#[derive(Clone, Copy)]
struct Outer {
    inner: Plain,
}

fn main() {}
