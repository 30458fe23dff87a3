use warpspeed::prelude::*;
use warpspeed::{Device, LaunchConfig};

#[gpu_kernel]
fn k(out: &mut [i32]) {
    out[0] = 1;
}

fn main() -> Result<(), warpspeed::Error> {
    let dev = Device::new()?;
    let mut out = dev.zeros::<i32>(4)?;
    let mut other = dev.zeros::<i32>(4)?;
    k::launch(&other, LaunchConfig::new(1, 1), &mut out)?;
    other.fill(1)?;
    Ok(())
}
