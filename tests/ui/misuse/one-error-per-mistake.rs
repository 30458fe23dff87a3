use warpspeed::prelude::*;

// Each mistake gives one error: what only follows from it adds none.
#[gpu_struct]
#[derive(Clone, Copy)]
struct V {
    x: f32,
}

#[gpu_kernel]
fn k(a: V, b: V, p: &Vec<f32>, o: &mut [u32], f: &mut [f32]) {
    // A struct operand: the operator's value is no `u32` that could mismatch `o[0]`.
    o[0] = a + b;
    o[1] = !a;
    // A refused local type: its initializer and its uses add nothing.
    let s: String = "text";
    let t: &u32 = &o[2];
    o[3] = *t;
    // A refused parameter type: dereferencing it adds nothing.
    f[0] = (*p)[0];
}

fn main() {}
