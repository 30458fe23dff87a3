//! A binary of the package: its kernel uses the library's `pub` struct and device
//! functions (`src/bin/` is a crate of its own), and prints the first results, which
//! `tests/cross_crate.rs` checks against the host calls of the same functions.

use warpspeed::prelude::*;
use warpspeed::{Device, LaunchConfig};
use warpspeed_shared_kernels::geo::{self, Pt};
use warpspeed_shared_kernels::Lin;

#[gpu_kernel]
fn in_bin(l: Lin, p: &[Pt], out: &mut [f32], q: &mut [u32]) {
    let i = grid_1d();
    if i < p.len() {
        let (n, quadrant) = geo::norm1(p[i]);
        out[i] = warpspeed_shared_kernels::eval(l, n as f32);
        q[i] = quadrant;
    }
}

fn main() -> Result<(), warpspeed::Error> {
    let dev = Device::simulator();
    let l = Lin { a: 0.5, b: -1.0 };
    let p: Vec<Pt> = (0..8)
        .map(|i| Pt {
            x: i - 4,
            y: 3 - i * 2,
        })
        .collect();
    let dp = dev.upload(&p)?;
    let mut out = dev.upload(&vec![f32::NAN; p.len()])?;
    let mut q = dev.upload(&vec![u32::MAX; p.len()])?;
    in_bin::launch(
        &dev,
        LaunchConfig::for_num_elems(p.len() as u32),
        l,
        &dp,
        &mut out,
        &mut q,
    )?;
    for ((o, q), p) in out.download()?.iter().zip(q.download()?).zip(&p) {
        let (n, want_q) = geo::norm1(*p);
        let want = warpspeed_shared_kernels::eval(l, n as f32);
        println!("{} {} {} {}", o.to_bits(), want.to_bits(), q, want_q);
    }
    Ok(())
}
