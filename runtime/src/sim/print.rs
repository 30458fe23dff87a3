//! Printing from kernels (`gpu_print!`): C's `%g` in Rust ([`format_g`]), where the text of
//! a simulated `printf` goes, and a way for tests to capture it ([`capture_sim_prints`]).
//!
//! The macro formats the text; [`ThreadCtx::print`](super::ThreadCtx::print) hands it to the
//! block executor, which writes the texts of the lanes of a warp that reach one print site
//! together in lane order, as a converged warp's `printf` does on the GPU (`block.rs`).

use std::cell::RefCell;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// Formats `v` exactly as C's `printf("%g", v)`: six significant digits, the shorter of
/// fixed and exponent notation by C's rule (exponent form when the decimal exponent is
/// below -4 or at least 6), trailing zeros and a trailing point removed, the exponent
/// signed and at least two digits (`1e+20`, `1.5e-05`); `inf`, `-inf`, `-0`.
///
/// Every NaN prints as `nan`: glibc prints `-nan` for a NaN whose sign bit is set, but the
/// sign of a NaN is not something a kernel can rely on (x86 makes negative NaNs where a GPU
/// makes positive ones), so the simulator does not show it.
///
/// ```
/// use warpspeed::__private::format_g;
/// assert_eq!(format_g(0.1), "0.1");
/// assert_eq!(format_g(1e20), "1e+20");
/// assert_eq!(format_g(1.5e-5), "1.5e-05");
/// assert_eq!(format_g(123456789.0), "1.23457e+08");
/// assert_eq!(format_g(-0.0), "-0");
/// ```
pub fn format_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    const PRECISION: i32 = 6;
    // The decimal exponent once rounded to PRECISION significant digits (9999995 rounds
    // up to 1.00000e7). Rust's formatting is exact and rounds ties to even, as glibc does.
    let e_form = format!("{:.*e}", (PRECISION - 1) as usize, v);
    let (mantissa, exp) = e_form.split_once('e').expect("Rust's {:e} has an exponent");
    let exp: i32 = exp.parse().expect("Rust's exponent is an integer");
    if (-4..PRECISION).contains(&exp) {
        let fixed = format!("{:.*}", (PRECISION - 1 - exp) as usize, v);
        strip_zeros(&fixed).to_string()
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.unsigned_abs())
    }
}

/// "1.50000" -> "1.5", "2.00000" -> "2"; text without a point is kept.
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Where the prints of one simulator launch go.
#[derive(Clone, Default)]
pub(crate) enum PrintSink {
    /// The process's standard output.
    #[default]
    Stdout,
    /// A buffer of [`capture_sim_prints`].
    Capture(Arc<Mutex<String>>),
}

impl PrintSink {
    /// The sink of a launch made on this thread now.
    pub(crate) fn current() -> PrintSink {
        CAPTURE.with(|c| match &*c.borrow() {
            Some(buffer) => PrintSink::Capture(buffer.clone()),
            None => PrintSink::Stdout,
        })
    }

    /// Writes the texts of one group of lanes, in order, as one piece (stdout is locked
    /// once for the group, so no other print comes between them).
    pub(crate) fn write_group<'t>(&self, texts: impl IntoIterator<Item = &'t str>) {
        match self {
            PrintSink::Stdout => {
                let mut out = std::io::stdout().lock();
                for text in texts {
                    // A closed stdout loses the text, as printf's would be.
                    let _ = out.write_all(text.as_bytes());
                }
                let _ = out.flush();
            }
            PrintSink::Capture(buffer) => {
                let mut buffer = buffer.lock().unwrap_or_else(PoisonError::into_inner);
                for text in texts {
                    buffer.push_str(text);
                }
            }
        }
    }
}

thread_local! {
    /// The buffer simulator launches made on this thread print into, while
    /// [`capture_sim_prints`] runs.
    static CAPTURE: RefCell<Option<Arc<Mutex<String>>>> = const { RefCell::new(None) };
}

/// Runs `f`, and returns with its result what the kernels of the simulator launches it
/// makes on this thread printed (`gpu_print!`), instead of writing it to stdout. Launches on
/// a GPU are not affected (their `printf` goes to the process's stdout, through the
/// driver). Captures nest; tests running in parallel capture only their own launches.
///
/// ```
/// let ((), text) = warpspeed::__private::capture_sim_prints(|| {
///     // launches on `Device::simulator()` here
/// });
/// assert_eq!(text, "");
/// ```
pub fn capture_sim_prints<R>(f: impl FnOnce() -> R) -> (R, String) {
    struct Restore(Option<Arc<Mutex<String>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CAPTURE.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let buffer = Arc::new(Mutex::new(String::new()));
    let previous = CAPTURE.with(|c| c.borrow_mut().replace(buffer.clone()));
    let restore = Restore(previous);
    let result = f();
    drop(restore);
    let text = std::mem::take(&mut *buffer.lock().unwrap_or_else(PoisonError::into_inner));
    (result, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(format_g(f64::NAN), "nan");
        assert_eq!(format_g(-f64::NAN), "nan");
        assert_eq!(format_g(f64::INFINITY), "inf");
        assert_eq!(format_g(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_g(0.0), "0");
        assert_eq!(format_g(-0.0), "-0");
    }

    #[test]
    fn captures_nest_and_restore() {
        let (inner, outer) = capture_sim_prints(|| {
            PrintSink::current().write_group(["a"]);
            let ((), inner) = capture_sim_prints(|| PrintSink::current().write_group(["b", "c"]));
            PrintSink::current().write_group(["d"]);
            inner
        });
        assert_eq!((inner.as_str(), outer.as_str()), ("bc", "ad"));
        assert!(matches!(PrintSink::current(), PrintSink::Stdout));
    }
}
