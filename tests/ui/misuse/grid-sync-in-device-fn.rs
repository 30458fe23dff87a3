use warpspeed::prelude::*;

#[gpu_device]
fn wait_for_everyone() {
    this_grid().sync();
}

fn main() {}
