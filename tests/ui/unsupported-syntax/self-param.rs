use warpspeed::prelude::*;

struct S;

impl S {
    #[gpu_device]
    fn d(&self, x: i32) -> i32 {
        x
    }
}

fn main() {}
