use warpspeed::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy, Default)]
struct Particle {
    x: f32,
    v: f32,
}

// The curand habit, a state updated through `&mut`: a device function takes the struct by
// value and returns the new one instead.
#[gpu_device]
fn advance(p: &mut Particle, dt: f32) {
    p.x += p.v * dt;
}

fn main() {}
