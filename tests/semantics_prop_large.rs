//! The property test of tests/semantics_prop.rs on a larger, opt-in set: 3,000 random
//! expressions (and every method case) from another seed, for a run on the GPU now and
//! then. The kernels are generated, not checked in, and compiled only with the feature
//! `prop-large`:
//!
//! ```text
//! python3 tests/prop/gen.py --large            # writes tests/prop/large_kernels.rs
//! cargo test --release --features prop-large --test semantics_prop_large
//! ```
//!
//! `WS_PROP_N=5000 python3 tests/prop/gen.py --large` makes it larger still.
#![cfg(feature = "prop-large")]

#[path = "prop/harness.rs"]
mod harness;
use harness::*;

#[allow(
    unused_parens,
    unused_variables,
    unused_comparisons,
    arithmetic_overflow
)]
mod kernels {
    use super::*;
    include!("prop/large_kernels.rs");
}

#[test]
fn large_set_agrees_bit_for_bit() {
    agree_bit_for_bit(kernels::CASES);
}

#[test]
fn large_set_compiles_with_nvrtc() {
    compile_with_nvrtc(kernels::CASES);
}
