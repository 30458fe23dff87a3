//! A fault seen by the next launch, not by a synchronisation: an `unchecked` kernel `wild`
//! writes at index 2^40 and `fill` is launched at once, with nothing synchronised in
//! between. Whichever call sees the fault first (the module load or launch of `fill`, the
//! next launch, the download) says `Error::KernelFault` naming `wild` and its launch
//! configuration, never `fill`; every later call says `Error::ContextLost`. (This used to
//! be "CUDA driver error while loading the CUBIN (kernel `fill`)".) The fault loses this
//! process's GPU context, so this file holds one test; docs/runtime.md says how a fault is
//! named. On the simulator the same sequence is an out-of-bounds report for `wild` (the
//! simulator checks even `unchecked` kernels), after which the device goes on working.

mod common;
#[path = "common/fault_kernels.rs"]
mod fault_kernels;

use fault_kernels::{fill, wild};
use warpspeed::{Backend, Error, LaunchConfig};

#[test]
fn a_fault_seen_by_the_next_launch_names_the_kernel_that_faulted() {
    let far = 1usize << 40;
    let wild_cfg = LaunchConfig::new(1, 32);
    let fill_cfg = LaunchConfig::new(2, 64);
    for dev in common::devices("fault_unsynchronised") {
        let mut out = dev.upload(&[0xDEAD_BEEFu32; 100]).unwrap();
        let mut other = dev.zeros::<u32>(100).unwrap();
        let first = wild::launch(&dev, wild_cfg, &mut out, far);
        match dev.backend() {
            Backend::Simulator => {
                assert!(matches!(first, Err(Error::OutOfBounds { .. })), "{first:?}");
                // The failed launch stopped before touching memory, and the device goes on.
                fill::launch(&dev, fill_cfg, &mut other, 7).unwrap();
                assert_eq!(other.download().unwrap(), vec![7; 100]);
                assert_eq!(out.download().unwrap(), vec![0xDEAD_BEEF; 100]);
                dev.synchronize().unwrap();
            }
            Backend::Cuda => {
                first.expect("the launch of `wild` is queued; its fault comes later");
                let calls = vec![
                    (
                        "launching fill",
                        fill::launch(&dev, fill_cfg, &mut other, 7),
                        true,
                    ),
                    (
                        "launching fill again",
                        fill::launch(&dev, fill_cfg, &mut other, 8),
                        true,
                    ),
                    ("downloading", other.download().map(|_| ()), false),
                    ("allocating", dev.zeros::<u32>(4).map(|_| ()), false),
                    ("copying", dev.copy(&other).map(|_| ()), false),
                    ("synchronizing", dev.synchronize(), false),
                ];
                common::assert_fault_seen_once("wild", wild_cfg, ("fill", fill_cfg), calls);
            }
        }
    }
}
