//! Launch configurations ([`LaunchConfig`]) and the limits of a device ([`DeviceLimits`]):
//! plain data, a leaf under the error type (which names configurations). Checking one
//! against the other is `validate.rs`.

use crate::dim::Dim3;

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
