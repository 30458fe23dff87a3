use warpspeed::prelude::*;

mod helpers {
    use warpspeed::prelude::*;

    #[gpu_device]
    pub fn divmod(a: i32, b: i32) -> (i32, i32) {
        (a / b, a % b)
    }
}

// `divmod` is a #[gpu_device] of `helpers`, not imported here.
#[gpu_kernel]
fn k(out: &mut [i32]) {
    let (q, r) = divmod(7, 2);
    out[0] = q + r;
}

fn main() {}
