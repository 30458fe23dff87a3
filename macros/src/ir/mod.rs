//! The bottom layer: the kernel as data. The AST (`ast`, walked by `visit`) and its
//! vocabulary (kernel types, the intrinsic, method, atomic and group tables). It imports
//! nothing above it: parsing, the analyses and the emitters all build on it.

pub mod ast;
pub mod atomics;
pub mod call;
pub mod groups;
pub mod intrinsics;
pub mod mbarrier;
pub mod methods;
#[cfg(test)]
mod methods_doc;
pub mod numeric_consts;
pub mod structs;
pub mod texture;
pub mod ty;
pub mod visit;
