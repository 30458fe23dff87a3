//! A fault first seen by an allocation: an `unchecked` kernel `wild` writes at index 2^40,
//! the host waits (without asking the GPU anything) until the fault has happened, and the
//! next call is an allocation. It says `Error::KernelFault` naming `wild` and its launch
//! configuration; every later call (upload, copy, launch, download, synchronisation) says
//! `Error::ContextLost`. The fault loses this process's GPU context, so this file holds one
//! test. On the simulator `wild` is an out-of-bounds report and the device goes on working.

mod common;
#[path = "common/fault_kernels.rs"]
mod fault_kernels;

use fault_kernels::{fill, wild};
use std::time::Duration;
use warpspeed::{Backend, Error, LaunchConfig};

#[test]
fn a_fault_first_seen_by_an_allocation_names_the_kernel_that_faulted() {
    let far = 1usize << 40;
    let cfg = LaunchConfig::new(3, 32);
    let fill_cfg = LaunchConfig::new(1, 128);
    for dev in common::devices("fault_allocation") {
        let mut out = dev.zeros::<u32>(100).unwrap();
        // Loaded before the fault, so the launch below needs no module load.
        fill::launch(&dev, fill_cfg, &mut out, 1).unwrap();
        dev.synchronize().unwrap();
        let first = wild::launch(&dev, cfg, &mut out, far);
        match dev.backend() {
            Backend::Simulator => {
                assert!(matches!(first, Err(Error::OutOfBounds { .. })), "{first:?}");
                let mut fresh = dev.zeros::<u32>(100).unwrap();
                fill::launch(&dev, fill_cfg, &mut fresh, 9).unwrap();
                assert_eq!(fresh.download().unwrap(), vec![9; 100]);
                assert_eq!(out.download().unwrap(), vec![1; 100]);
            }
            Backend::Cuda => {
                first.expect("the launch of `wild` is queued; its fault comes later");
                // Long enough for one block of 32 threads to fault; nothing asks the GPU.
                std::thread::sleep(Duration::from_millis(500));
                let calls = vec![
                    ("allocating", dev.zeros::<u32>(1000).map(|_| ()), false),
                    ("uploading", dev.upload(&[1u32, 2, 3]).map(|_| ()), false),
                    ("copying", dev.copy(&out).map(|_| ()), false),
                    (
                        "launching fill",
                        fill::launch(&dev, fill_cfg, &mut out, 2),
                        true,
                    ),
                    (
                        "copying from the host",
                        out.copy_from_host(&[0; 100]),
                        false,
                    ),
                    ("downloading", out.download().map(|_| ()), false),
                    ("synchronizing", dev.synchronize(), false),
                ];
                // The allocation must be the call that sees it.
                assert!(
                    matches!(calls[0].1, Err(Error::KernelFault { .. })),
                    "the allocation after the fault: {:?}",
                    calls[0].1
                );
                common::assert_fault_seen_once("wild", cfg, ("fill", fill_cfg), calls);
            }
        }
    }
}
