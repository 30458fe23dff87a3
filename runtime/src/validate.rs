//! A [`LaunchConfig`] checked against a device's [`DeviceLimits`] before the driver (or the
//! simulator) sees it, so a bad configuration is an [`Error::InvalidLaunch`] that names the
//! limit it broke and the device's value, not an opaque `CUDA_ERROR_INVALID_VALUE`. A leaf:
//! both backends and the launch path use it.

use crate::config::{DeviceLimits, LaunchConfig, Part, Unfit};
use crate::dim::Dim3;
use crate::error::{Error, Result};

impl LaunchConfig {
    /// Checks the configuration against `limits`; `kernel` names the kernel in the error.
    pub fn validate(&self, limits: &DeviceLimits, kernel: &str) -> Result<()> {
        let fail = |reason: String| Err(self.invalid(kernel, reason));
        if let Some(unfit) = self.unfit {
            return fail(unfit_reason(unfit, limits));
        }
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

    /// An [`Error::InvalidLaunch`] of `kernel` with this configuration, for `reason`.
    pub(crate) fn invalid(&self, kernel: &str, reason: String) -> Error {
        Error::InvalidLaunch {
            kernel: kernel.to_string(),
            config: *self,
            reason,
        }
    }

    /// Refuses a cooperative launch whose grid has more blocks than fit on the device at
    /// once: `per_sm` blocks on each of `whose` `sms` multiprocessors.
    pub(crate) fn check_coresident(
        &self,
        kernel: &str,
        per_sm: u32,
        sms: u32,
        whose: &str,
    ) -> Result<()> {
        let blocks = self.grid.count();
        let max = u64::from(per_sm) * u64::from(sms);
        if blocks <= max {
            return Ok(());
        }
        Err(self.invalid(
            kernel,
            format!(
                "a cooperative launch needs every block on the device at once, but the grid \
                 has {blocks} blocks and at most {max} fit ({per_sm} per multiprocessor for \
                 this kernel with {} threads and {} bytes of dynamic shared memory per block, \
                 times {whose} {sms} multiprocessors)",
                self.block.count(),
                self.shared_mem_bytes
            ),
        ))
    }
}

/// Why a size given that does not fit a `u32` (`LaunchConfig::new` with a `usize`, ...)
/// cannot be launched, with the device's limit: the same words as for a `u32` over the
/// limit, since every device limit is below `u32::MAX`.
fn unfit_reason(unfit: Unfit, limits: &DeviceLimits) -> String {
    let value = unfit.value();
    let axis = |a: u8| ['x', 'y', 'z'][usize::from(a)];
    let dim = |d: Dim3, a: u8| [d.x, d.y, d.z][usize::from(a)];
    let (what, max) = match unfit.part {
        Part::Grid(a) => (
            format!("grid dimension {}", axis(a)),
            dim(limits.max_grid_dim, a),
        ),
        Part::Block(a) => (
            format!("block dimension {}", axis(a)),
            dim(limits.max_block_dim, a),
        ),
        Part::Elems => {
            return format!(
                "LaunchConfig::for_num_elems was given {value} elements: a number of \
                 elements cannot be negative"
            )
        }
        Part::SharedMem if value >= 0 => {
            return format!(
                "{value} bytes of dynamic shared memory per block, but the device allows at \
                 most {} bytes per block (its opt-in limit, max_shared_mem_per_block_optin)",
                limits.max_shared_mem_per_block_optin
            )
        }
        Part::SharedMem => {
            return format!(
                "{value} bytes of dynamic shared memory per block: a number of bytes cannot \
                 be negative"
            )
        }
    };
    if value < 0 {
        format!("{what} is {value}, but a size cannot be negative: every dimension must be at least 1 (and the device allows at most {max})")
    } else {
        format!("{what} is {value}, but the device allows at most {max}")
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
    fn usize_sizes_are_checked_not_truncated() {
        let n: usize = 1 << 20;
        check(LaunchConfig::new(n.div_ceil(256), 256usize)).unwrap();
        assert_eq!(
            LaunchConfig::new((n.div_ceil(16), 16u32), (16, 16)).grid,
            Dim3::new(65536, 16, 1)
        );
        // 2^32 + 1 blocks: truncated to a u32 it would be 1, a valid launch.
        let big = (1usize << 32) + 1;
        let r = check(LaunchConfig::new(big, 256)).unwrap_err();
        assert!(
            r.contains("grid dimension x is 4294967297") && r.contains("at most 2147483647"),
            "{r}"
        );
        let r = check(LaunchConfig::new(1, (32u64, 1u64, 1u64 << 32))).unwrap_err();
        assert!(
            r.contains("block dimension z is 4294967296") && r.contains("at most 64"),
            "{r}"
        );
        let r = check(LaunchConfig::new((1, -1), 32)).unwrap_err();
        assert!(
            r.contains("grid dimension y is -1") && r.contains("cannot be negative"),
            "{r}"
        );
        let r = check(LaunchConfig::for_num_elems(-5i64)).unwrap_err();
        assert!(r.contains("given -5 elements"), "{r}");
        let r = check(LaunchConfig::new(1, 1).with_shared_mem(1usize << 33)).unwrap_err();
        assert!(
            r.contains("8589934592 bytes") && r.contains("at most 232448"),
            "{r}"
        );
    }

    #[test]
    fn for_num_elems_takes_usize() {
        assert_eq!(
            LaunchConfig::for_num_elems(1000usize),
            LaunchConfig::for_num_elems(1000u32)
        );
        // 2^40 elements need 2^32 blocks of 256: one more than a u32 holds.
        let r = check(LaunchConfig::for_num_elems(1usize << 40)).unwrap_err();
        assert!(r.contains("grid dimension x is 4294967296"), "{r}");
        // 2^38 elements fit (2^30 blocks).
        check(LaunchConfig::for_num_elems(1usize << 38)).unwrap();
    }

    #[test]
    fn the_error_shows_the_size_given() {
        let err = LaunchConfig::new(1usize << 33, 128)
            .validate(&DeviceLimits::SIMULATOR, "k")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("grid (8589934592, 1, 1), block (128, 1, 1)"),
            "{err}"
        );
    }

    #[test]
    fn for_num_elems_rounds_up() {
        assert_eq!(LaunchConfig::for_num_elems(256).grid.x, 1);
        assert_eq!(LaunchConfig::for_num_elems(257).grid.x, 2);
        assert_eq!(LaunchConfig::for_num_elems(0).grid.x, 1);
    }
}
