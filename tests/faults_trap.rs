//! A trap (`__trap()`, what a failed device-side assertion executes) is a driver fault like
//! an illegal address: `Error::KernelFault` naming the kernel and its launch
//! configuration, then `Error::ContextLost` on every later call. The kernel language has no
//! trap, so the kernel is hand-written C launched through warpspeed's own launch path (a
//! `KernelDef` as the macro would emit it). GPU only; the fault loses this process's
//! context, so this file holds one test (tests/faults.rs has the illegal address).

mod common;

use std::sync::LazyLock;
use warpspeed::__private::{launch, KernelArgs, KernelDef, SimFuture, ThreadCtx};
use warpspeed::{Backend, KernelOptions, LaunchConfig};

static SOURCE: LazyLock<String> = LazyLock::new(|| {
    "extern \"C\" __global__ void trap_at_five() { if (threadIdx.x == 5) __trap(); }".into()
});

/// Never run: the test launches on the GPU only.
fn no_simulation<'a>(_: &'a ThreadCtx<'a>) -> SimFuture<'a> {
    Box::pin(async {})
}

static TRAP: KernelDef = KernelDef {
    rust_name: "trap_at_five",
    entry: "trap_at_five",
    source: &SOURCE,
    options: KernelOptions { fast_math: false },
    params: &[],
    grid_sync: false,
    block: None,
    sim: no_simulation,
    provable: &[],
};

#[test]
fn a_trap_names_its_kernel_and_later_calls_say_the_context_is_lost() {
    let devices = common::devices("kernel_trap");
    let Some(dev) = devices.iter().find(|d| d.backend() == Backend::Cuda) else {
        println!("SKIPPED kernel_trap: a trap needs a GPU");
        return;
    };
    let cfg = LaunchConfig::new(2, 32);
    let err = launch(dev, &TRAP, cfg, KernelArgs::new())
        .and_then(|()| dev.synchronize())
        .unwrap_err();
    let later = vec![
        dev.zeros::<u32>(4).map(|_| ()),
        launch(dev, &TRAP, cfg, KernelArgs::new()),
        dev.synchronize(),
    ];
    common::assert_context_lost(err, "trap_at_five", cfg, later);
}
