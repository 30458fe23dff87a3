//! A fault on a stream: an `unchecked` kernel `wild` launched on a `Stream` writes at index
//! 2^40, and `fill` is launched on the same stream at once. Whichever call sees the fault
//! first (the launch of `fill`, the stream's synchronisation, an event, a download) says
//! `Error::KernelFault` naming `wild` and its configuration; every later call, on the
//! stream or the device, says `Error::ContextLost`. The fault loses this process's GPU
//! context, so this file holds one test. On the simulator the same sequence is an
//! out-of-bounds report for `wild` at its launch, after which the stream and the device
//! go on working.

mod common;
#[path = "common/fault_kernels.rs"]
mod fault_kernels;

use fault_kernels::{fill, wild};
use warpspeed::{Backend, Error, LaunchConfig};

#[test]
fn a_fault_on_a_stream_names_the_kernel_then_the_context_is_lost() {
    let far = 1usize << 40;
    let wild_cfg = LaunchConfig::new(1, 32);
    let fill_cfg = LaunchConfig::new(2, 64);
    for dev in common::devices("fault_stream") {
        let s = dev.create_stream().unwrap();
        let mut out = dev.upload(&[0xDEAD_BEEFu32; 100]).unwrap();
        let mut other = dev.zeros::<u32>(100).unwrap();
        let first = wild::launch(&s, wild_cfg, &mut out, far);
        match dev.backend() {
            Backend::Simulator => {
                assert!(matches!(first, Err(Error::OutOfBounds { .. })), "{first:?}");
                fill::launch(&s, fill_cfg, &mut other, 7).unwrap();
                s.synchronize().unwrap();
                assert_eq!(other.download().unwrap(), vec![7; 100]);
                assert_eq!(out.download().unwrap(), vec![0xDEAD_BEEF; 100]);
            }
            Backend::Cuda => {
                first.expect("the launch of `wild` is queued; its fault comes later");
                let calls = vec![
                    (
                        "launching fill on the stream",
                        fill::launch(&s, fill_cfg, &mut other, 7),
                        true,
                    ),
                    ("synchronizing the stream", s.synchronize(), false),
                    ("recording an event", s.record().map(|_| ()), false),
                    ("downloading", other.download().map(|_| ()), false),
                    ("creating a stream", dev.create_stream().map(|_| ()), false),
                    ("synchronizing the device", dev.synchronize(), false),
                ];
                common::assert_fault_seen_once("wild", wild_cfg, ("fill", fill_cfg), calls);
            }
        }
    }
}
