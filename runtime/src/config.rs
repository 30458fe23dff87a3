//! Launch configurations ([`LaunchConfig`]) and the limits of a device ([`DeviceLimits`]):
//! plain data, a leaf under the error type (which names configurations). Checking one
//! against the other is `validate.rs`.

use crate::dim::{Dim3, DimInt, IntoDim3};

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
/// use warpspeed::{Dim3, LaunchConfig};
/// let cfg = LaunchConfig::new((64, 64), (16, 16)).with_shared_mem(1024);
/// assert_eq!(cfg.grid, Dim3::new(64, 64, 1));
/// assert_eq!(cfg.block, Dim3::new(16, 16, 1));
/// assert_eq!(cfg.shared_mem_bytes, 1024);
/// ```
///
/// Sizes may be `usize`s (or any [`DimInt`]): the conversion to CUDA's 32-bit `dim3` is
/// checked when the kernel is launched, so a size that does not fit is an
/// [`Error::InvalidLaunch`](crate::Error::InvalidLaunch) naming the value and the
/// device's limit, never a silently truncated grid:
///
/// ```
/// use warpspeed::LaunchConfig;
/// let n: usize = 1 << 20;
/// let cfg = LaunchConfig::new(n.div_ceil(256), 256);
/// assert_eq!((cfg.grid.x, cfg.block.x), (4096, 256));
///
/// let huge: usize = 1 << 50;
/// let cfg = LaunchConfig::new(huge.div_ceil(256), 256);
/// let err = cfg.validate(&warpspeed::DeviceLimits::SIMULATOR, "k").unwrap_err();
/// assert!(err.to_string().contains(
///     "grid dimension x is 4398046511104, but the device allows at most 2147483647"
/// ));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid (`gridDim`).
    pub grid: Dim3,
    /// Threads in each block (`blockDim`).
    pub block: Dim3,
    /// Bytes of dynamic shared memory per block (`dynamic_shared::<T>()`).
    pub shared_mem_bytes: u32,
    /// The first size given that does not fit its `u32` field (which holds it saturated),
    /// kept for [`LaunchConfig::validate`] to report; the launch fails there.
    pub(crate) unfit: Option<Unfit>,
}

/// A size given to a [`LaunchConfig`] that CUDA cannot launch with: above `u32::MAX` or
/// negative. Its value as a sign and a magnitude, not an `i128`, so that it adds 16
/// bytes to the configuration (and to `Error::InvalidLaunch`), not 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Unfit {
    /// Which size.
    pub(crate) part: Part,
    negative: bool,
    magnitude: u64,
}

impl Unfit {
    /// `value` of `part`; every [`DimInt`] value fits.
    pub(crate) fn new(part: Part, value: i128) -> Self {
        Unfit {
            part,
            negative: value < 0,
            magnitude: u64::try_from(value.unsigned_abs()).unwrap_or(u64::MAX),
        }
    }

    /// The value as given.
    pub(crate) fn value(&self) -> i128 {
        let m = i128::from(self.magnitude);
        if self.negative {
            -m
        } else {
            m
        }
    }
}

/// The sizes of a [`LaunchConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Part {
    /// A grid dimension (0, 1, 2: x, y, z).
    Grid(u8),
    /// A block dimension.
    Block(u8),
    /// The number of elements given to `for_num_elems`.
    Elems,
    /// The bytes of dynamic shared memory.
    SharedMem,
}

impl LaunchConfig {
    /// Threads per block that [`LaunchConfig::for_num_elems`] uses.
    pub const DEFAULT_BLOCK: u32 = 256;

    /// A grid of `grid` blocks of `block` threads each; each is a [`Dim3`], an integer
    /// `x`, or a tuple `(x, y)` or `(x, y, z)` of integers (`u32`, `usize`, ...: any
    /// [`DimInt`]); missing dimensions are 1. A size that does not fit CUDA's `u32`
    /// makes the launch an [`Error::InvalidLaunch`](crate::Error::InvalidLaunch).
    pub fn new(grid: impl IntoDim3, block: impl IntoDim3) -> Self {
        Self::from_dims(grid.to_i128s(), block.to_i128s())
    }

    /// [`LaunchConfig::new`] with the sizes as given.
    fn from_dims(grid: [i128; 3], block: [i128; 3]) -> Self {
        let mut cfg = LaunchConfig {
            grid: Dim3::default(),
            block: Dim3::default(),
            shared_mem_bytes: 0,
            unfit: None,
        };
        cfg.grid = cfg.dim3(grid, Part::Grid);
        cfg.block = cfg.dim3(block, Part::Block);
        cfg
    }

    /// One thread per element for `n` elements (any [`DimInt`]: `u32`, `usize`, ...):
    /// blocks of 256 threads, as many blocks as needed (at least one, so `n == 0` is still
    /// a valid launch; the kernel is expected to check its index against `n`, as every
    /// grid-sized kernel does). A negative `n`, or one that needs more blocks than a `u32`
    /// holds, makes the launch an [`Error::InvalidLaunch`](crate::Error::InvalidLaunch).
    ///
    /// ```
    /// use warpspeed::LaunchConfig;
    /// let cfg = LaunchConfig::for_num_elems(1000);
    /// assert_eq!((cfg.grid.x, cfg.block.x), (4, 256));
    /// let v = vec![0.0f32; 1000];
    /// assert_eq!(LaunchConfig::for_num_elems(v.len()), cfg);
    /// ```
    pub fn for_num_elems(n: impl DimInt) -> Self {
        Self::for_elems_in_blocks(n.to_i128(), Self::DEFAULT_BLOCK)
    }

    /// One thread per element for `n` elements in blocks of `block` threads (at least one
    /// block).
    pub(crate) fn for_elems_in_blocks(n: i128, block: u32) -> Self {
        if n < 0 {
            let mut cfg = Self::new(1, block);
            cfg.unfit = Some(Unfit::new(Part::Elems, n));
            return cfg;
        }
        let per = i128::from(block.max(1));
        let grid = (n + per - 1) / per;
        Self::from_dims([grid, 1, 1], [block.into(), 1, 1]).min_one_block()
    }

    /// At least one block along x (`n == 0` elements is still a valid launch).
    fn min_one_block(mut self) -> Self {
        if self.unfit.is_none() {
            self.grid.x = self.grid.x.max(1);
        }
        self
    }

    /// The same configuration with `bytes` of dynamic shared memory per block (any
    /// [`DimInt`]: `n * size_of::<f32>()` is a `usize`). Above 48 KiB
    /// (`DeviceLimits::max_shared_mem_per_block`) the launch opts the kernel in to more,
    /// up to the device's `max_shared_mem_per_block_optin` (227 KiB on an H100) less the
    /// kernel's static shared memory; more is an
    /// [`Error::InvalidLaunch`](crate::Error::InvalidLaunch) at the launch.
    pub fn with_shared_mem(mut self, bytes: impl DimInt) -> Self {
        self.shared_mem_bytes = self.fit(bytes.to_i128(), Part::SharedMem);
        self
    }

    /// `dims` as a [`Dim3`], each saturated into a `u32`; the first that does not fit is
    /// kept in `unfit` as `part(axis)`.
    fn dim3(&mut self, dims: [i128; 3], part: fn(u8) -> Part) -> Dim3 {
        let [x, y, z] = [0, 1, 2].map(|axis| self.fit(dims[usize::from(axis)], part(axis)));
        Dim3::new(x, y, z)
    }

    /// `value` as a `u32`, saturated; a value that does not fit is kept in `unfit`
    /// (the first one only: one error per launch).
    fn fit(&mut self, value: i128, part: Part) -> u32 {
        match u32::try_from(value) {
            Ok(v) => v,
            Err(_) => {
                self.unfit.get_or_insert(Unfit::new(part, value));
                if value < 0 {
                    0
                } else {
                    u32::MAX
                }
            }
        }
    }

    /// `dim` of `part` (a grid or a block) as given, for messages: an unfit component is
    /// shown with its value, not its saturated one.
    pub(crate) fn shown(&self, dim: Dim3, part: fn(u8) -> Part) -> String {
        let [x, y, z] = [dim.x, dim.y, dim.z].map(i128::from);
        let mut v = [x, y, z];
        if let Some(unfit) = self.unfit {
            for (axis, slot) in (0u8..).zip(v.iter_mut()) {
                if unfit.part == part(axis) {
                    *slot = unfit.value();
                }
            }
        }
        format!("({}, {}, {})", v[0], v[1], v[2])
    }
}

impl std::fmt::Display for LaunchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "grid {}, block {}",
            self.shown(self.grid, Part::Grid),
            self.shown(self.block, Part::Block)
        )?;
        let shared = match self.unfit {
            Some(unfit) if unfit.part == Part::SharedMem => unfit.value(),
            _ => i128::from(self.shared_mem_bytes),
        };
        if shared != 0 {
            write!(f, ", {shared} bytes of dynamic shared memory")?;
        }
        Ok(())
    }
}

// A launch configuration travels in every `Error::InvalidLaunch`: keep it small.
const _: () = assert!(std::mem::size_of::<LaunchConfig>() <= 48);
