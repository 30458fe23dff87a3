//! What the algorithms share for autotuning (`warpspeed::autotune`; docs/algorithms.md,
//! "Autotuning"): the size below which nothing is tuned, and the keys.

use warpspeed_core::autotune::Key;
use warpspeed_core::LaunchTarget;

/// Inputs shorter than this are never tuned: there every candidate launches the same
/// grid or nearly, and tuning would cost more than it could save.
pub(crate) const TUNE_FROM: usize = 1 << 20;

/// Whether to ask the tuner about `algorithm` for `n` elements: from [`TUNE_FROM`] on, or
/// at any size when the bench or a test forces a candidate (`autotune::force`), so that
/// every candidate can be checked on the simulator with small inputs.
pub(crate) fn worth_it(algorithm: &str, n: usize) -> bool {
    n >= TUNE_FROM || warpspeed_core::autotune::forced(algorithm).is_some()
}

/// The key of `algorithm` over the element type `T` (its Rust name, with the operator's
/// where there is one: `Sum<u32>`) for `sizes` on `target`'s GPU.
pub(crate) fn key<T: ?Sized>(target: &impl LaunchTarget, algorithm: &str, sizes: &[usize]) -> Key {
    Key::new(
        target.device(),
        algorithm,
        short_type_name::<T>().as_str(),
        sizes,
    )
}

/// `std::any::type_name` without module paths (`warpspeed_algorithms::operator::Sum<u32>`
/// is `Sum<u32>`): what the file keeps should not change when a module moves.
fn short_type_name<T: ?Sized>() -> String {
    let full = std::any::type_name::<T>();
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            word.push(c);
        } else {
            out += word.rsplit("::").next().unwrap_or("");
            word.clear();
            out.push(c);
        }
    }
    out += word.rsplit("::").next().unwrap_or("");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn type_names_lose_their_paths() {
        assert_eq!(
            super::short_type_name::<crate::operator::Sum<u32>>(),
            "Sum<u32>"
        );
        assert_eq!(
            super::short_type_name::<crate::reduce::ArgOf<i64, true>>(),
            "ArgOf<i64, true>"
        );
    }
}
