//! Back ends: CUDA C for NVRTC, and the Rust module (launch wrapper + simulator body).

pub mod cuda;
pub mod host;
pub mod host_fn;
pub mod krate;
