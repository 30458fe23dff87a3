//! From a kernel's CUDA C to a CUBIN: NVRTC and the disk cache.
//!
//! A launch asks the device's in-memory function cache first (`cuda/module.rs`); on a miss
//! [`compile_cached`] looks in the [`DiskCache`] and only then runs NVRTC
//! ([`compile_cubin`]), storing the CUBIN for the next process. Everything here works
//! without a GPU: only `libnvrtc` is needed. Public as `warpspeed::compile`.

pub mod arch;
mod disk_cache;
pub(crate) mod hash;
mod nvrtc;
mod nvrtc_memo;
mod options;

pub use crate::diagnostics::{parse_log, Diagnostic};
pub use disk_cache::{CacheKey, DiskCache};
pub use nvrtc::{
    compile_cubin, compile_ptx, nvrtc_available, nvrtc_compile_count, nvrtc_options, nvrtc_version,
};
pub use options::KernelOptions;

use crate::error::Result;

/// Where a [`Compiled`] CUBIN came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubinOrigin {
    /// NVRTC compiled it just now.
    Nvrtc,
    /// It was found in the disk cache.
    DiskCache,
}

/// A CUBIN ready to load.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The CUBIN image.
    pub cubin: Vec<u8>,
    /// NVRTC or the disk cache.
    pub origin: CubinOrigin,
    /// NVRTC's log (warnings); empty when the CUBIN came from the disk cache.
    pub log: String,
}

/// Compiles `source` for `arch`, through `cache` when one is given: a valid entry is
/// returned without running NVRTC; otherwise NVRTC runs and the result is stored.
/// `kernel` names the kernel in errors.
pub fn compile_cached(
    kernel: &str,
    source: &str,
    arch: (u32, u32),
    options: KernelOptions,
    cache: Option<&DiskCache>,
) -> Result<Compiled> {
    // A kernel the GPU cannot run (sm_90a's wgmma elsewhere) is refused before anything.
    nvrtc::target_options(kernel, source, arch, options)?;
    let key = match cache {
        Some(cache) => {
            let key = CacheKey::new(
                source,
                arch,
                options,
                nvrtc_memo::nvrtc_version_memo(cache)?,
            );
            if let Some(cubin) = cache.load(key) {
                return Ok(Compiled {
                    cubin,
                    origin: CubinOrigin::DiskCache,
                    log: String::new(),
                });
            }
            Some((cache, key))
        }
        None => None,
    };
    let (cubin, log) = nvrtc::compile(kernel, source, arch, options)?;
    if let Some((cache, key)) = key {
        cache.store(key, &cubin);
    }
    Ok(Compiled {
        cubin,
        origin: CubinOrigin::Nvrtc,
        log,
    })
}
