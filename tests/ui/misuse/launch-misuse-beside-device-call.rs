use warpspeed::prelude::*;

#[gpu_device]
fn twice(x: f32) -> f32 {
    x * 2.0
}

// The kernel is expanded again inside `twice`'s hand-over; rustc's notes about `launch`
// point at the kernel, not at `twice`'s attribute.
#[gpu_kernel]
fn scale(y: &mut [f32], a: f32) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = twice(a) * y[i];
    }
}

fn main() {
    let dev = Device::simulator();
    let mut y = dev.zeros::<f32>(4).unwrap();
    let _ = scale::launch(&dev, LaunchConfig::new(1, 4), &mut y, 2u32);
    let mut z = dev.zeros::<u32>(4).unwrap();
    let _ = scale::launch(&dev, LaunchConfig::new(1, 4), &mut z, 2.0);
}
