//! A driver fault (an illegal address in `unchecked` code) comes back as
//! `Error::KernelFault` naming the kernel and its launch configuration, and says the
//! context is lost and how to recover; every later call on the device is
//! `Error::ContextLost` at once. (The fault loses this process's GPU context, so this file
//! holds one test.) On the simulator the same kernel is an out-of-bounds report: the
//! simulator checks even `unchecked` kernels.

mod common;

use warpspeed::prelude::*;
use warpspeed::{Backend, Error, LaunchConfig};

#[gpu_kernel(unchecked)]
fn wild_write(out: &mut [u32], far: usize) {
    if grid_1d() == 0 {
        out[far] = 1;
    }
}

#[test]
fn a_fault_names_its_kernel_and_later_calls_say_the_context_is_lost() {
    let far = 1usize << 40;
    for dev in common::devices("kernel_fault") {
        let mut out = dev.zeros::<u32>(16).unwrap();
        let cfg = LaunchConfig::new(1, 32);
        let result = wild_write::launch(&dev, cfg, &mut out, far).and_then(|()| dev.synchronize());
        match dev.backend() {
            Backend::Simulator => {
                assert!(
                    matches!(result, Err(Error::OutOfBounds { .. })),
                    "{result:?}"
                )
            }
            Backend::Cuda => {
                let later = vec![
                    dev.zeros::<u32>(4).map(|_| ()),
                    out.download().map(|_| ()),
                    wild_write::launch(&dev, cfg, &mut out, 0),
                    dev.synchronize(),
                ];
                common::assert_context_lost(result.unwrap_err(), "wild_write", cfg, later);
            }
        }
    }
}
