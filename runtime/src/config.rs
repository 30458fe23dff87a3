//! Launch configurations ([`LaunchConfig`]), the limits of a device ([`DeviceLimits`]) and
//! the validation of one against the other. A leaf: both backends and the launch path use
//! it.
//!
//! A [`LaunchConfig`] is checked before the driver (or the simulator) sees it, so a bad
//! configuration is an [`Error::InvalidLaunch`] that names the limit it broke and the
//! device's value, not an opaque `CUDA_ERROR_INVALID_VALUE`.

use crate::dim::Dim3;
use crate::error::{Error, Result};

/// The limits a launch configuration is checked against, read once per device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceLimits {
    /// Most threads in one block (`x * y * z`).
    pub max_threads_per_block: u32,
    /// Most threads along each block dimension.
    pub max_block_dim: Dim3,
    /// Most blocks along each grid dimension.
    pub max_grid_dim: Dim3,
    /// Most shared memory (static plus dynamic) one block may use without opting in.
    pub max_shared_mem_per_block: u32,
    /// Most shared memory (static plus dynamic) one block may use after opting in; a
    /// launch asking for more dynamic shared memory than `max_shared_mem_per_block` allows
    /// opts in for its kernel (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`) by itself.
    pub max_shared_mem_per_block_optin: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Streaming multiprocessors on the device (the simulator: CPU worker threads).
    pub multiprocessor_count: u32,
    /// Whether the device can run cooperative launches (`launch_cooperative`, kernels that
    /// call `this_grid().sync()`).
    pub cooperative_launch: bool,
}

impl DeviceLimits {
    /// CUDA's usual limits (every GPU since compute capability 3.0), which the simulator
    /// enforces so a configuration that runs there also launches on a GPU; shared memory
    /// above 48 KiB per block up to an H100's opt-in limit of 227 KiB.
    pub const SIMULATOR: DeviceLimits = DeviceLimits {
        max_threads_per_block: 1024,
        max_block_dim: Dim3::new(1024, 1024, 64),
        max_grid_dim: Dim3::new(i32::MAX as u32, 65535, 65535),
        max_shared_mem_per_block: 48 * 1024,
        max_shared_mem_per_block_optin: 227 * 1024,
        warp_size: 32,
        multiprocessor_count: 1,
        cooperative_launch: true,
    };
}

/// Grid and block sizes of one launch, and the dynamic shared memory each block gets.
///
/// ```
/// use warpspeed_runtime::{Dim3, LaunchConfig};
/// let cfg = LaunchConfig::new((64, 64), (16, 16)).with_shared_mem(1024);
/// assert_eq!(cfg.grid, Dim3::new(64, 64, 1));
/// assert_eq!(cfg.block, Dim3::new(16, 16, 1));
/// assert_eq!(cfg.shared_mem_bytes, 1024);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid (`gridDim`).
    pub grid: Dim3,
    /// Threads in each block (`blockDim`).
    pub block: Dim3,
    /// Bytes of dynamic shared memory per block (`dynamic_shared::<T>()`).
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// Threads per block that [`LaunchConfig::for_num_elems`] uses.
    pub const DEFAULT_BLOCK: u32 = 256;

    /// A grid of `grid` blocks of `block` threads each; each accepts `u32`, `(u32, u32)`,
    /// `(u32, u32, u32)` or a [`Dim3`]; missing dimensions are 1.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchConfig {
            grid: grid.into(),
            block: block.into(),
            shared_mem_bytes: 0,
        }
    }

    /// One thread per element for `n` elements: blocks of 256 threads, as many blocks as
    /// needed (at least one, so `n == 0` is still a valid launch; the kernel is expected to
    /// check its index against `n`, as every grid-sized kernel does).
    ///
    /// ```
    /// use warpspeed_runtime::LaunchConfig;
    /// let cfg = LaunchConfig::for_num_elems(1000);
    /// assert_eq!((cfg.grid.x, cfg.block.x), (4, 256));
    /// ```
    pub fn for_num_elems(n: u32) -> Self {
        Self::new(n.div_ceil(Self::DEFAULT_BLOCK).max(1), Self::DEFAULT_BLOCK)
    }

    /// The same configuration with `bytes` of dynamic shared memory per block. Above
    /// 48 KiB (`DeviceLimits::max_shared_mem_per_block`) the launch opts the kernel in to
    /// more, up to the device's `max_shared_mem_per_block_optin` (227 KiB on an H100)
    /// less the kernel's static shared memory.
    pub fn with_shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem_bytes = bytes;
        self
    }

    /// Checks the configuration against `limits`; `kernel` names the kernel in the error.
    pub fn validate(&self, limits: &DeviceLimits, kernel: &str) -> Result<()> {
        let fail = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: kernel.to_string(),
                config: *self,
                reason,
            })
        };
        if self.grid.count() == 0 {
            return fail(format!(
                "the grid {} has no blocks: every dimension must be at least 1",
                self.grid
            ));
        }
        if self.block.count() == 0 {
            return fail(format!(
                "the block {} has no threads: every dimension must be at least 1",
                self.block
            ));
        }
        let threads = self.block.count();
        if threads > u64::from(limits.max_threads_per_block) {
            return fail(format!(
                "{threads} threads per block, but the device allows at most {}",
                limits.max_threads_per_block
            ));
        }
        for (axis, got, max) in axes(self.block, limits.max_block_dim) {
            if got > max {
                return fail(format!(
                    "block dimension {axis} is {got}, but the device allows at most {max}"
                ));
            }
        }
        for (axis, got, max) in axes(self.grid, limits.max_grid_dim) {
            if got > max {
                return fail(format!(
                    "grid dimension {axis} is {got}, but the device allows at most {max}"
                ));
            }
        }
        if self.shared_mem_bytes > limits.max_shared_mem_per_block_optin {
            return fail(format!(
                "{} bytes of dynamic shared memory per block, but the device allows at most {} \
                 bytes per block (its opt-in limit, max_shared_mem_per_block_optin)",
                self.shared_mem_bytes, limits.max_shared_mem_per_block_optin
            ));
        }
        Ok(())
    }
}

/// Pairs each axis of `got` with the same axis of `max`.
fn axes(got: Dim3, max: Dim3) -> [(char, u32, u32); 3] {
    [
        ('x', got.x, max.x),
        ('y', got.y, max.y),
        ('z', got.z, max.z),
    ]
}

impl std::fmt::Display for LaunchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "grid {}, block {}", self.grid, self.block)?;
        if self.shared_mem_bytes > 0 {
            write!(
                f,
                ", {} bytes of dynamic shared memory",
                self.shared_mem_bytes
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cfg: LaunchConfig) -> std::result::Result<(), String> {
        cfg.validate(&DeviceLimits::SIMULATOR, "k")
            .map_err(|e| match e {
                Error::InvalidLaunch { reason, .. } => reason,
                other => panic!("unexpected error {other}"),
            })
    }

    #[test]
    fn accepts_usual_configs() {
        check(LaunchConfig::new(1, 1)).unwrap();
        check(LaunchConfig::new((65535, 65535), (32, 32))).unwrap();
        check(LaunchConfig::new((i32::MAX as u32, 1, 65535), (1, 1, 64))).unwrap();
        check(LaunchConfig::for_num_elems(1 << 20).with_shared_mem(48 * 1024)).unwrap();
        check(LaunchConfig::new(1, 256).with_shared_mem(227 * 1024)).unwrap();
        check(LaunchConfig::for_num_elems(0)).unwrap();
    }

    #[test]
    fn rejects_empty_grid_and_block() {
        assert!(check(LaunchConfig::new((4, 0), 32))
            .unwrap_err()
            .contains("no blocks"));
        assert!(check(LaunchConfig::new(4, (32, 1, 0)))
            .unwrap_err()
            .contains("no threads"));
    }

    #[test]
    fn rejects_too_many_threads() {
        let r = check(LaunchConfig::new(1, (64, 32))).unwrap_err();
        assert!(
            r.contains("2048 threads per block") && r.contains("at most 1024"),
            "{r}"
        );
    }

    #[test]
    fn rejects_block_dims() {
        let r = check(LaunchConfig::new(1, (1, 1, 128))).unwrap_err();
        assert!(
            r.contains("block dimension z is 128") && r.contains("at most 64"),
            "{r}"
        );
    }

    #[test]
    fn rejects_grid_dims() {
        let r = check(LaunchConfig::new((1, 65536), 1)).unwrap_err();
        assert!(
            r.contains("grid dimension y is 65536") && r.contains("at most 65535"),
            "{r}"
        );
        let r = check(LaunchConfig::new(u32::MAX, 1)).unwrap_err();
        assert!(
            r.contains("grid dimension x") && r.contains("2147483647"),
            "{r}"
        );
    }

    #[test]
    fn rejects_shared_memory() {
        let r = check(LaunchConfig::new(1, 1).with_shared_mem(227 * 1024 + 1)).unwrap_err();
        assert!(
            r.contains("232449 bytes")
                && r.contains("at most 232448")
                && r.contains("opt-in limit"),
            "{r}"
        );
    }

    #[test]
    fn error_display_names_kernel_and_config() {
        let err = LaunchConfig::new(1, 2048)
            .validate(&DeviceLimits::SIMULATOR, "life")
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("`life`") && text.contains("block (2048, 1, 1)"),
            "{text}"
        );
    }

    #[test]
    fn for_num_elems_rounds_up() {
        assert_eq!(LaunchConfig::for_num_elems(256).grid.x, 1);
        assert_eq!(LaunchConfig::for_num_elems(257).grid.x, 2);
        assert_eq!(LaunchConfig::for_num_elems(0).grid.x, 1);
    }
}
