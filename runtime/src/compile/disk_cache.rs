//! The on-disk CUBIN cache, so a second process start runs no NVRTC compilation.
//!
//! An entry is keyed by a hash of everything that changes the CUBIN: the source, the
//! NVRTC options (which hold the architecture) and NVRTC's version. A file is written to a
//! temporary name and renamed into place, so readers never see half a file; it starts
//! with a header (magic, key, length, checksum), so a truncated or damaged file is
//! recompiled, never loaded. Any I/O failure (a read-only directory, a full disk) only
//! means the cache is skipped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::hash::{fnv128, Fnv128};
use super::nvrtc::nvrtc_options;
use crate::kernel_abi::KernelOptions;

/// Bumped whenever the file layout or the meaning of a key changes.
const FORMAT: &[u8; 8] = b"WSCUBIN1";
/// Magic, key (16), payload length (8), payload checksum (16).
const HEADER_LEN: usize = 8 + 16 + 8 + 16;

/// Identifies one compilation: source, options, architecture, NVRTC version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(pub u128);

impl CacheKey {
    /// The key of compiling `source` for `arch` with `options` by NVRTC `nvrtc_version`.
    pub fn new(
        source: &str,
        arch: (u32, u32),
        options: KernelOptions,
        nvrtc_version: (u32, u32),
    ) -> Self {
        let mut h = Fnv128::new().field(FORMAT).field(source.as_bytes());
        for opt in nvrtc_options(arch, options) {
            h = h.field(opt.as_bytes());
        }
        h = h
            .field(&nvrtc_version.0.to_le_bytes())
            .field(&nvrtc_version.1.to_le_bytes());
        CacheKey(h.finish())
    }
}

impl std::fmt::Display for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

/// A directory of cached CUBINs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// A cache in `dir` (created on first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        DiskCache { dir: dir.into() }
    }

    /// The cache the environment asks for: `None` when `WARPSPEED_CACHE=off`, else
    /// [`DiskCache::default_dir`].
    pub fn from_env() -> Option<Self> {
        let setting = std::env::var("WARPSPEED_CACHE")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if matches!(setting.as_str(), "off" | "0" | "false" | "no") {
            return None;
        }
        Self::default_dir().map(Self::new)
    }

    /// `$WARPSPEED_CACHE_DIR`, else `$XDG_CACHE_HOME/warpspeed`, else
    /// `$HOME/.cache/warpspeed`.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        var("WARPSPEED_CACHE_DIR")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("warpspeed")))
            .or_else(|| var("HOME").map(|d| d.join(".cache").join("warpspeed")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry for `key` lives.
    pub fn path(&self, key: CacheKey) -> PathBuf {
        self.dir.join(format!("{key}.cubin"))
    }

    /// The CUBIN stored under `key`, if a complete, undamaged entry is there.
    pub fn load(&self, key: CacheKey) -> Option<Vec<u8>> {
        let file = std::fs::read(self.path(key)).ok()?;
        decode(&file, key)
    }

    /// Stores `cubin` under `key`; failures are ignored (the cache is an optimisation).
    pub fn store(&self, key: CacheKey, cubin: &[u8]) {
        let _ = self.try_store(key, cubin);
    }

    fn try_store(&self, key: CacheKey, cubin: &[u8]) -> std::io::Result<()> {
        static UNIQUE: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(
            ".{key}.{}.{}.tmp",
            std::process::id(),
            UNIQUE.fetch_add(1, Ordering::Relaxed)
        ));
        let written = std::fs::write(&tmp, encode(cubin, key))
            .and_then(|()| std::fs::rename(&tmp, self.path(key)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }
}

fn encode(cubin: &[u8], key: CacheKey) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + cubin.len());
    out.extend_from_slice(FORMAT);
    out.extend_from_slice(&key.0.to_le_bytes());
    out.extend_from_slice(&(cubin.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv128(cubin).to_le_bytes());
    out.extend_from_slice(cubin);
    out
}

fn decode(file: &[u8], key: CacheKey) -> Option<Vec<u8>> {
    let (header, payload) = file.split_at_checked(HEADER_LEN)?;
    let (magic, rest) = header.split_at(8);
    let (stored_key, rest) = rest.split_at(16);
    let (len, checksum) = rest.split_at(8);
    let ok = magic == FORMAT
        && stored_key == key.0.to_le_bytes()
        && u64::from_le_bytes(len.try_into().ok()?) == payload.len() as u64
        && checksum == fnv128(payload).to_le_bytes()
        && !payload.is_empty();
    ok.then(|| payload.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let key = CacheKey(42);
        let file = encode(b"cubin bytes", key);
        assert_eq!(decode(&file, key).as_deref(), Some(&b"cubin bytes"[..]));
        assert_eq!(decode(&file, CacheKey(43)), None, "another key's file");
        assert_eq!(decode(&file[..file.len() - 1], key), None, "truncated");
        let mut flipped = file.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&flipped, key), None, "damaged payload");
        assert_eq!(decode(b"garbage", key), None);
    }

    #[test]
    fn keys_depend_on_every_input() {
        let base = CacheKey::new("src", (9, 0), KernelOptions { fast_math: false }, (13, 0));
        assert_ne!(
            base,
            CacheKey::new("src2", (9, 0), KernelOptions { fast_math: false }, (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("src", (8, 0), KernelOptions { fast_math: false }, (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("src", (9, 0), KernelOptions { fast_math: true }, (13, 0))
        );
        assert_ne!(
            base,
            CacheKey::new("src", (9, 0), KernelOptions { fast_math: false }, (13, 1))
        );
    }

    #[test]
    fn unwritable_directory_is_silent() {
        let cache = DiskCache::new("/proc/warpspeed-cannot-exist");
        cache.store(CacheKey(1), b"x");
        assert_eq!(cache.load(CacheKey(1)), None);
    }
}
