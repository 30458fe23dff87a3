//! The simulator as a device: [`SimDevice`] (its name, limits, CPU workers and
//! [`SimOptions`]) and how many blocks of a cooperative launch it holds at once
//! ([`coresident_blocks`]).

use super::order::StreamOrder;
use crate::config::{DeviceLimits, LaunchConfig};
/// The simulator behind a `Device`: what a launch needs to know about it.
pub(crate) struct SimDevice {
    /// "warpspeed simulator (N CPU threads)".
    pub(crate) name: String,
    /// CUDA's usual limits, with one multiprocessor per worker.
    pub(crate) limits: DeviceLimits,
    /// CPU threads that run blocks in parallel.
    pub(crate) workers: usize,
    /// Checks and thread order.
    pub(crate) options: SimOptions,
    /// The order of its streams' operations (`order.rs`).
    pub(crate) order: StreamOrder,
}

impl SimDevice {
    /// A simulator running blocks on every available core, with `options`.
    pub(crate) fn new(options: SimOptions) -> SimDevice {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let limits = DeviceLimits {
            multiprocessor_count: u32::try_from(workers).unwrap_or(u32::MAX),
            ..DeviceLimits::SIMULATOR
        };
        SimDevice {
            name: format!("warpspeed simulator ({workers} CPU threads)"),
            limits,
            workers,
            options,
            order: StreamOrder::default(),
        }
    }
}

/// Blocks one multiprocessor of the simulator holds at once (an H100 SM's limit), for the
/// co-resident limit of cooperative launches.
const MAX_BLOCKS_PER_MULTIPROCESSOR: u32 = 32;
/// Threads one multiprocessor of the simulator holds at once (an H100 SM's limit).
const MAX_THREADS_PER_MULTIPROCESSOR: u32 = 2048;
/// Shared memory of one multiprocessor of the simulator (an H100 SM's 228 KiB).
const SHARED_MEM_PER_MULTIPROCESSOR: u32 = 228 * 1024;

/// How many blocks of `cfg` a cooperative launch on the simulator may have, as
/// `(blocks per multiprocessor, multiprocessors)`: the simulator counts like a GPU whose
/// multiprocessors are its CPU workers ([`DeviceLimits::multiprocessor_count`]), each
/// holding at most 32 blocks, 2048 threads (a block's threads rounded up to whole warps)
/// and 228 KiB of dynamic shared memory, as an H100's SM does. Registers and static
/// shared memory are not counted (the simulator does not know them before running).
pub(crate) fn coresident_blocks(limits: &DeviceLimits, cfg: &LaunchConfig) -> (u32, u32) {
    let threads = (cfg.block.count().div_ceil(32) * 32).max(32);
    let by_threads = u64::from(MAX_THREADS_PER_MULTIPROCESSOR) / threads;
    let by_shared = match u64::from(cfg.shared_mem_bytes) {
        0 => u64::MAX,
        bytes => u64::from(SHARED_MEM_PER_MULTIPROCESSOR) / bytes,
    };
    let per_sm = by_threads
        .min(by_shared)
        .min(u64::from(MAX_BLOCKS_PER_MULTIPROCESSOR));
    (per_sm as u32, limits.multiprocessor_count)
}

/// The block size of highest occupancy on the simulator, at most `limit` threads
/// (0: no limit besides the device's), for `LaunchConfig::for_occupancy`: the search
/// `cuOccupancyMaxPotentialBlockSize` makes (whole warps from the largest block down, the
/// first block size whose resident threads per multiprocessor are the most wins), over
/// the multiprocessor [`coresident_blocks`] models (32 blocks, 2048 threads; registers
/// and shared memory are not counted). With that model every kernel gets 1024 threads.
pub(crate) fn max_potential_block_size(limits: &DeviceLimits, limit: u32) -> u32 {
    let max = match limit {
        0 => limits.max_threads_per_block,
        l => l.min(limits.max_threads_per_block),
    };
    let mut best = (0u64, max.max(1));
    let mut threads = max - max % 32;
    while threads >= 32 {
        let (per_sm, _) = coresident_blocks(limits, &LaunchConfig::new(1, threads));
        let resident = u64::from(per_sm) * u64::from(threads);
        if resident > best.0 {
            best = (resident, threads);
        }
        threads -= 32;
    }
    best.1
}

/// How the simulator runs kernels.
///
/// ```
/// use warpspeed::{Device, SimOptions};
/// let dev = Device::simulator_with(SimOptions { race_checks: false, seed: Some(7) });
/// assert_eq!(dev.backend(), warpspeed::Backend::Simulator);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimOptions {
    /// Report data races on shared and global memory, and reads of shared memory no
    /// thread wrote (default `true`). Bounds and barrier checks are always on.
    pub race_checks: bool,
    /// Poll the runnable threads of each block in an order shuffled by this seed (and the
    /// block index) in every round, instead of thread order.
    pub seed: Option<u64>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            race_checks: true,
            seed: None,
        }
    }
}

impl SimOptions {
    /// The options `WARPSPEED_SIM_RACES` (`0`/`off`/`false`/`no` turn the race checks off)
    /// and `WARPSPEED_SIM_SEED` (a `u64`, decimal or `0x` hexadecimal) ask for; other
    /// values are ignored with a warning on stderr.
    pub fn from_env() -> SimOptions {
        Self::from_vars(
            std::env::var("WARPSPEED_SIM_RACES").ok().as_deref(),
            std::env::var("WARPSPEED_SIM_SEED").ok().as_deref(),
        )
    }

    fn from_vars(races: Option<&str>, seed: Option<&str>) -> SimOptions {
        let mut options = SimOptions::default();
        if let Some(v) = races {
            match v.trim().to_ascii_lowercase().as_str() {
                "0" | "off" | "false" | "no" => options.race_checks = false,
                "" | "1" | "on" | "true" | "yes" => {}
                _ => eprintln!("warpspeed: ignoring WARPSPEED_SIM_RACES={v:?} (use 0/off or 1/on)"),
            }
        }
        if let Some(v) = seed {
            let t = v.trim();
            let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => t.parse(),
            };
            match parsed {
                Ok(seed) => options.seed = Some(seed),
                Err(_) if t.is_empty() => {}
                Err(_) => eprintln!("warpspeed: ignoring WARPSPEED_SIM_SEED={v:?} (not a u64)"),
            }
        }
        options
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_block_sizes() {
        let limits = DeviceLimits::SIMULATOR;
        // 1024 threads: 2 blocks, 2048 resident threads, found first from the top.
        assert_eq!(max_potential_block_size(&limits, 0), 1024);
        // Under 100: 96 leaves 21 blocks (2016 threads); 64 fills the model (32 blocks).
        assert_eq!(max_potential_block_size(&limits, 100), 64);
        // Less than a warp: what is allowed.
        assert_eq!(max_potential_block_size(&limits, 16), 16);
    }

    #[test]
    fn options_from_vars() {
        assert_eq!(SimOptions::from_vars(None, None), SimOptions::default());
        assert!(!SimOptions::from_vars(Some("off"), None).race_checks);
        assert!(!SimOptions::from_vars(Some("0"), None).race_checks);
        assert!(SimOptions::from_vars(Some("1"), None).race_checks);
        assert_eq!(SimOptions::from_vars(None, Some("42")).seed, Some(42));
        assert_eq!(SimOptions::from_vars(None, Some("0x10")).seed, Some(16));
        assert_eq!(SimOptions::from_vars(None, Some("x")).seed, None);
    }
}
