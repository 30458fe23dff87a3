//! `#[gpu_struct]` and how kernels learn the structs they use: `define` expands the
//! attribute, `payload` writes and reads the definitions a struct's macro hands over,
//! `resolve` finds the structs a function names and asks their macros for them, and
//! `resolved` takes their answers; `generic` makes the instances of generic structs.

mod callees;
pub mod define;
mod export;
mod generic;
mod layout;
mod payload;
pub mod resolve;
pub mod resolved;
