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
                let err = result.unwrap_err();
                let text = err.to_string();
                match &err {
                    Error::KernelFault { kernel, config, .. } => {
                        assert_eq!(kernel, "wild_write");
                        assert_eq!(config, &cfg.to_string());
                    }
                    other => panic!("expected KernelFault, got: {other}"),
                }
                assert!(
                    text.contains("context is lost") && text.contains("Restart the process"),
                    "{text}"
                );
                // Later calls explain themselves instead of failing with unrelated codes.
                for later in [
                    dev.zeros::<u32>(4).map(|_| ()),
                    out.download().map(|_| ()),
                    wild_write::launch(&dev, cfg, &mut out, 0),
                    dev.synchronize(),
                ] {
                    match later {
                        Err(Error::ContextLost { first }) => {
                            assert!(first.contains("wild_write"), "{first}")
                        }
                        other => panic!("expected ContextLost, got {other:?}"),
                    }
                }
            }
        }
    }
}
