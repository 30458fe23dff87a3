//! [`KernelOptions`]: what a kernel asks of NVRTC, part of its cache key.

/// Compile-time options a kernel carries into NVRTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelOptions {
    /// `#[gpu_kernel(fast_math)]`: lets NVRTC contract `a * b + c`, flush denormals and use
    /// approximate division and square root. Off by default, so `+ - * / sqrt` agree with
    /// Rust bit for bit.
    pub fast_math: bool,
}
