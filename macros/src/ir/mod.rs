//! The typed middle of the pipeline: kernel types, the intrinsic and method tables, and
//! the type checker.

pub mod atomics;
pub mod exhaustive;
pub mod groups;
pub mod intrinsics;
pub mod methods;
#[cfg(test)]
mod methods_doc;
pub mod numeric_consts;
pub mod texture;
pub mod ty;
pub mod typeck;
