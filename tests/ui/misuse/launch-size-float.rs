use warpspeed::prelude::*;

fn main() {
    // A grid computed as a float: sizes are integers (any Rust integer type, checked at
    // the launch), so the float must be converted first.
    let blocks = 1000.0f32 / 256.0;
    let _ = LaunchConfig::new(blocks, 256);
}
