//! The kernel templates: each algorithm's kernels written once as an exported (hidden)
//! `macro_rules!`, expanded by the library for its own operators (`crate::kernels`) and by
//! [`operator!`](crate::operator!) in a user's crate for a user's. A template takes the
//! combining step as an expression over two named values, so one text serves `a + b`, a
//! method call and a user's `#[gpu_device]` function.

mod lookback;
mod range_reduce;
mod scan;
mod select;
mod tree_lookback;
