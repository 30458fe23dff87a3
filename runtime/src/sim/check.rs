//! How a simulated thread stops the launch: a failed check panics with a private
//! [`Failure`] payload, the executor catches it (`catch_unwind` around each poll) and turns
//! it, or any other panic, into the launch's [`Error`]. A panic hook keeps these panics
//! quiet: they are reported as `Err`, not printed.

use std::any::Any;
use std::cell::Cell;
use std::sync::Once;

use super::site::SrcLoc;
use crate::dim::Dim3;
use crate::error::{panic_message, DeclaredLen, Error};

/// A failed check inside a simulated thread.
pub(crate) enum Failure {
    /// An index out of bounds; the executor adds kernel, block and thread.
    OutOfBounds {
        at: &'static SrcLoc,
        index: u64,
        len: u64,
    },
    /// A slice shorter than a device function's `#[len(..)]`; the executor adds the
    /// kernel, block and thread.
    SliceTooShort {
        decl: Box<DeclaredLen>,
        len: u64,
        need: Option<u64>,
    },
    /// A complete report.
    Report(Box<Error>),
}

/// The panic payload carrying a [`Failure`].
struct FailurePayload(Failure);

/// Stops the current simulated thread (and the launch) with `failure`.
pub(crate) fn raise(failure: Failure) -> ! {
    std::panic::panic_any(FailurePayload(failure))
}

/// The error a panic of thread `thread` of block `block` stands for.
pub(crate) fn panic_to_error(
    kernel: &str,
    payload: Box<dyn Any + Send>,
    block: Dim3,
    thread: Dim3,
) -> Error {
    let kernel = kernel.to_string();
    let payload = match payload.downcast::<FailurePayload>() {
        Ok(failure) => {
            return match failure.0 {
                Failure::OutOfBounds { at, index, len } => Error::OutOfBounds {
                    kernel,
                    file: at.file().to_string(),
                    line: at.line(),
                    index,
                    len,
                    block,
                    thread,
                },
                Failure::SliceTooShort { decl, len, need } => Error::SliceTooShort {
                    kernel,
                    decl,
                    need,
                    len,
                    at: Some((block, thread)),
                },
                Failure::Report(err) => *err,
            }
        }
        Err(other) => other,
    };
    let mut message = panic_message(&*payload);
    if let Some(location) = LAST_PANIC_LOCATION.with(|l| l.take()) {
        message = format!("{message} (at {location})");
    }
    Error::KernelPanic {
        kernel,
        message,
        block,
        thread,
    }
}

thread_local! {
    /// Set while this thread runs simulated kernel threads: their panics become `Err`s,
    /// so the panic hook stays quiet for them.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic happened, for the error message.
    static LAST_PANIC_LOCATION: Cell<Option<String>> = const { Cell::new(None) };
}

/// Marks the current thread as running simulated kernels until dropped.
pub(crate) struct QuietPanics(bool);

impl QuietPanics {
    pub(crate) fn enter() -> Self {
        QuietPanics(QUIET.with(|q| q.replace(true)))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        QUIET.with(|q| q.set(self.0));
    }
}

/// Wraps the panic hook once per process so panics inside simulated kernels (which are
/// reported as `Err`) do not also print to stderr; every other panic goes to the hook
/// that was installed before.
pub(crate) fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                LAST_PANIC_LOCATION.with(|l| l.set(info.location().map(|loc| loc.to_string())));
            } else {
                previous(info);
            }
        }));
    });
}
