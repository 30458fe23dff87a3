//! A `#[gpu_device]` function called from host code (`let (c, odd) = classify(v);` in
//! `main`): its simulator body, run to its end as the one thread of a one-thread block, so
//! the host computes exactly what the kernel computes (the simulator's arithmetic, its
//! bounds checks). A function that uses kernel-only intrinsics (`thread_idx`, barriers,
//! shuffles, shared memory, atomics) is kernel code and panics, as `warpspeed::kernel`'s
//! items do on the host.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicBool;

use super::block::{Block, Runner};
use super::check::{install_quiet_panic_hook, QuietPanics};
use super::ctx::ThreadCtx;
use super::handles::{Slice, SliceMut};
use super::launch::{KernelNames, Launch};
use super::print::PrintSink;
use super::shadow::EpochTable;
use super::track::Track;
use super::SimOptions;
use crate::config::LaunchConfig;
use crate::scalar::KernelScalar;

/// Runs `body`, the simulator body of device function `name`, on the host and returns its
/// result. `kernel_only` names the kernel-only intrinsic the function (or a function it
/// calls) uses, if any: then it panics instead, saying the function is kernel code.
/// A failure of the body (an index out of bounds, a declared length not met) panics with
/// the simulator's report.
#[track_caller]
pub fn host_call<R, F>(name: &'static str, kernel_only: Option<&str>, body: F) -> R
where
    F: for<'a> FnOnce(&'a ThreadCtx<'a>) -> Pin<Box<dyn Future<Output = R> + 'a>>,
{
    if let Some(what) = kernel_only {
        kernel_code(name, what);
    }
    install_quiet_panic_hook();
    let launch = Launch {
        kernel: KernelNames { name, params: &[] },
        cfg: LaunchConfig::new(1u32, 1u32),
        args: &[],
        options: SimOptions {
            race_checks: false,
            seed: None,
        },
        shared_limit: 0,
        static_shared_limit: 0,
        cooperative: false,
        print: PrintSink::current(),
        globals: Box::default(),
        epochs: EpochTable::new(),
        stop: AtomicBool::new(false),
    };
    let out: Cell<Option<R>> = Cell::new(None);
    let result = {
        let _quiet = QuietPanics::enter();
        let block = match Block::new(&launch, 0) {
            Ok(block) => block,
            Err(e) => panic!("`{name}` on the host: {e}"),
        };
        let ctx = ThreadCtx::new(&block, 0);
        let out = &out;
        let task = body(&ctx);
        let task: Pin<Box<dyn Future<Output = ()> + '_>> = Box::pin(async move {
            out.set(Some(task.await));
        });
        let mut runner = Runner::new(&block, vec![Some(task)]);
        runner.run_to_end()
    };
    if let Err(e) = result {
        panic!("`{name}` called on the host failed: {e}");
    }
    match out.into_inner() {
        Some(r) => r,
        None => panic!("`{name}` called on the host did not finish (a warpspeed bug)"),
    }
}

/// The panic of a host call of device function `name`, which uses the kernel-only `what`.
#[cold]
#[track_caller]
pub fn kernel_code(name: &str, what: &str) -> ! {
    panic!(
        "`{name}` is kernel code: it uses `{what}`, which runs only inside a kernel (a #[gpu_device] function is callable from host code where it uses no thread index, barrier, warp function, shared memory or atomics)"
    )
}

impl<T: KernelScalar> Slice<T> {
    /// A host slice as a device function's `&[T]` parameter, for a host call: the
    /// simulator reads it where it is (not race-checked: one thread).
    pub fn host(s: &[T]) -> Slice<T> {
        Slice::new(s.as_ptr(), s.len(), Track::NONE)
    }
}

impl<T: KernelScalar> SliceMut<T> {
    /// A host slice as a device function's `&mut [T]` parameter, for a host call.
    pub fn host(s: &mut [T]) -> SliceMut<T> {
        SliceMut::new(s.as_mut_ptr(), s.len(), Track::NONE)
    }
}
